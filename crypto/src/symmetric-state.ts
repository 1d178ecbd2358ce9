import type { Aead } from './aead.js';
import { HASH_BYTES, hash, hkdf } from './blake2s-hkdf.js';
import { assertBytes, concatBytes, utf8 } from './bytes.js';
import { CipherState } from './cipher-state.js';

/**
 * SymmetricState (rev 34 §5.2): the chaining key ck, the handshake hash h, and a CipherState. Every
 * operation is named after the spec's function.
 */
export class SymmetricState {
  #ck: Uint8Array;
  #h: Uint8Array;
  readonly cipher: CipherState;

  /**
   * InitializeSymmetric(protocol_name): a name of at most HASHLEN bytes is copied and zero-padded, NOT
   * hashed; in particular a name of exactly 32 bytes is used as is (§5.2).
   */
  constructor(protocolName: string, aead: Aead) {
    const name = utf8(protocolName);
    if (name.length <= HASH_BYTES) {
      this.#h = new Uint8Array(HASH_BYTES);
      this.#h.set(name);
    } else {
      this.#h = hash(name);
    }
    this.#ck = Uint8Array.from(this.#h);
    this.cipher = new CipherState(aead);
  }

  get handshakeHash(): Uint8Array {
    return Uint8Array.from(this.#h);
  }

  get chainingKey(): Uint8Array {
    return Uint8Array.from(this.#ck);
  }

  /** MixKey(input_key_material): ck, temp_k = HKDF(ck, ikm, 2). (HASHLEN = 32, so no truncation.) */
  mixKey(inputKeyMaterial: Uint8Array): void {
    const [ck, tempK] = hkdf(this.#ck, inputKeyMaterial, 2);
    this.#ck = ck;
    this.cipher.initializeKey(tempK);
  }

  /** MixHash(data): h = HASH(h || data). */
  mixHash(data: Uint8Array): void {
    this.#h = hash(concatBytes(this.#h, data));
  }

  /** MixKeyAndHash(input_key_material): the psk token's operation (§5.2, §9). */
  mixKeyAndHash(inputKeyMaterial: Uint8Array): void {
    const [ck, tempH, tempK] = hkdf(this.#ck, inputKeyMaterial, 3);
    this.#ck = ck;
    this.mixHash(tempH);
    this.cipher.initializeKey(tempK);
  }

  /** EncryptAndHash(plaintext): runs for an EMPTY plaintext too (then it emits just the tag once keyed). */
  encryptAndHash(plaintext: Uint8Array): Uint8Array {
    const ciphertext = this.cipher.encryptWithAd(this.#h, plaintext);
    this.mixHash(ciphertext);
    return ciphertext;
  }

  /** DecryptAndHash(ciphertext): h is updated only if decryption succeeded (the CipherState throws first). */
  decryptAndHash(ciphertext: Uint8Array): Uint8Array {
    const plaintext = this.cipher.decryptWithAd(this.#h, ciphertext);
    this.mixHash(ciphertext);
    return plaintext;
  }

  /** Split(): two CipherStates keyed from HKDF(ck, zerolen, 2) — initiator→responder first. */
  split(): [CipherState, CipherState] {
    const [k1, k2] = hkdf(this.#ck, new Uint8Array(0), 2);
    const c1 = new CipherState(this.cipher.aead);
    const c2 = new CipherState(this.cipher.aead);
    c1.initializeKey(k1);
    c2.initializeKey(k2);
    return [c1, c2];
  }
}

export function assertPsk(psk: Uint8Array): void {
  // Noise psks are exactly 32 bytes (rev 34 §9.1).
  assertBytes('psk', psk, 32);
}
