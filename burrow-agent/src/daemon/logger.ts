/**
 * The daemon logs one line per event to stderr, for journald / launchd. Never log a token, key, nonce, proof
 * or terminal content: messages are built from ids, counts and error messages only.
 *
 * Those error messages often quote text from outside — a relay's error body, a phone's label, a session's
 * name — so every message goes through the same sanitizer the CLI prints with (`text/printable.ts`, issue
 * 24.4): control characters (ESC, BEL, C1, line breaks among them), bidi and invisible characters are written
 * as visible escapes, so a log line is exactly one line and a terminal showing it (`tail -f`, `journalctl`)
 * is never driven by it. Messages longer than LOG_MESSAGE_MAX_CHARS are cut, with a count of what was left out.
 */
import type { Logger } from '../session/activity.js';
import { printable } from '../text/printable.js';

/** Longest message text written per entry (UTF-16 units, before the "… (N more characters)" note). */
export const LOG_MESSAGE_MAX_CHARS = 4096;

export function stderrLogger(
  stream: NodeJS.WritableStream = process.stderr,
  now: () => Date = () => new Date(),
): Logger {
  return (level, message) => {
    stream.write(`${now().toISOString()} ${level.padEnd(5)} ${printable(message, LOG_MESSAGE_MAX_CHARS)}\n`);
  };
}
