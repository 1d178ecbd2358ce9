/**
 * Byte-level decoders shared by the OSC handlers: UTF-8 (non-fatal, so bad bytes become U+FFFD instead of
 * throwing), RFC 3986 percent-decoding (OSC 7 file URLs, fish 4's `cmdline_url`), VS Code's 633 value
 * escaping, and decimal fields.
 */
import { NUMBER_MAX_DIGITS } from './limits.js';

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Below this length an ASCII payload is decoded by hand: cheaper than a call into TextDecoder. */
const SHORT_ASCII_MAX = 64;

/** Decodes UTF-8 bytes; invalid sequences become U+FFFD. */
export function decodeUtf8(bytes: Uint8Array): string {
  if (bytes.length <= SHORT_ASCII_MAX) {
    let text = '';
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (b >= 0x80) return utf8.decode(bytes);
      text += String.fromCharCode(b);
    }
    return text;
  }
  return utf8.decode(bytes);
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const lower = b | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** Percent-decodes `%HH` escapes to raw bytes; a `%` not followed by two hex digits stays literal. */
export function percentDecode(bytes: Uint8Array): Uint8Array {
  if (bytes.indexOf(0x25) < 0) return bytes;
  const out = new Uint8Array(bytes.length);
  let o = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x25 && i + 2 < bytes.length) {
      const hi = hexValue(bytes[i + 1]!);
      const lo = hexValue(bytes[i + 2]!);
      if (hi >= 0 && lo >= 0) {
        out[o++] = (hi << 4) | lo;
        i += 2;
        continue;
      }
    }
    out[o++] = b;
  }
  return out.subarray(0, o);
}

/**
 * Undoes VS Code's escaping of OSC 633 E and P values (shellIntegration-bash.sh `__vsc_escape_value`, which
 * works byte by byte under LC_ALL=C): `\\` is a backslash and `\xHH` is the byte HH (it escapes `;` as
 * `\x3b` and control bytes as `\xHH`). Any other backslash stays literal, as VS Code's own decoder leaves it.
 */
export function unescapeVscodeValue(bytes: Uint8Array): Uint8Array {
  if (bytes.indexOf(0x5c) < 0) return bytes;
  const out = new Uint8Array(bytes.length);
  let o = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x5c && i + 1 < bytes.length) {
      const next = bytes[i + 1]!;
      if (next === 0x5c) {
        out[o++] = 0x5c;
        i += 1;
        continue;
      }
      if ((next | 0x20) === 0x78 && i + 3 < bytes.length) {
        const hi = hexValue(bytes[i + 2]!);
        const lo = hexValue(bytes[i + 3]!);
        if (hi >= 0 && lo >= 0) {
          out[o++] = (hi << 4) | lo;
          i += 3;
          continue;
        }
      }
    }
    out[o++] = b;
  }
  return out.subarray(0, o);
}

/** Reads an unsigned decimal (at most `NUMBER_MAX_DIGITS` digits, nothing else) or returns -1. */
export function parseDecimal(bytes: Uint8Array): number {
  if (bytes.length === 0 || bytes.length > NUMBER_MAX_DIGITS) return -1;
  let value = 0;
  for (let i = 0; i < bytes.length; i++) {
    const d = bytes[i]! - 0x30;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/** Splits at every `;` (0x3B) into views of the same buffer. */
export function splitFields(bytes: Uint8Array, maxFields: number): Uint8Array[] {
  const fields: Uint8Array[] = [];
  let start = 0;
  while (fields.length < maxFields - 1) {
    const semi = bytes.indexOf(0x3b, start);
    if (semi < 0) break;
    fields.push(bytes.subarray(start, semi));
    start = semi + 1;
  }
  fields.push(bytes.subarray(start));
  return fields;
}

/** True when `bytes` starts with the ASCII `prefix`. */
export function startsWithAscii(bytes: Uint8Array, prefix: string): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix.charCodeAt(i)) return false;
  return true;
}
