/**
 * One authenticated Noise session as application frames (DESIGN §4.2 "Transport"): outgoing frames are
 * fragmented to ≤ 65519-byte plaintexts and encrypted; incoming ciphertexts are decrypted and reassembled.
 * Any NoiseError or fatal ProtocolError from here means: close the connection.
 */
import type { NoiseTransport } from '@burrow/crypto';
import { Fragmenter, Reassembler } from '@burrow/protocol';

export class SecureChannel {
  readonly #fragmenter = new Fragmenter();
  readonly #reassembler = new Reassembler();

  constructor(readonly transport: NoiseTransport) {}

  /** The Noise messages that carry `frame`, in order. */
  seal(frame: Uint8Array): Uint8Array[] {
    return this.#fragmenter.split(frame).map((p) => this.transport.encrypt(p));
  }

  /** A whole frame, or null while a fragmented one is incomplete. */
  open(ciphertext: Uint8Array): Uint8Array | null {
    return this.#reassembler.push(this.transport.decrypt(ciphertext));
  }
}
