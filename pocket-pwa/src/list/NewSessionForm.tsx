import { useState } from 'react';
import type { CreateOptions } from '../app/connection-port.js';

/** Longest command line typed here (protocol's MAX_ARG_CHARS bounds a single argv entry). */
const MAX_COMMAND_INPUT_CHARS = 4096;
/** Longest name typed here: the Burrow's own bound on a session name (code points, session-id.ts). */
const MAX_NAME_INPUT_CHARS = 64;

export interface NewSessionFormProps {
  readonly cols: number;
  readonly rows: number;
  onCreate(options: CreateOptions): void;
  onCancel(): void;
}

/**
 * Start a shell, or a command through the login shell (so PATH and aliases are the owner's), with a name of
 * the owner's choosing (empty: the Burrow names it after the command).
 */
export function NewSessionForm({ cols, rows, onCreate, onCancel }: NewSessionFormProps) {
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');
  const [cwd, setCwd] = useState('');
  return (
    <form
      className="new-session"
      onSubmit={(e) => {
        e.preventDefault();
        const cmd = command.trim();
        onCreate({
          argv: cmd === '' ? null : ['/bin/sh', '-lc', cmd],
          cwd: cwd.trim() === '' ? null : cwd.trim(),
          name: name.trim() === '' ? null : name.trim(),
          cols,
          rows,
        });
      }}
    >
      <label>
        Name <span className="hint">(empty: after the command)</span>
        <input
          value={name}
          maxLength={MAX_NAME_INPUT_CHARS}
          autoCapitalize="off"
          autoCorrect="off"
          spellCheck={false}
          placeholder="build"
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <label>
        Command <span className="hint">(empty: a shell)</span>
        <input
          value={command}
          maxLength={MAX_COMMAND_INPUT_CHARS}
          autoCapitalize="off"
          autoCorrect="off"
          spellCheck={false}
          placeholder="claude"
          onChange={(e) => setCommand(e.target.value)}
        />
      </label>
      <label>
        Directory <span className="hint">(empty: home)</span>
        <input
          value={cwd}
          maxLength={1024}
          autoCapitalize="off"
          autoCorrect="off"
          spellCheck={false}
          placeholder="/path/to/project"
          onChange={(e) => setCwd(e.target.value)}
        />
      </label>
      <div className="row">
        <button type="submit">Start</button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
