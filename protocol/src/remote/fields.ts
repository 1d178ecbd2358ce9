/**
 * The field schemas every remote message is built from (valibot). [SPEC: R-FIELD-*]
 *
 * Each check's message starts with the SPEC rule it enforces; `decode` turns the first failing check into a
 * ProtocolError carrying that rule.
 */
import * as v from 'valibot';
import {
  MAX_CAPABILITY_CHARS,
  MAX_OFFSET,
  MAX_RID,
  MAX_SESSION_ID_CHARS,
  MAX_TERMINAL_COLS,
  MAX_TERMINAL_ROWS,
  MAX_TIMESTAMP_MS,
  MAX_VERSION_CHARS,
} from './limits.js';

/** R-FIELD-1: session ids (and episode ids) are 1–32 characters of [A-Za-z0-9_-]. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_SESSION_ID_CHARS && SESSION_ID_PATTERN.test(value);
}

export const sessionId = v.pipe(
  v.string(),
  v.check(
    (s) => SESSION_ID_PATTERN.test(s),
    'R-FIELD-1: session id must be 1–32 characters of [A-Za-z0-9_-]',
  ),
);

/** R-FIELD-2: request ids are integers 1 … 2^32−1. */
export const rid = v.pipe(
  v.number(),
  v.check(
    (n) => Number.isInteger(n) && n >= 1 && n <= MAX_RID,
    'R-FIELD-2: rid must be an integer 1 … 2^32−1',
  ),
);

/** R-FIELD-3: byte offsets and line numbers are integers 0 … 2^53−1. */
export const offset = v.pipe(
  v.number(),
  v.check(
    (n) => Number.isInteger(n) && n >= 0 && n <= MAX_OFFSET,
    'R-FIELD-3: offset must be an integer 0 … 2^53−1',
  ),
);

/** R-FIELD-4: timestamps are Unix epoch milliseconds. */
export const timestamp = v.pipe(
  v.number(),
  v.check(
    (n) => Number.isInteger(n) && n >= 0 && n <= MAX_TIMESTAMP_MS,
    'R-FIELD-4: timestamp must be integer epoch milliseconds',
  ),
);

export function intIn(min: number, max: number, rule: string) {
  return v.pipe(
    v.number(),
    v.check(
      (n) => Number.isInteger(n) && n >= min && n <= max,
      `${rule}: must be an integer ${min} … ${max}`,
    ),
  );
}

/** R-FIELD-5: terminal sizes are 1 … 1000 columns and rows. */
export const cols = intIn(1, MAX_TERMINAL_COLS, 'R-FIELD-5');
export const rows = intIn(1, MAX_TERMINAL_ROWS, 'R-FIELD-5');

/** Counts code points of a well-formed UTF-16 string, or returns -1 if it holds a lone surrogate. */
function codePointCount(s: string): number {
  let count = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return -1;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return -1;
    }
    count++;
  }
  return count;
}

// C0, DEL, C1, and the bidi / zero-width formatting characters the sanitizer removes (DESIGN §2).
const DISPLAY_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

/**
 * R-FIELD-6: display text (labels, titles, notification text, cwd, command lines) is well-formed UTF-16, has no
 * control, bidi or zero-width formatting characters, and at most `max` code points. The Burrow sanitizes at
 * parse time; this re-check means a buggy or hostile peer cannot put terminal escapes in a phone's UI.
 */
export function displayText(max: number, min = 0) {
  return v.pipe(
    v.string(),
    v.check((s) => {
      if (s.length > max * 2) return false;
      const n = codePointCount(s);
      return n >= min && n <= max && !DISPLAY_FORBIDDEN.test(s);
    }, `R-FIELD-6: display text must be ${min}–${max} code points without control or formatting characters`),
  );
}

/** R-FIELD-7: raw text (argv entries) is well-formed UTF-16 without NUL, at most `max` code points. */
export function rawText(max: number) {
  return v.pipe(
    v.string(),
    v.check((s) => {
      if (s.length > max * 2) return false;
      const n = codePointCount(s);
      return n >= 0 && n <= max && !s.includes('\u0000');
    }, `R-FIELD-7: text must be well-formed, without NUL, at most ${max} code points`),
  );
}

/** R-FIELD-8: short ASCII tokens (capabilities). */
export const capability = v.pipe(
  v.string(),
  v.check(
    (s) => s.length <= MAX_CAPABILITY_CHARS && /^[a-z0-9][a-z0-9.-]*$/.test(s),
    'R-FIELD-8: capability must be 1–32 characters of [a-z0-9.-]',
  ),
);

/** R-FIELD-9: version strings are 1–32 printable ASCII characters. */
export const version = v.pipe(
  v.string(),
  v.check(
    (s) => s.length >= 1 && s.length <= MAX_VERSION_CHARS && /^[\x21-\x7e]+$/.test(s),
    'R-FIELD-9: version must be 1–32 printable ASCII characters',
  ),
);

/** R-FIELD-10: base64url (no padding) of exactly `bytes` bytes. */
export function base64urlBytes(bytes: number) {
  const chars = Math.ceil((bytes * 4) / 3);
  // The last character of a non-multiple-of-3 length may only carry the bits that exist (canonical encoding).
  const tail = bytes % 3 === 1 ? '[AQgw]' : bytes % 3 === 2 ? '[AEIMQUYcgkosw048]' : '';
  const body = tail ? chars - 1 : chars;
  const pattern = new RegExp(`^[A-Za-z0-9_-]{${body}}${tail}$`);
  return v.pipe(
    v.string(),
    v.check(
      (s) => s.length === chars && pattern.test(s),
      `R-FIELD-10: must be base64url of exactly ${bytes} bytes`,
    ),
  );
}

/** R-FIELD-11: https URL, or http only for a loopback host (development); no whitespace or fragment. */
export function relayUrl(max: number) {
  const pattern =
    /^(https:\/\/[^\s/?#@]+|http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?)(\/[^\s?#]*)?$/;
  return v.pipe(
    v.string(),
    v.check(
      (s) => s.length <= max && pattern.test(s),
      'R-FIELD-11: relay url must be https (or loopback http)',
    ),
  );
}
