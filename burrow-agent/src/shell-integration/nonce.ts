/**
 * The shell-integration nonce: a per-session secret the shell prints after each `633;E` command line, so the
 * parser trusts a command line only when the shell itself sent it (burrow-agent/src/terminal/shell-integration.ts).
 * Hex only, so the scripts can print it without escaping and the parser compares its bytes as they are.
 */

/** Random bytes in a nonce made by `createShellNonce` (128 bits). */
export const NONCE_BYTES = 16;
/** Shortest nonce `shellIntegrationLaunch` accepts: 64 bits of hex. */
export const NONCE_MIN_CHARS = 16;
/** Longest nonce accepted, so `633;E;<line>;<nonce>` stays far inside the parser's OSC bound. */
export const NONCE_MAX_CHARS = 128;

const NONCE_PATTERN = /^[0-9a-f]+$/;

/** A fresh nonce from `crypto.getRandomValues`, as lowercase hex. */
export function createShellNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return hex;
}

/**
 * @throws TypeError when `nonce` is not a string of lowercase hex.
 * @throws RangeError when its length is outside [NONCE_MIN_CHARS, NONCE_MAX_CHARS].
 */
export function checkShellNonce(nonce: unknown): asserts nonce is string {
  if (typeof nonce !== 'string' || !NONCE_PATTERN.test(nonce)) {
    throw new TypeError('shell integration: nonce must be a string of lowercase hex digits');
  }
  if (nonce.length < NONCE_MIN_CHARS || nonce.length > NONCE_MAX_CHARS) {
    throw new RangeError(
      `shell integration: nonce must be ${NONCE_MIN_CHARS}–${NONCE_MAX_CHARS} hex digits, got ${nonce.length}`,
    );
  }
}
