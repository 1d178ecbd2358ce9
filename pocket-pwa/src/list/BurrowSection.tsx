import type { SessionEntry } from '@burrow/protocol';
import { useEffect, useState } from 'react';
import type { PairedBurrow } from '../app/burrow-hub.js';
import type { CreateOptions } from '../app/connection-port.js';
import { pathText, sortedSessions } from '../core/index.js';
import { PushControls } from '../push/PushControls.js';
import type { PushBoard } from '../push/push-board.js';
import { connectionLine } from './connection-text.js';
import { NetworkSettings } from './NetworkSettings.js';
import { NewSessionForm } from './NewSessionForm.js';
import { RenameForm } from './RenameForm.js';
import { SessionRow } from './SessionRow.js';
import { endedSessions, restartArgv } from './session-text.js';
import { useHeldOrder } from './use-held-order.js';

export interface BurrowSectionProps {
  readonly burrow: PairedBurrow;
  readonly nowMs: number;
  readonly online: boolean;
  /** The size a new session starts at: what the terminal view would fit on this screen. */
  readonly screenSize: { cols: number; rows: number };
  onOpen(burrow: PairedBurrow, sessionId: string): void;
  onRename(burrow: PairedBurrow, name: string | null): void;
  onRemove(burrow: PairedBurrow): void;
  onError(message: string): void;
  /** Web Push on this phone; absent where the app runs without it (tests of other screens). */
  readonly push?: PushBoard;
}

/** Refresh of the reconnect countdown. */
const COUNTDOWN_TICK_MS = 1000;

type Mode = 'idle' | 'menu' | 'rename' | 'confirm-remove' | 'new';

