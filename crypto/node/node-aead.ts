import { createCipheriv, createDecipheriv } from 'node:crypto';
import { AEAD_TAG_BYTES, type Aead, assertAeadArguments } from '@burrow/crypto';

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
