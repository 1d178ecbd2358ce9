/**
 * What `burrow watch ARG` watches (issue 17 item 6). WATCHING rules are keyed by command, never by session
 * (alert-spec WATCHING Track: "never add per-Session enable or mute"), but people type a session's name or id
 * here too: that means "the command this session runs", so it resolves to the session's watch key. An
 * argument shaped like a session id that names no session is an error (exit 4), not a rule no command would
 * ever match; anything else is taken as a command's watch key (claude, make, pnpm dev), which may not be
 * running yet.
 */
import { SESSION_ID_PATTERN } from '../session/session-id.js';
import { printable } from '../text/printable.js';
import { CliError, ExitCode } from './exit-codes.js';

export interface WatchableSession {
  readonly id: string;
  readonly name: string;
  /** The foreground command's watch key, null when none is known (no command running or no integration). */
  readonly watchKey?: string | null;
}

export interface WatchTarget {
  readonly key: string;
  /** The session the key was taken from, or null when the argument was the key itself. */
  readonly session: string | null;
}

export function watchTarget(arg: string, sessions: readonly WatchableSession[]): WatchTarget {
  const s = sessions.find((x) => x.id === arg) ?? sessions.find((x) => x.name === arg);
  if (s !== undefined) {
    if (typeof s.watchKey !== 'string' || s.watchKey === '')
      throw new CliError(
        ExitCode.Failure,
        `session ${printable(s.name, 64)} runs no command Burrow can name right now (that needs shell ` +
          'integration and a running command); watch a command by name instead, e.g. `burrow watch claude`',
      );
    return { key: s.watchKey, session: s.name };
  }
  if (SESSION_ID_PATTERN.test(arg))
    throw new CliError(
      ExitCode.NotFound,
      `no session ${arg} (see \`burrow ls\`); \`burrow watch\` takes a command name such as claude, or a ` +
        "session's name or id to watch the command it runs",
    );
  return { key: arg, session: null };
}
