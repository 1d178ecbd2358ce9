import { blake2s } from '@noble/hashes/blake2.js';
import { assertBytes, concatBytes, utf8 } from './bytes.js';

/** Digits of the pairing confirmation code both screens show (DESIGN §4.2). */
export const CONFIRMATION_CODE_DIGITS = 6;

/** Domain separation: this hash of h is used for nothing else. */
const CONFIRMATION_CODE_LABEL = 'burrow pairing confirmation code v1';
const MODULUS = 10n ** BigInt(CONFIRMATION_CODE_DIGITS);

/**
 * The short code derived from the pairing handshake hash h (a channel binding, Noise rev 34 §11.2): equal
 * codes on both screens mean both ended up with the same h, so no one sat in the middle.
 * code = u64be(BLAKE2s(label ‖ 0x00 ‖ h)[0..8]) mod 10^6, zero-padded to 6 digits. The modulo bias is
 * (2^64 mod 10^6) / 2^64 < 10^-13 per value: nothing an attacker can use.
 */
export function confirmationCode(handshakeHash: Uint8Array): string {
  assertBytes('handshakeHash', handshakeHash, 32);
  const digest = blake2s(concatBytes(utf8(CONFIRMATION_CODE_LABEL), Uint8Array.of(0), handshakeHash));
  const value = new DataView(digest.buffer, digest.byteOffset, 8).getBigUint64(0, false);
  return (value % MODULUS).toString().padStart(CONFIRMATION_CODE_DIGITS, '0');
}
