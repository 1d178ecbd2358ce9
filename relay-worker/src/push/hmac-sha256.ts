/**
 * HMAC-SHA-256 and the one-block HKDF (RFC 5869) that RFC 8188 and RFC 8291 use, on WebCrypto.
 * Every output here is at most 32 bytes, so HKDF-Expand is a single HMAC over info ‖ 0x01 — the counter byte
 * appended exactly once (the "double 0x01" bug appends it both to the info and again in Expand).
 */
import { concat, own } from './bytes.js';

export const SHA256_BYTES = 32;

export async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const k = await crypto.subtle.importKey('raw', own(key), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return new Uint8Array(await crypto.subtle.sign('HMAC', k, own(data)));
}

/** HKDF-Extract(salt, ikm) = HMAC(salt, ikm). */
export const hkdfExtract = (salt: Uint8Array, ikm: Uint8Array) => hmacSha256(salt, ikm);

/** HKDF-Expand(prk, info, length) for length ≤ 32: the first `length` bytes of HMAC(prk, info ‖ 0x01). */
export async function hkdfExpand(
  prk: Uint8Array,
  info: Uint8Array,
  length: number,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!Number.isInteger(length) || length < 1 || length > SHA256_BYTES) {
    throw new RangeError(`hkdfExpand: length must be 1..${SHA256_BYTES}`);
  }
  return (await hmacSha256(prk, concat(info, Uint8Array.of(0x01)))).slice(0, length);
}
