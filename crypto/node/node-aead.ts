import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { Aead } from '@burrow/crypto';

// Only the interface TYPE comes from @burrow/crypto, so this module has no runtime dependency on the
// package's build output; the constants and checks below mirror src/aead.ts (the shared vector suites and
// argument tests hold both to the same behaviour).
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const AEAD_TAG_BYTES = 16;

function assertAeadArguments(key: Uint8Array, nonce: Uint8Array, ad: Uint8Array, data: Uint8Array): void {
  for (const [name, value] of [
    ['key', key],
    ['nonce', nonce],
    ['ad', ad],
    ['data', data],
  ] as const) {
    if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  }
  if (key.length !== KEY_BYTES) throw new RangeError(`key must be ${KEY_BYTES} bytes, got ${key.length}`);
  if (nonce.length !== NONCE_BYTES)
    throw new RangeError(`nonce must be ${NONCE_BYTES} bytes, got ${nonce.length}`);
}

/**
 * The same AEAD interface on Node's native (OpenSSL) ChaCha20-Poly1305, for the daemon's hot path. It must
 * agree byte for byte with the @noble/ciphers default: the crypto vector suites run once per backend.
 * Authentication failure returns `null` (the interface's contract); OpenSSL reports it by throwing from
 * `final()`.
 */
export const nodeAead: Aead = {
  name: 'node',
  encrypt(key, nonce, ad, plaintext) {
    assertAeadArguments(key, nonce, ad, plaintext);
    const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: AEAD_TAG_BYTES });
    cipher.setAAD(ad, { plaintextLength: plaintext.length });
    const body = cipher.update(plaintext);
    const tail = cipher.final();
    const tag = cipher.getAuthTag();
    const out = new Uint8Array(body.length + tail.length + tag.length);
    out.set(body, 0);
    out.set(tail, body.length);
    out.set(tag, body.length + tail.length);
    return out;
  },
  decrypt(key, nonce, ad, ciphertext) {
    assertAeadArguments(key, nonce, ad, ciphertext);
    if (ciphertext.length < AEAD_TAG_BYTES) return null;
    const bodyLength = ciphertext.length - AEAD_TAG_BYTES;
    const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: AEAD_TAG_BYTES });
    decipher.setAuthTag(ciphertext.subarray(bodyLength));
    decipher.setAAD(ad, { plaintextLength: bodyLength });
    const body = decipher.update(ciphertext.subarray(0, bodyLength));
    try {
      const tail = decipher.final();
      if (tail.length === 0) return new Uint8Array(body.buffer, body.byteOffset, body.length);
      const out = new Uint8Array(body.length + tail.length);
      out.set(body, 0);
      out.set(tail, body.length);
      return out;
    } catch {
      // Unsupported-state / authentication failure from OpenSSL; the arguments were checked above.
      return null;
    }
  },
};
