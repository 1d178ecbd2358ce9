/**
 * Plain-text bounding for everything that comes out of a PTY (DESIGN §2: "Everything that comes out of a PTY
 * is untrusted text"; alert-spec "Text And Security" and "Push notifications").
 *
 * One pass over the input, stopping as soon as the cap is reached, so a 1 MB string costs what its kept prefix
 * costs. The rules, in order of precedence:
 *
 * - Removed outright (invisible, or able to reorder / hide what the reader sees):
 *   C0 controls other than whitespace, DEL, C1 (U+0080–U+009F), the soft hyphen U+00AD (invisible unless a
 *   line breaks there, so it can split a word a reader would otherwise recognise), bidi controls (U+061C ALM,
 *   U+200E/F, U+202A–E, U+2066–9), zero-width and format characters (U+200B–D incl. ZWJ, U+2060–U+206F,
 *   U+FEFF, U+180E, U+FFF9–U+FFFB interlinear annotation) and the Unicode tag block U+E0000–U+E007F (invisible
 *   "ASCII smuggling"). Removing ZWJ means a ZWJ emoji sequence shows as its component emoji: acceptable for
 *   a notification, and it closes a channel for hiding text.
 * - Whitespace: TAB, LF, VT, FF, CR, space and the Unicode space separators (U+00A0, U+1680, U+2000–U+200A,
 *   U+2028/9, U+202F, U+205F, U+3000) collapse to one U+0020; leading and trailing whitespace is dropped.
 * - A lone surrogate becomes U+FFFD (what a UTF-8 decoder does with a bad sequence), so output is always
 *   well-formed UTF-16.
 * - The cap counts code points and never splits a surrogate pair. It may separate a base character from
 *   combining marks that fall past the cap: those marks are dropped, never left dangling at the start.
 */

/** Replacement for a lone surrogate (U+FFFD REPLACEMENT CHARACTER). */
const REPLACEMENT = '\uFFFD';

/** The ellipsis `boundedPushText` ends a cut with (U+2026, one code point). */
export const TEXT_ELLIPSIS = '\u2026';

/**
 * Cap for push titles and bodies (alert-spec "Push notifications": the cap counts code points). 120 code
 * points is at most 480 UTF-8 bytes, far inside the sealed envelope's 3993-byte plaintext budget (DESIGN
 * §4.4) with title, body and tag together, and longer than any lock screen shows.
 */
export const PUSH_TEXT_MAX_CODE_POINTS = 120;

/** What a push shows when the session's label sanitizes to nothing (alert-spec: "fallback terminal"). */
export const PUSH_TEXT_FALLBACK = 'terminal';

/** Largest cap accepted: anything above is a caller bug, not a bound. */
export const TEXT_MAX_CODE_POINTS_LIMIT = 1 << 20;

enum Kind {
  Keep = 0,
  Remove = 1,
  Space = 2,
}

/** Classifies one BMP code unit that is not a surrogate (surrogates are handled by the caller). */
function classify(c: number): Kind {
  if (c < 0x20) return c >= 0x09 && c <= 0x0d ? Kind.Space : Kind.Remove;
  if (c < 0x7f) return c === 0x20 ? Kind.Space : Kind.Keep;
  if (c <= 0x9f) return Kind.Remove; // DEL and C1
  if (c === 0xa0) return Kind.Space;
  if (c === 0xad || c === 0x061c || c === 0x180e) return Kind.Remove;
  if (c === 0x1680) return Kind.Space;
  if (c >= 0x2000 && c <= 0x206f) {
    if (c <= 0x200a || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f) return Kind.Space;
    if (c <= 0x200f || (c >= 0x202a && c <= 0x202e) || c >= 0x2060) return Kind.Remove;
    return Kind.Keep;
  }
  if (c === 0x3000) return Kind.Space;
  if (c === 0xfeff || (c >= 0xfff9 && c <= 0xfffb)) return Kind.Remove;
  return Kind.Keep;
}

function checkArguments(input: unknown, maxCodePoints: unknown, fn: string): asserts input is string {
  if (typeof input !== 'string') throw new TypeError(`${fn}: input must be a string`);
  if (typeof maxCodePoints !== 'number' || !Number.isInteger(maxCodePoints)) {
    throw new TypeError(`${fn}: maxCodePoints must be an integer`);
  }
  if (maxCodePoints < 0 || maxCodePoints > TEXT_MAX_CODE_POINTS_LIMIT) {
    throw new RangeError(`${fn}: maxCodePoints must be between 0 and ${TEXT_MAX_CODE_POINTS_LIMIT}`);
  }
}

