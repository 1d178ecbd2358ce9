import { useState } from 'react';
import type { CreateOptions } from '../app/connection-port.js';

/** Longest command line typed here (protocol's MAX_ARG_CHARS bounds a single argv entry). */
const MAX_COMMAND_INPUT_CHARS = 4096;

export interface NewSessionFormProps {
  readonly cols: number;
  readonly rows: number;
  onCreate(options: CreateOptions): void;
  onCancel(): void;
}

/** Start a shell, or a command through the login shell (so PATH and aliases are the owner's). */
export function NewSessionForm({ cols, rows, onCreate, onCancel }: NewSessionFormProps) {
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
          name: null,
          cols,
          rows,
        });
      }}
    >
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
