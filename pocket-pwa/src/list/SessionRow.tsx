import type { SessionEntry } from '@burrow/protocol';
import { useState } from 'react';
import { RenameForm } from './RenameForm.js';
import {
  agoText,
  exitText,
  exitTone,
  previewText,
  resumableText,
  resumeLabel,
  rowLabel,
} from './session-text.js';

export interface SessionRowProps {
  readonly entry: SessionEntry;
  readonly nowMs: number;
  /** A tap opens the session (and acknowledges it without input, alert-spec "Acknowledge"). */
  onOpen(entry: SessionEntry): void;
  onRename(entry: SessionEntry, name: string): void;
  onKill(entry: SessionEntry): void;
  onRestart(entry: SessionEntry): void;
  /** Removes an ended session from the Burrow's list. */
  onRemove(entry: SessionEntry): void;
  /** Starts a resumable session's coding agent on its conversation again; absent where not offered. */
  onResume?(entry: SessionEntry): void;
  onTodo(entry: SessionEntry): void;
}

type Mode = 'idle' | 'menu' | 'rename' | 'confirm-kill';

/** One session in the list: ring and TODO as words and shapes (never colour alone), plain-text preview. */
export function SessionRow({
  entry,
  nowMs,
  onOpen,
  onRename,
  onKill,
  onRestart,
  onRemove,
  onResume,
  onTodo,
}: SessionRowProps) {
  const [mode, setMode] = useState<Mode>('idle');
  const preview = previewText(entry);
  const exit = exitText(entry);
  const resumable = onResume === undefined ? null : resumableText(entry);
  const detail = entry.command ?? (entry.title !== '' ? entry.title : null);
  return (
    <li
      className={`session${entry.ringing ? ' ringing' : ''}${entry.exited ? ' exited' : ''}${mode === 'idle' ? '' : ' expanded'}`}
    >
      <button
        type="button"
        className="session-open"
        aria-label={`Open ${rowLabel(entry)}`}
        onClick={() => onOpen(entry)}
      >
        <span className="session-head">
          {entry.ringing && (
            <span className="badge ring" role="status">
              <span aria-hidden="true">🔔 </span>Needs you
            </span>
          )}
          {entry.todo && <span className="badge todo">TODO</span>}
          <span className="session-name" dir="auto">
            {entry.name}
          </span>
          <span className="session-ago">{agoText(entry.lastActivityAt, nowMs)}</span>
        </span>
        {preview !== null && (
          <span className="session-preview" dir="auto">
            {preview}
          </span>
        )}
        {detail !== null && (
          <span className="session-detail" dir="auto">
            {detail}
          </span>
        )}
        {entry.cwd !== null && (
          <span className="session-cwd" dir="auto">
            {entry.cwd}
          </span>
        )}
        {exit !== null && <span className={`session-exit exit-${exitTone(entry)}`}>{exit}</span>}
        {resumable !== null && <span className="session-resumable">{resumable}</span>}
      </button>
      <div className="session-actions">
        {resumable !== null && mode === 'idle' && onResume !== undefined && (
          <button type="button" className="resume" onClick={() => onResume(entry)}>
            {resumeLabel(entry)}
          </button>
        )}
        {mode === 'idle' && (
          <button type="button" aria-label={`More actions for ${entry.name}`} onClick={() => setMode('menu')}>
            ⋯
          </button>
        )}
        {mode === 'menu' && (
          <>
            <button
              type="button"
              onClick={() => {
                onTodo(entry);
                setMode('idle');
              }}
            >
              {entry.todo ? 'Clear TODO' : 'Mark TODO'}
            </button>
            <button
              type="button"
              onClick={() => {
                setMode('rename');
              }}
            >
              Rename
            </button>
            {entry.exited ? (
              <>
                <button
                  type="button"
                  onClick={() => {
                    onRestart(entry);
                    setMode('idle');
                  }}
                >
                  Restart
                </button>
                <button
                  type="button"
                  onClick={() => {
                    onRemove(entry);
                    setMode('idle');
                  }}
                >
                  Remove
                </button>
              </>
            ) : (
              <button type="button" onClick={() => setMode('confirm-kill')}>
                Kill…
              </button>
            )}
            <button type="button" onClick={() => setMode('idle')}>
              Close
            </button>
          </>
        )}
        {mode === 'rename' && (
          <RenameForm
            label={`New name for ${entry.name}`}
            initial={entry.name}
            onSave={(draft) => {
              if (draft.trim() !== '') onRename(entry, draft.trim());
            }}
            onDone={() => setMode('idle')}
          />
        )}
        {mode === 'confirm-kill' && (
          <div className="confirm" role="alertdialog" aria-label={`Kill ${entry.name}?`}>
            <span dir="auto">Kill “{entry.name}”? Its program stops.</span>
            <button
              type="button"
              className="danger"
              onClick={() => {
                onKill(entry);
                setMode('idle');
              }}
            >
              Kill
            </button>
            <button type="button" onClick={() => setMode('idle')}>
              Cancel
            </button>
          </div>
        )}
      </div>
    </li>
  );
}
