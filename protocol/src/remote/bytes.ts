/** Byte-level helpers for the binary frames: strict UTF-8 and big-endian integers. [SPEC: R-FRAME-*] */
import { MAX_OFFSET } from './limits.js';

const encoder = new TextEncoder();
// fatal: invalid UTF-8 is an error, never U+FFFD; ignoreBOM: a leading U+FEFF is data, so decode∘encode is identity.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// A high surrogate not followed by a low one, or a low one not preceded by a high one (no lookbehind, so it
// compiles on every browser Pocket supports).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/;

/** True when the string can round-trip through UTF-8 (no lone surrogate). */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

export function utf8Encode(s: string): Uint8Array {
  return encoder.encode(s);
}

/** Decodes UTF-8, returning null on any invalid sequence. */
export function utf8Decode(bytes: Uint8Array): string | null {
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

export function writeU32(out: Uint8Array, at: number, value: number): void {
  out[at] = value >>> 24;
  out[at + 1] = (value >>> 16) & 0xff;
  out[at + 2] = (value >>> 8) & 0xff;
  out[at + 3] = value & 0xff;
}

export function readU32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

/** Writes an offset (integer 0 … 2^53−1) as 8 bytes big-endian; the top 11 bits are always zero. */
export function writeOffset(out: Uint8Array, at: number, value: number): void {
  writeU32(out, at, Math.floor(value / 0x1_0000_0000));
  writeU32(out, at + 4, value % 0x1_0000_0000);
}

/** Reads an 8-byte big-endian offset, or returns null if it is 2^53 or more (R-FRAME-4). */
export function readOffset(bytes: Uint8Array, at: number): number | null {
  const high = readU32(bytes, at);
  // 2^53 − 1 = 0x001f_ffff_ffff_ffff: any high word up to 0x1f_ffff gives a safe integer.
  if (high > Math.floor(MAX_OFFSET / 0x1_0000_0000)) return null;
  return high * 0x1_0000_0000 + readU32(bytes, at + 4);
}
