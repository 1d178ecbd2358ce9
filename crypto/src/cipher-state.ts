import { AEAD_KEY_BYTES, AEAD_NONCE_BYTES, type Aead } from './aead.js';
import { assertBytes } from './bytes.js';
import { NoiseError } from './noise-error.js';

/** 2^64−1: reserved, never used to encrypt a message (rev 34 §5.1); only REKEY uses it (§4.2, §11.3). */
export const NOISE_MAX_NONCE = 0xffff_ffff_ffff_ffffn;

const ZEROS_32 = new Uint8Array(32);
const EMPTY = new Uint8Array(0);

/**
 * The ChaChaPoly nonce (rev 34 §12.3): 32 bits of zeros followed by the 64-bit counter, LITTLE-endian.
 * (A big-endian encoding agrees for n = 0 and only diverges from the second message, hence its own test.)
 */
export function encodeNonce(n: bigint): Uint8Array {
  if (n < 0n || n > NOISE_MAX_NONCE) throw new RangeError('nonce must be in [0, 2^64-1]');
  const nonce = new Uint8Array(AEAD_NONCE_BYTES);
  new DataView(nonce.buffer).setBigUint64(4, n, true);
  return nonce;
}

/**
 * CipherState (rev 34 §5.1): a key k (or none) and a 64-bit counter n. The counter advances only after a
 * successful operation, so a failed decryption leaves it where it was (§5.1 DecryptWithAd).
 */
export class CipherState {
  #key: Uint8Array | null = null;
  #nonce = 0n;

  constructor(readonly aead: Aead) {}

  /** InitializeKey(key): also resets n to 0. */
  initializeKey(key: Uint8Array | null): void {
    if (key !== null) assertBytes('key', key, AEAD_KEY_BYTES);
    this.#key = key === null ? null : Uint8Array.from(key);
    this.#nonce = 0n;
  }

  hasKey(): boolean {
    return this.#key !== null;
  }

  get nonce(): bigint {
    return this.#nonce;
  }

  /** SetNonce(nonce) (§5.1), for tests and out-of-order transports; plain callers never need it. */
  setNonce(nonce: bigint): void {
    if (typeof nonce !== 'bigint' || nonce < 0n || nonce > NOISE_MAX_NONCE) {
      throw new RangeError('nonce must be a bigint in [0, 2^64-1]');
    }
    this.#nonce = nonce;
  }

  /** EncryptWithAd(ad, plaintext): the plaintext itself if there is no key yet. */
  encryptWithAd(ad: Uint8Array, plaintext: Uint8Array): Uint8Array {
    if (this.#key === null) return Uint8Array.from(plaintext);
    this.#assertNonceUsable();
    const ciphertext = this.aead.encrypt(this.#key, encodeNonce(this.#nonce), ad, plaintext);
    this.#nonce += 1n;
    return ciphertext;
  }

  /** DecryptWithAd(ad, ciphertext): throws `NoiseError('decrypt-failed')` and leaves n unchanged on failure. */
  decryptWithAd(ad: Uint8Array, ciphertext: Uint8Array): Uint8Array {
    if (this.#key === null) return Uint8Array.from(ciphertext);
    this.#assertNonceUsable();
    const plaintext = this.aead.decrypt(this.#key, encodeNonce(this.#nonce), ad, ciphertext);
    if (plaintext === null) throw new NoiseError('decrypt-failed', 'Noise message failed authentication');
    this.#nonce += 1n;
    return plaintext;
  }

  /**
   * Rekey() (§4.2, §11.3): k = first 32 bytes of ENCRYPT(k, 2^64−1, zerolen, zeros[32]). The counter is
   * kept, so both sides must rekey at the same message boundary of this direction.
   */
  rekey(): void {
    if (this.#key === null) throw new NoiseError('invalid-state', 'cannot rekey a CipherState without a key');
    const next = this.aead.encrypt(this.#key, encodeNonce(NOISE_MAX_NONCE), EMPTY, ZEROS_32).subarray(0, 32);
    this.#key = Uint8Array.from(next);
  }

  #assertNonceUsable(): void {
    if (this.#nonce >= NOISE_MAX_NONCE) {
      throw new NoiseError('nonce-exhausted', 'Noise nonce exhausted (2^64-1 is reserved)');
    }
  }
}
