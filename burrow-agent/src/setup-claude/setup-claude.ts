/**
 * `burrow setup claude` (DESIGN §6): makes Claude Code notify in any terminal by setting its
 * `preferredNotifChannel` to `iterm2`, the way the winmux ADR does it: say exactly what will change and
 * where, ask (unless `--yes`), back the file up, then rewrite it atomically with every other key kept. Running
 * it again when the value is already set changes nothing.
 */
import { realpathSync, statSync } from 'node:fs';
import {
  BURROW_NOTIF_CHANNEL,
  claudeSettingsPath,
  NOTIF_CHANNEL_KEY,
  readSettingsFile,
  withNotifChannel,
} from './claude-settings.js';
import { backupFile, writeAtomically } from './settings-writer.js';
import { SetupClaudeError } from './setup-claude-error.js';

export interface SetupClaudeOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homedir: string;
  /** Change without asking (`--yes`). */
  readonly yes: boolean;
  readonly stdout: { write(text: string): unknown };
  /** Asks the user a question and resolves with their answer (null when there is no one to ask). */
  readonly prompt: (question: string) => Promise<string | null>;
  /** Wall-clock milliseconds, for the backup's name. */
  readonly now?: () => number;
}

export type SetupClaudeResult =
  | { readonly status: 'unchanged'; readonly path: string }
  | { readonly status: 'declined'; readonly path: string }
  | {
      readonly status: 'changed';
      readonly path: string;
      /** The backup of the previous file, or null when there was no file. */
      readonly backup: string | null;
      /** The previous value (as JSON text), or null when the key was absent. */
      readonly before: string | null;
      readonly after: string;
    };

function fileMode(path: string): number | null {
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new SetupClaudeError(`${path} is not a regular file; nothing was changed.`);
    return st.mode & 0o7777;
  } catch (err) {
    if (err instanceof SetupClaudeError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SetupClaudeError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function describeValue(settings: Record<string, unknown>): string | null {
  return Object.hasOwn(settings, NOTIF_CHANNEL_KEY) ? JSON.stringify(settings[NOTIF_CHANNEL_KEY]) : null;
}

/**
 * @throws SetupClaudeError when the settings cannot be read, are not plain JSON, or cannot be written; in
 *   each case the file is as it was.
 */
export async function runSetupClaude(options: SetupClaudeOptions): Promise<SetupClaudeResult> {
  const { env, homedir, yes, stdout, prompt } = options;
  const now = options.now ?? Date.now;
  const path = claudeSettingsPath(env, homedir);
  const file = readSettingsFile(path, fileMode);
  const after = JSON.stringify(BURROW_NOTIF_CHANNEL);
  const before = describeValue(file.settings);
  if (before === after) {
    stdout.write(
      `Claude Code already notifies in any terminal: ${NOTIF_CHANNEL_KEY} is ${after} in ${path}.\n`,
    );
    return { status: 'unchanged', path };
  }

  stdout.write(
    [
      `Claude Code settings: ${path}${file.text === null ? ' (new file)' : ''}`,
      `  ${NOTIF_CHANNEL_KEY}: ${before ?? '(not set)'} → ${after}`,
      'so Claude Code sends its notifications as OSC 9 in every terminal, and Burrow can pass them on.',
      file.text === null
        ? 'Nothing else is written.'
        : 'Every other setting is kept; a backup is written first.',
      '',
    ].join('\n'),
  );
  if (!yes) {
    const answer = await prompt('Change it? [y/N] ');
    if (answer === null || !/^\s*y(es)?\s*$/i.test(answer)) {
      stdout.write('Nothing changed.\n');
      return { status: 'declined', path };
    }
  }

  // The user may have edited the file while the question was open: never write over what was not shown.
  const current = readSettingsFile(path, fileMode);
  if (current.text !== file.text) {
    throw new SetupClaudeError(`${path} changed while Burrow was asking; nothing was changed. Run it again.`);
  }
  const backup = file.text === null ? null : backupFile(path, now());
  // A settings.json that is a symlink (dotfile managers) stays one: the file it points to is replaced.
  const target = file.text === null ? path : realpathSync(path);
  writeAtomically(target, withNotifChannel(file.settings), file.mode, randomSuffix());
  stdout.write(
    `${backup === null ? 'Created' : `Backed up to ${backup}; updated`} ${path}. ` +
      'Claude Code sessions started from now on use it.\n',
  );
  return { status: 'changed', path, backup, before, after };
}
