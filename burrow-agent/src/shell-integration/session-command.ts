/**
 * The command line of a session that runs a command rather than a shell (`burrow new -- CMD [ARG…]`), as the
 * attention engine keys it: the argv quoted back into one POSIX shell line, so `commandWatchKey` reads it the
 * way it reads a line typed into an integrated shell (issue 13: `burrow new -- claude` keys as `claude`).
 */
import { isInteractiveShell } from './shell-kind.js';

/** Longest line built; the engine keeps 4096 characters of a command line, so more would be cut anyway. */
export const MAX_SESSION_COMMAND_CHARS = 4096;

/** Characters that never need quoting in a POSIX shell word. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const ANSI_C: Readonly<Record<string, string>> = {
  '\n': '\\n',
  '\t': '\\t',
  '\r': '\\r',
  '\\': '\\\\',
  "'": "\\'",
};

/**
 * One argument as a shell word: bare when plain, in single quotes otherwise, and as `$'…'` (ANSI-C quoting,
 * bash/zsh/ksh) when it holds control characters, so the line stays one printable line.
 */
export function quoteShellWord(word: string): string {
  if (word === '') return "''";
  if (PLAIN_WORD.test(word)) return word;
  if (!CONTROL.test(word)) return `'${word.replaceAll("'", `'\\''`)}'`;
  let out = "$'";
  for (const c of word) {
    const code = c.codePointAt(0)!;
    out +=
      ANSI_C[c] ??
      (code < 0x20 || (code >= 0x7f && code <= 0x9f) ? `\\x${code.toString(16).padStart(2, '0')}` : c);
  }
  return `${out}'`;
}

/**
 * The session's own command line, or null when `argv` starts an interactive shell (its commands then come
 * from shell integration). At most MAX_SESSION_COMMAND_CHARS characters.
 *
 * @throws TypeError when `argv` is not an array of strings.
 */
export function sessionCommandLine(argv: readonly string[]): string | null {
  if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string'))
    throw new TypeError('sessionCommandLine: argv must be an array of strings');
  if (argv.length === 0 || isInteractiveShell(argv)) return null;
  let line = '';
  for (const arg of argv) {
    line += (line === '' ? '' : ' ') + quoteShellWord(arg);
    if (line.length >= MAX_SESSION_COMMAND_CHARS) return line.slice(0, MAX_SESSION_COMMAND_CHARS);
  }
  return line;
}
