/**
 * One authenticated Noise session as application frames (DESIGN §4.2 "Transport"): outgoing frames are
 * fragmented to ≤ 65519-byte plaintexts and encrypted; incoming ciphertexts are decrypted and reassembled.
 * Any NoiseError or fatal ProtocolError from here means: close the connection. The channel enforces that
 * itself — it fails closed: after one message is refused (altered, dropped-before, reordered, duplicated or
 * replayed: all show as a failed decryption, since the nonce is the message's position) every later `open` and
 * `seal` throws, so no caller can go on reading a stream the relay has tampered with (issue 8).
 */
import { NoiseError, type NoiseTransport } from '@burrow/crypto';
import { Fragmenter, ProtocolError, Reassembler } from '@burrow/protocol';

export class SecureChannel {
  readonly #fragmenter = new Fragmenter();
  readonly #reassembler = new Reassembler();
  #failed = false;

  constructor(readonly transport: NoiseTransport) {}

  /** True once a message was refused: the connection must be (or has been) closed. */
  get failed(): boolean {
    return this.#failed;
  }

  /** The Noise messages that carry `frame`, in order. */
  seal(frame: Uint8Array): Uint8Array[] {
    this.#usable();
    return this.#fragmenter.split(frame).map((p) => this.transport.encrypt(p));
  }

  /** A whole frame, or null while a fragmented one is incomplete. */
  open(ciphertext: Uint8Array): Uint8Array | null {
    this.#usable();
    try {
      return this.#reassembler.push(this.transport.decrypt(ciphertext));
    } catch (error) {
      if (error instanceof NoiseError || error instanceof ProtocolError) this.#failed = true;
      throw error;
    }
  }

  #usable(): void {
    if (this.#failed) {
      throw new NoiseError('invalid-state', 'this channel refused a message; the connection must be closed');
    }
  }
}
