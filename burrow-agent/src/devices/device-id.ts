/**
 * A device's id is derived from its static public key (the key the ACL trusts), so an id can never point at a
 * different key: base64url of the first 12 bytes of SHA-256(publicKey), 16 characters of the session-id
 * alphabet (protocol R-FIELD-1).
 */
import { createHash } from 'node:crypto';

export const DEVICE_ID_HASH_BYTES = 12;

export function deviceIdFor(clientPublicKey: Uint8Array): string {
  if (!(clientPublicKey instanceof Uint8Array) || clientPublicKey.length !== 32) {
    throw new TypeError('client public key must be 32 bytes');
  }
  return createHash('sha256')
    .update(clientPublicKey)
    .digest()
    .subarray(0, DEVICE_ID_HASH_BYTES)
    .toString('base64url');
}
