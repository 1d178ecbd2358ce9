/**
 * Session ids and names. Ids are short CSPRNG strings (never Math.random: an id is what a viewer names to type
 * into a session); names are user labels, bounded and stripped of anything that could drive a terminal when a
 * listing is printed.
 */
import { randomBytes } from 'node:crypto';

/** Lower-case letters and digits without look-alikes (no 0/o, 1/l/i). */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const SESSION_ID_LENGTH = 8;
export const SESSION_ID_PATTERN = /^[a-hjkmnp-z2-9]{8}$/;
/** Longest session name, in code points. */
export const MAX_SESSION_NAME = 64;

/** A fresh id: 8 symbols of a 31-letter alphabet ≈ 39.6 bits, unbiased (rejection sampling). */
export function newSessionId(): string {
  let out = '';
  while (out.length < SESSION_ID_LENGTH) {
    for (const byte of randomBytes(16)) {
      // 248 = 8 × 31: bytes at or above it would bias the low letters.
      if (byte < 248 && out.length < SESSION_ID_LENGTH) out += ALPHABET[byte % ALPHABET.length];
    }
  }
  return out;
}

// C0, DEL, C1, and bidi / zero-width formatting characters (DESIGN §2 "Sanitize").
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu;

/**
 * A safe label from user input: unsafe characters removed, whitespace collapsed, trimmed, at most
 * MAX_SESSION_NAME code points. TypeError for a non-string, RangeError if nothing printable remains.
 */
export function sanitizeSessionName(raw: unknown): string {
  if (typeof raw !== 'string') throw new TypeError('session name must be a string');
  const cleaned = raw.replace(UNSAFE, ' ').replace(/\s+/gu, ' ').trim();
  const bounded = Array.from(cleaned).slice(0, MAX_SESSION_NAME).join('').trim();
  if (bounded === '') throw new RangeError('session name is empty after removing control characters');
  return bounded;
}