interface Scan {
  readonly text: string;
  /** True when kept content remained past the cap (the text was cut). */
  readonly cut: boolean;
}

/**
 * The common case, checked without building a string: printable ASCII with single inner spaces, within the
 * cap, is already its own sanitized form.
 */
function isPlainAscii(input: string, maxCodePoints: number): boolean {
  const n = input.length;
  if (n > maxCodePoints) return false;
  for (let i = 0; i < n; i++) {
    const c = input.charCodeAt(i);
    if (c > 0x20 && c < 0x7f) continue;
    if (c === 0x20 && i > 0 && i < n - 1 && input.charCodeAt(i - 1) !== 0x20) continue;
    return false;
  }
  return true;
}

/** The one pass behind both exports: sanitize, collapse, trim and cap, reporting whether it cut. */
function scan(input: string, maxCodePoints: number): Scan {
  if (isPlainAscii(input, maxCodePoints)) return { text: input, cut: false };
  let out = '';
  let count = 0;
  let pendingSpace = false;
  const n = input.length;
  let i = 0;
  while (i < n) {
    const c = input.charCodeAt(i);
    let unit: string;
    let width = 1;
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? input.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const cp = ((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
        width = 2;
        if (cp >= 0xe0000 && cp <= 0xe007f) {
          i += 2;
          continue; // tag characters: removed
        }
        unit = input.slice(i, i + 2);
      } else {
        unit = REPLACEMENT;
      }
    } else {
      const kind = classify(c);
      if (kind === Kind.Remove) {
        i++;
        continue;
      }
      if (kind === Kind.Space) {
        pendingSpace = count > 0; // leading whitespace never becomes a space
        i++;
        continue;
      }
      unit = input[i] as string;
    }
    // A pending space is only written when a kept character fits after it, so output never ends in one.
    const needed = pendingSpace ? 2 : 1;
    if (count + needed > maxCodePoints) return { text: out, cut: true };
    if (pendingSpace) {
      out += ' ';
      count++;
      pendingSpace = false;
    }
    out += unit;
    count++;
    i += width;
  }
  return { text: out, cut: false };
}

/**
 * Sanitizes untrusted terminal text to at most `maxCodePoints` code points (rules in the module comment).
 * Idempotent: `sanitizeText(sanitizeText(s, n), n) === sanitizeText(s, n)`.
 *
 * @throws TypeError when `input` is not a string or `maxCodePoints` is not an integer.
 * @throws RangeError when `maxCodePoints` is negative or above `TEXT_MAX_CODE_POINTS_LIMIT`.
 */
export function sanitizeText(input: string, maxCodePoints: number): string {
  checkArguments(input, maxCodePoints, 'sanitizeText');
  return scan(input, maxCodePoints).text;
}

/**
 * Sanitizes text for a push title or body: `sanitizeText`'s rules, and a cut ends with `…` inside the cap, so
 * the reader sees that text is missing. Idempotent, so the service worker's second pass (DESIGN §4.4 step 5)
 * leaves the Burrow's output unchanged. May return ''; `toPushText` adds the fallback.
 *
 * @throws TypeError / RangeError as `sanitizeText`; RangeError also when `maxCodePoints` is 0 (no room for
 *   any text a reader could act on).
 */
export function boundedPushText(input: string, maxCodePoints: number = PUSH_TEXT_MAX_CODE_POINTS): string {
  checkArguments(input, maxCodePoints, 'boundedPushText');
  if (maxCodePoints < 1) throw new RangeError('boundedPushText: maxCodePoints must be at least 1');
  const full = scan(input, maxCodePoints);
  if (!full.cut) return full.text;
  // Re-scan one shorter to make room for the ellipsis; dropping a trailing space keeps it attached to a word.
  const room = scan(input, maxCodePoints - 1).text;
  return room + TEXT_ELLIPSIS;
}

/**
 * The push sink's text for a session label (alert-spec "Push notifications": toPushText is the sink's limit
 * and fallback over boundedPushText): bounded to `PUSH_TEXT_MAX_CODE_POINTS`, and `'terminal'` when nothing
 * is left.
 *
 * @throws TypeError when `label` is not a string.
 */
export function toPushText(label: string): string {
  if (typeof label !== 'string') throw new TypeError('toPushText: label must be a string');
  const bounded = boundedPushText(label, PUSH_TEXT_MAX_CODE_POINTS);
  return bounded === '' ? PUSH_TEXT_FALLBACK : bounded;
}
