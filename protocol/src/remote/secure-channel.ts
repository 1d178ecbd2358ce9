/**
 * One authenticated Noise session as application frames (DESIGN §4.2 "Transport"), shared by the Burrow and
 * the phone: outgoing frames are fragmented (R-FRAG) to plaintexts of at most one Noise message and encrypted;
 * incoming ciphertexts are decrypted and reassembled. [SPEC: R-CHAN-1]
 *
 * It fails CLOSED: after one message is refused — altered, dropped-before, reordered, duplicated or replayed,
 * which all show as a failed decryption because the nonce is the message's position, or a fragment that breaks
 * R-FRAG — every later `open` and `seal` throws, so no caller can go on reading a stream the path has tampered
 * with, even if it ignored the first error. The cipher is structural (crypto's `NoiseTransport` is one), so
 * this package stays free of the crypto package.
 */
import { ProtocolError } from './errors.js';
import { Fragmenter, Reassembler } from './fragment.js';

/** What the channel needs of a Noise transport: in-order encrypt and decrypt of one message each. */
export interface MessageCipher {
  encrypt(plaintext: Uint8Array): Uint8Array;
  decrypt(ciphertext: Uint8Array): Uint8Array;
}

export class SecureChannel<T extends MessageCipher = MessageCipher> {
  readonly #fragmenter = new Fragmenter();
  readonly #reassembler = new Reassembler();
  #failed = false;

  constructor(readonly transport: T) {}

  /** True once a message was refused: the connection must be (or has been) closed. */
  get failed(): boolean {
    return this.#failed;
  }

  /** The Noise messages that carry `frame`, in order. */
  seal(frame: Uint8Array): Uint8Array[] {
    this.#usable();
    return this.#fragmenter.split(frame).map((p) => this.transport.encrypt(p));
  }

  /**
   * A whole frame, or null while a fragmented one is incomplete. Throws what refused the message (the
   * cipher's error, e.g. NoiseError, or a fatal ProtocolError) and stays refused from then on.
   */
  open(ciphertext: Uint8Array): Uint8Array | null {
    this.#usable();
    try {
      return this.#reassembler.push(this.transport.decrypt(ciphertext));
    } catch (error) {
      this.#failed = true;
      throw error;
    }
  }

  #usable(): void {
    if (this.#failed) {
      throw new ProtocolError('R-CHAN-1', 'this channel refused a message; the connection must be closed', {
        fatal: true,
      });
    }
  }
}
