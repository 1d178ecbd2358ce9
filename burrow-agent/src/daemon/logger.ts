/**
 * The daemon logs one line per event to stderr, for journald / launchd. Never log a token, key, nonce, proof
 * or terminal content: messages are built from ids, counts and error messages only.
 */
import type { Logger } from '../session/activity.js';

export function stderrLogger(
  stream: NodeJS.WritableStream = process.stderr,
  now: () => Date = () => new Date(),
): Logger {
  return (level, message) => {
    // One line per entry, whatever the message contains.
    stream.write(`${now().toISOString()} ${level.padEnd(5)} ${message.replace(/[\r\n]+/g, ' ')}\n`);
  };
}
