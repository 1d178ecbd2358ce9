/**
 * The one way Burrow writes a string it did not write itself to a terminal or a log — relay error text, a
 * phone's label, a session name, title or command line, a daemon's error message: the CLI prints them through
 * it (issue 16 item 2), and so does every line of the daemon's log (daemon/logger.ts, issue 24.4: whoever
 * `tail`s the log or reads `journalctl` must not get a hostile relay's OSC 52 clipboard write or a fake
 * prompt).
 *
 * `printable` shows every control character as a visible escape instead of sending it: C0 (U+0000–U+001F,
 * ESC among them), DEL, C1 (U+0080–U+009F, which some terminals read as 8-bit CSI/OSC), and the invisible
 * characters that can make text read other than it is stored (bidi embeddings, overrides and isolates,
 * zero-width characters, line and paragraph separators, BOM) and lone surrogates. The result is one line,
 * bounded: at most `maxChars` UTF-16 units of shown text, then a count of what was left out.
 *
 * Hand-written: the escaping libraries on npm (jsesc, strip-ansi) either strip rather than show, or escape for
 * a JavaScript/JSON reader (quotes, backslashes) rather than for a person at a terminal.
 */

/** Longest shown text (UTF-16 units, before the "… (N more characters)" note) unless a caller asks for less. */
export const MAX_PRINTABLE_CHARS = 1024;
/** The largest bound a caller may ask for (a whole screen of text; anything longer is not read anyway). */
export const MAX_PRINTABLE_CHARS_LIMIT = 16_384;

const NAMED: Readonly<Record<number, string>> = { 9: '\\t', 10: '\\n', 13: '\\r' };

/** True for the code points `printable` escapes (see the module comment). */
export function isUnsafeCodePoint(cp: number): boolean {
  return (
    cp <= 0x1f ||
    (cp >= 0x7f && cp <= 0x9f) ||
    cp === 0x061c || // Arabic letter mark
    (cp >= 0x200b && cp <= 0x200f) || // zero-width space/joiners, LRM, RLM
    (cp >= 0x2028 && cp <= 0x202e) || // line/paragraph separators, bidi embeddings and overrides
    (cp >= 0x2060 && cp <= 0x2069) || // word joiner, invisible operators, bidi isolates
    cp === 0xfeff ||
    (cp >= 0xd800 && cp <= 0xdfff) // only ever seen here alone: a paired surrogate arrives as one code point
  );
}

function escapeOf(cp: number): string {
  const named = NAMED[cp];
  if (named !== undefined) return named;
  if (cp <= 0x7f) return `\\x${cp.toString(16).padStart(2, '0')}`;
  return `\\u${cp.toString(16).padStart(4, '0')}`;
}

function checkBound(maxChars: number): void {
  if (!Number.isInteger(maxChars) || maxChars < 1 || maxChars > MAX_PRINTABLE_CHARS_LIMIT)
    throw new RangeError(`maxChars must be an integer 1…${MAX_PRINTABLE_CHARS_LIMIT}`);
}

/**
 * `text` as one safe, bounded line for a terminal: controls and invisible characters shown as `\n`, `\x1b`,
 * `\x07`, `\u009b`, `\u202e`…; longer than `maxChars` UTF-16 units, cut there (never inside an escape or a
 * surrogate pair) and followed by "… (N more characters)".
 */
export function printable(text: string, maxChars: number = MAX_PRINTABLE_CHARS): string {
  if (typeof text !== 'string') throw new TypeError('printable takes a string');
  checkBound(maxChars);
  let out = '';
  let left = 0;
  for (const ch of text) {
    if (left > 0) {
      left++;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    const piece = isUnsafeCodePoint(cp) ? escapeOf(cp) : ch;
    if (out.length + piece.length > maxChars) {
      left = 1;
      continue;
    }
    out += piece;
  }
  return left === 0 ? out : `${out}… (${left} more character${left === 1 ? '' : 's'})`;
}

/**
 * Untrusted text that may have several lines (a daemon's error message): each line through `printable`, the
 * whole bounded by `maxChars` like one line. Only `\n` separates lines; `\r` and every other control is shown.
 */
export function printableLines(text: string, maxChars: number = MAX_PRINTABLE_CHARS): string {
  if (typeof text !== 'string') throw new TypeError('printableLines takes a string');
  checkBound(maxChars);
  const lines: string[] = [];
  let budget = maxChars;
  const all = text.split('\n');
  for (let i = 0; i < all.length; i++) {
    if (budget <= 0) {
      lines.push(`… (${all.length - i} more line${all.length - i === 1 ? '' : 's'})`);
      break;
    }
    const line = printable(all[i]!, budget);
    lines.push(line);
    budget -= line.length + 1;
  }
  return lines.join('\n');
}

/**
 * `JSON.stringify` for `--json` output that is also safe on a terminal: JSON already escapes C0 and lone
 * surrogates; this escapes the rest of what `printable` shows (C1, DEL, bidi and invisible characters) as
 * `\uXXXX`, which JSON readers decode to the same string.
 */
export function printableJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('printableJson takes a JSON value');
  let out = '';
  for (const ch of json) {
    const cp = ch.codePointAt(0)!;
    out += cp > 0x1f && isUnsafeCodePoint(cp) ? `\\u${cp.toString(16).padStart(4, '0')}` : ch;
  }
  return out;
}
