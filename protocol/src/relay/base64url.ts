/**
 * Unpadded base64url (RFC 4648 §5), the text form of every relay id and token. [SPEC: RL-ID-1]
 * Decoding is strict: only the URL-safe alphabet, no padding, no whitespace, and the unused low bits of the
 * last character must be zero (so each byte string has exactly one text form and ids compare as strings).
 */
import { RelayCodecError } from './relay-codec-error.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

export function encodeBase64url(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('encodeBase64url: expected a Uint8Array');
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]!;
  }
  return out;
}

/** Decodes strict unpadded base64url; throws `RelayCodecError('bad_base64url')` on anything else. */
export function decodeBase64url(text: string): Uint8Array {
  if (typeof text !== 'string') throw new TypeError('decodeBase64url: expected a string');
  if (text.length % 4 === 1) throw new RelayCodecError('bad_base64url', 'impossible base64url length');
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? LOOKUP[c]! : -1;
    if (v < 0) throw new RelayCodecError('bad_base64url', 'character outside the base64url alphabet');
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >>> bits) & 0xff;
    }
  }
  if ((acc & ((1 << bits) - 1)) !== 0)
    throw new RelayCodecError('bad_base64url', 'non-canonical final character');
  return out;
}

/** True when `text` is canonical base64url of exactly `byteLength` bytes. Never throws. */
export function isBase64urlOfLength(text: unknown, byteLength: number): text is string {
  if (typeof text !== 'string' || text.length !== Math.ceil((byteLength * 4) / 3)) return false;
  try {
    return decodeBase64url(text).length === byteLength;
  } catch {
    return false;
  }
}
