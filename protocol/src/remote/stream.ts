/**
 * One connection's message stream: fragmentation out, reassembly in, and the right codecs for the side and
 * mode. The Burrow makes a `burrowStream()` per phone connection; a phone (or the Node test client) makes a
 * `clientStream()`; pairing uses the `pair…` pair. [SPEC: §1]
 */
import type { BurrowMessage } from './burrow-messages.js';
import type { ClientMessage } from './client-messages.js';
import {
  decodeBurrowMessage,
  decodeClientMessage,
  decodePairBurrowMessage,
  decodePairClientMessage,
  encodeBurrowMessage,
  encodeClientMessage,
  encodePairBurrowMessage,
  encodePairClientMessage,
} from './codec.js';
import { Fragmenter, Reassembler } from './fragment.js';
import type { PairBurrowMessage, PairClientMessage } from './pairing-messages.js';

export class MessageStream<In, Out> {
  readonly #decode: (frame: Uint8Array) => In;
  readonly #encode: (message: Out) => Uint8Array;
  readonly #fragmenter: Fragmenter;
  readonly #reassembler = new Reassembler();

  constructor(
    decode: (frame: Uint8Array) => In,
    encode: (message: Out) => Uint8Array,
    maxPlaintext?: number,
  ) {
    this.#decode = decode;
    this.#encode = encode;
    this.#fragmenter = new Fragmenter(maxPlaintext);
  }

  /**
   * Feeds one decrypted Noise plaintext; returns the message it completed, or null while a fragmented one is
   * still arriving. Throws ProtocolError: fatal → close with PROTOCOL_VIOLATION; otherwise answer / log it.
   */
  receive(plaintext: Uint8Array): In | null {
    const frame = this.#reassembler.push(plaintext);
    return frame === null ? null : this.#decode(frame);
  }

  /** The plaintexts to encrypt and send, in order, for one message. Throws ProtocolError if it is invalid. */
  send(message: Out): Uint8Array[] {
    return this.#fragmenter.split(this.#encode(message));
  }

  /** Call when the connection ends cleanly; throws a fatal ProtocolError if a message was cut off. */
  end(): void {
    this.#reassembler.end();
  }
}

/** The Burrow's side of a connect-mode session. */
export const burrowStream = (maxPlaintext?: number) =>
  new MessageStream<ClientMessage, BurrowMessage>(decodeClientMessage, encodeBurrowMessage, maxPlaintext);

/** The phone's side of a connect-mode session. */
export const clientStream = (maxPlaintext?: number) =>
  new MessageStream<BurrowMessage, ClientMessage>(decodeBurrowMessage, encodeClientMessage, maxPlaintext);

/** The Burrow's side of a pair-mode session. */
export const pairBurrowStream = () =>
  new MessageStream<PairClientMessage, PairBurrowMessage>(decodePairClientMessage, encodePairBurrowMessage);

/** The phone's side of a pair-mode session. */
export const pairClientStream = () =>
  new MessageStream<PairBurrowMessage, PairClientMessage>(decodePairBurrowMessage, encodePairClientMessage);