/** One paired Burrow: its name, connection state, sessions (ringing first) and what can be done with it. */
export function BurrowSection(props: BurrowSectionProps) {
  const { burrow, nowMs, online, screenSize, onOpen, onRename, onRemove, onError, push } = props;
  const conn = burrow.connection;
  const [mode, setMode] = useState<Mode>('idle');
  // "reconnecting in 4 s" counts down: tick each second while waiting to retry.
  const [tick, setTick] = useState(nowMs);
  const waiting = conn.status.kind === 'reconnecting';
  useEffect(() => {
    if (!waiting) return;
    const t = setInterval(() => setTick(Date.now()), COUNTDOWN_TICK_MS);
    return () => clearInterval(t);
  }, [waiting]);
  const line = connectionLine(conn.status, Math.max(nowMs, tick), burrow.revoked, online);
  const connected = conn.status.kind === 'connected' && !burrow.revoked;
  // Which path carries it (issue 25): "direct" on the same network, else "via relay".
  const path =
    connected && conn.directState !== undefined
      ? pathText(conn.path ?? null, conn.relayConnected ?? true)
      : null;
  const sessions = sortedSessions(conn.sessions);
  // Rows stay where they are while a finger is on the list (held-order.ts).
  const { rows, listProps } = useHeldOrder(sessions);
  const ended = endedSessions(sessions);
  const [clearing, setClearing] = useState(false);
  const fail = (what: string) => (e: unknown) =>
    onError(`${what}: ${e instanceof Error ? e.message : String(e)}`);
  /** "Clear ended sessions": every ended one removed from the Burrow's list in one tap (issue 17 item 7). */
  const clearEnded = () => {
    // `clear` refuses a session that is running again by then; without it, `kill` of an ended one removes it.
    const remove = (id: string) => (conn.clear ? conn.clear(id) : conn.kill(id));
    setClearing(true);
    void Promise.allSettled(ended.map((e) => remove(e.id))).then((results) => {
      setClearing(false);
      const failed = results.filter((r) => r.status === 'rejected').length;
      if (failed > 0) onError(`Could not clear ${failed} of ${results.length} ended sessions`);
    });
  };
  const create = (options: CreateOptions) => {
    // Open by id: the `created` answer can arrive before the directory entry does.
    conn.create(options).then((id) => onOpen(burrow, id), fail('Could not start the session'));
  };

  return (
    <section className="burrow" aria-label={burrow.name}>
      <header className="burrow-head">
        <h2 dir="auto">{burrow.name}</h2>
        <span className={`conn conn-${line.tone}`} role="status">
          <span aria-hidden="true">{line.tone === 'ok' ? '● ' : line.tone === 'waiting' ? '◌ ' : '○ '}</span>
          {line.text}
        </span>
        {path && (
          <span className={`path path-${conn.path}`} title="How the phone reaches your computer">
            {path}
          </span>
        )}
        <button
          type="button"
          aria-label={`Settings for ${burrow.name}`}
          onClick={() => setMode(mode === 'menu' ? 'idle' : 'menu')}
        >
          ⚙
        </button>
      </header>
      {push && (
        <PushControls
          pairing={burrow.record}
          name={burrow.name}
          board={push}
          connection={conn}
          connected={connected}
        />
      )}
      {mode === 'menu' && (
        <div className="menu">
          <button
            type="button"
            onClick={() => {
              setMode('rename');
            }}
          >
            Rename
          </button>
          <button type="button" className="danger" onClick={() => setMode('confirm-remove')}>
            Remove…
          </button>
          <NetworkSettings connection={conn} connected={connected} onError={onError} />
        </div>
      )}
      {mode === 'rename' && (
        <RenameForm
          label="Name on this phone"
          initial={burrow.name}
          onSave={(draft) => onRename(burrow, draft)}
          onDone={() => setMode('idle')}
        />
      )}
      {mode === 'confirm-remove' && (
        <div className="confirm" role="alertdialog" aria-label={`Remove ${burrow.name}?`}>
          <span dir="auto">
            Remove “{burrow.name}” from this phone?{' '}
            {connected
              ? 'It will be asked to forget this phone.'
              : 'It is not reachable now: revoke this phone there with burrow devices.'}
          </span>
          <button
            type="button"
            className="danger"
            onClick={() => {
              onRemove(burrow);
              setMode('idle');
            }}
          >
            Remove
          </button>
          <button type="button" onClick={() => setMode('idle')}>
            Cancel
          </button>
        </div>
      )}
      {sessions.length === 0 ? (
        <p className="empty">
          {connected ? 'No sessions.' : 'Sessions appear when your computer is reachable.'}
        </p>
      ) : (
        <ul className="sessions" {...listProps}>
          {rows.map((entry) => (
            <SessionRow
              key={entry.id}
              entry={entry}
              nowMs={nowMs}
              onOpen={(e) => onOpen(burrow, e.id)}
              onRename={(e, name) => void conn.rename(e.id, name).catch(fail('Could not rename'))}
              onKill={(e) => void conn.kill(e.id).catch(fail('Could not kill'))}
              // `kill` of an ended session removes it from the Burrow's list (the port offers no `clear`).
              onRemove={(e) => void conn.kill(e.id).catch(fail('Could not remove'))}
              onTodo={(e) => conn.todo(e.id, 'toggle')}
              // The Burrow's reason says what is gone and what to do: shown as it is.
              {...(conn.resume
                ? {
                    onResume: (e: SessionEntry) =>
                      void conn.resume!(e.id).then(
                        (id) => onOpen(burrow, id),
                        (err: unknown) => onError(err instanceof Error ? err.message : String(err)),
                      ),
                  }
                : {})}
              onRestart={(e) =>
                create({
                  argv: restartArgv(e),
                  cwd: e.cwd,
                  name: e.name,
                  cols: screenSize.cols,
                  rows: screenSize.rows,
                })
              }
            />
          ))}
        </ul>
      )}
      {ended.length > 0 && (
        <button type="button" className="clear-ended" disabled={!connected || clearing} onClick={clearEnded}>
          Clear ended sessions ({ended.length})
        </button>
      )}
      {mode === 'new' ? (
        <NewSessionForm
          cols={screenSize.cols}
          rows={screenSize.rows}
          onCancel={() => setMode('idle')}
          onCreate={(o) => {
            create(o);
            setMode('idle');
          }}
        />
      ) : (
        <button type="button" className="new-button" disabled={!connected} onClick={() => setMode('new')}>
          New session
        </button>
      )}
    </section>
  );
}
