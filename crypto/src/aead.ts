import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { assertBytes } from './bytes.js';

/** ChaCha20-Poly1305 as Noise uses it (rev 34 §12.3): 32-byte key, 12-byte nonce, 16-byte tag. */
export const AEAD_KEY_BYTES = 32;
export const AEAD_NONCE_BYTES = 12;
export const AEAD_TAG_BYTES = 16;

/**
 * The AEAD the Noise layer runs on. A backend is a pair of pure functions so that another implementation
 * (Node's native `chacha20-poly1305`, see `@burrow/crypto/node-aead`) can be swapped in and run against the
 * same vectors. `decrypt` returns `null` when authentication fails — the backend does not need this
 * package's error class, and the CipherState turns `null` into `NoiseError('decrypt-failed')`. Wrong key or
 * nonce lengths are programming errors: `RangeError`.
 */
export interface Aead {
  readonly name: string;
  encrypt(key: Uint8Array, nonce: Uint8Array, ad: Uint8Array, plaintext: Uint8Array): Uint8Array;
  decrypt(key: Uint8Array, nonce: Uint8Array, ad: Uint8Array, ciphertext: Uint8Array): Uint8Array | null;
}

/** Shared argument checks, so every backend rejects the same bad calls the same way. */
export function assertAeadArguments(
  key: Uint8Array,
  nonce: Uint8Array,
  ad: Uint8Array,
  data: Uint8Array,
): void {
  assertBytes('key', key, AEAD_KEY_BYTES);
  assertBytes('nonce', nonce, AEAD_NONCE_BYTES);
  assertBytes('ad', ad);
  assertBytes('data', data);
}

/** The default, runtime-neutral backend: @noble/ciphers. */
export const nobleAead: Aead = {
  name: 'noble',
  encrypt(key, nonce, ad, plaintext) {
    assertAeadArguments(key, nonce, ad, plaintext);
    return chacha20poly1305(key, nonce, ad).encrypt(plaintext);
  },
  decrypt(key, nonce, ad, ciphertext) {
    assertAeadArguments(key, nonce, ad, ciphertext);
    if (ciphertext.length < AEAD_TAG_BYTES) return null;
    try {
      return chacha20poly1305(key, nonce, ad).decrypt(ciphertext);
    } catch {
      // noble signals a bad tag by throwing a plain Error; the arguments were checked above, so this is
      // authentication failure and nothing else.
      return null;
    }
  },
};
