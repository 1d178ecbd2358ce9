import { blake2s } from '@noble/hashes/blake2.js';
import { hmac } from '@noble/hashes/hmac.js';
import { assertBytes } from './bytes.js';

/** BLAKE2s HASHLEN and BLOCKLEN (rev 34 §12.6). */
export const HASH_BYTES = 32;
export const HASH_BLOCK_BYTES = 64;

/** Noise HASH(data) for BLAKE2s. */
export function hash(data: Uint8Array): Uint8Array {
  return blake2s(data);
}

/** HMAC-HASH(key, data) (rev 34 §4.3, RFC 2104), on BLAKE2s. */
export function hmacHash(key: Uint8Array, data: Uint8Array): Uint8Array {
  return hmac(blake2s, key, data);
}

/**
 * Noise HKDF(chaining_key, input_key_material, num_outputs) (rev 34 §4.3). Not RFC 5869's HKDF with info:
 * temp_key = HMAC(ck, ikm); output1 = HMAC(temp_key, 0x01); output_i = HMAC(temp_key, output_{i-1} || i).
 * Returns 2 or 3 outputs of HASHLEN bytes (the spec only ever asks for those counts).
 */
export function hkdf(
  chainingKey: Uint8Array,
  inputKeyMaterial: Uint8Array,
  numOutputs: 2,
): [Uint8Array, Uint8Array];
export function hkdf(
  chainingKey: Uint8Array,
  inputKeyMaterial: Uint8Array,
  numOutputs: 3,
): [Uint8Array, Uint8Array, Uint8Array];
export function hkdf(chainingKey: Uint8Array, inputKeyMaterial: Uint8Array, numOutputs: 2 | 3): Uint8Array[] {
  assertBytes('chainingKey', chainingKey);
  assertBytes('inputKeyMaterial', inputKeyMaterial);
  if (numOutputs !== 2 && numOutputs !== 3) throw new RangeError('hkdf numOutputs must be 2 or 3');
  const tempKey = hmacHash(chainingKey, inputKeyMaterial);
  const output1 = hmacHash(tempKey, Uint8Array.of(0x01));
  const output2 = hmacHash(tempKey, withCounter(output1, 0x02));
  if (numOutputs === 2) return [output1, output2];
  return [output1, output2, hmacHash(tempKey, withCounter(output2, 0x03))];
}

function withCounter(previous: Uint8Array, counter: number): Uint8Array {
  const data = new Uint8Array(previous.length + 1);
  data.set(previous);
  data[previous.length] = counter;
  return data;
}
