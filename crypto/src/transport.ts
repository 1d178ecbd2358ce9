import { AEAD_TAG_BYTES } from './aead.js';
import { assertBytes } from './bytes.js';
import type { CipherState } from './cipher-state.js';
import { NoiseError } from './noise-error.js';

/** Every Noise message, handshake or transport, is at most 65535 bytes (rev 34 §3). */
export const NOISE_MAX_MESSAGE = 65535;
/** …so a transport plaintext is at most 65535 − 16 (the ChaChaPoly tag) = 65519 bytes. */
export const NOISE_MAX_PLAINTEXT = NOISE_MAX_MESSAGE - AEAD_TAG_BYTES;

/**
 * The two CipherStates that Split() returns (rev 34 §5.2), oriented for one side: `encrypt` uses the
 * sending one, `decrypt` the receiving one, both with empty associated data (§5.3: transport messages are
 * EncryptWithAd(zerolen, …)). Counter rules are the CipherState's: little-endian nonce, no advance on a
 * failed decryption, 2^64−1 refused. After a one-way handshake (§7.4) the responder cannot send and the
 * initiator cannot receive.
 */
export class NoiseTransport {
  readonly #send: CipherState | null;
  readonly #receive: CipherState | null;
  readonly #handshakeHash: Uint8Array;

  constructor(send: CipherState | null, receive: CipherState | null, handshakeHash: Uint8Array) {
    assertBytes('handshakeHash', handshakeHash, 32);
    if (send !== null && !send.hasKey()) throw new TypeError('send CipherState has no key');
    if (receive !== null && !receive.hasKey()) throw new TypeError('receive CipherState has no key');
    this.#send = send;
    this.#receive = receive;
    this.#handshakeHash = Uint8Array.from(handshakeHash);
  }

  /** h after the last handshake message: a channel binding (§11.2), and the source of the pairing code. */
  get handshakeHash(): Uint8Array {
    return Uint8Array.from(this.#handshakeHash);
  }

  /** Counter of the next message sent / expected (for diagnostics and tests; not secret). */
  get sendNonce(): bigint {
    return this.#sender().nonce;
  }

  get receiveNonce(): bigint {
    return this.#receiver().nonce;
  }

  /** Encrypts one message. A plaintext over NOISE_MAX_PLAINTEXT is the caller's bug: `RangeError`. */
  encrypt(plaintext: Uint8Array): Uint8Array {
    assertBytes('plaintext', plaintext);
    if (plaintext.length > NOISE_MAX_PLAINTEXT) {
      throw new RangeError(`Noise transport plaintext is limited to ${NOISE_MAX_PLAINTEXT} bytes`);
    }
    return this.#sender().encryptWithAd(new Uint8Array(0), plaintext);
  }

  /** Decrypts one message from the wire; anything wrong with it is a `NoiseError`. */
  decrypt(ciphertext: Uint8Array): Uint8Array {
    assertBytes('ciphertext', ciphertext);
    if (ciphertext.length > NOISE_MAX_MESSAGE) {
      throw new NoiseError('message-too-large', `Noise messages are limited to ${NOISE_MAX_MESSAGE} bytes`);
    }
    if (ciphertext.length < AEAD_TAG_BYTES) {
      throw new NoiseError('decrypt-failed', 'Noise transport message is shorter than its tag');
    }
    return this.#receiver().decryptWithAd(new Uint8Array(0), ciphertext);
  }

  /** Rekey (§11.3) of the sending direction; the peer must call `rekeyReceive()` at the same message. */
  rekeySend(): void {
    this.#sender().rekey();
  }

  rekeyReceive(): void {
    this.#receiver().rekey();
  }

  #sender(): CipherState {
    if (this.#send === null)
      throw new NoiseError('invalid-state', 'this side of a one-way handshake cannot send');
    return this.#send;
  }

  #receiver(): CipherState {
    if (this.#receive === null) {
      throw new NoiseError('invalid-state', 'this side of a one-way handshake cannot receive');
    }
    return this.#receive;
  }
}
