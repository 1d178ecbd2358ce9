/**
 * Fragmentation of frames larger than one Noise message, and bounded reassembly. [SPEC: R-FRAG-*]
 *
 * FRAGMENT 0x05 | u32 messageId | u32 totalLength | u32 fragmentOffset | chunk
 *
 * A sender numbers its fragmented messages 1, 2, 3 … per connection (R-FRAG-5) and sends each message's
 * fragments in order (R-FRAG-4). Whole frames may travel between the fragments of a message (so live output is
 * not stuck behind a multi-megabyte snapshot), and up to MAX_PARTIAL_MESSAGES fragmented messages may be in
 * flight at once (R-FRAG-6). Every error here is fatal: the stream can no longer be trusted.
 */
import { readU32, writeU32 } from './bytes.js';
import { fatalError } from './errors.js';
import { FrameKind } from './frame.js';
import {
  MAX_MESSAGE_BYTES,
  MAX_NOISE_PLAINTEXT_BYTES,
  MAX_PARTIAL_MESSAGES,
  MAX_REASSEMBLY_BYTES,
  MIN_FRAGMENT_CHUNK_BYTES,
} from './limits.js';

/** Bytes of FRAGMENT header before the chunk. */
export const FRAGMENT_HEADER_BYTES = 13;

/** The largest chunk that keeps a FRAGMENT within one Noise plaintext. */
export const MAX_FRAGMENT_CHUNK_BYTES = MAX_NOISE_PLAINTEXT_BYTES - FRAGMENT_HEADER_BYTES;

const MAX_MESSAGE_ID = 0xffff_ffff;

/**
 * Splits one whole frame into FRAGMENT frames of at most `maxChunk` payload bytes each (so each is at most
 * `maxChunk + FRAGMENT_HEADER_BYTES` long). `messageId` is 1 … 2^32−1 and must be fresh on this connection.
 */
export function fragment(message: Uint8Array, maxChunk: number, messageId: number): Uint8Array[] {
  if (!(message instanceof Uint8Array)) throw new TypeError('message must be a Uint8Array');
  if (
    !Number.isInteger(maxChunk) ||
    maxChunk < MIN_FRAGMENT_CHUNK_BYTES ||
    maxChunk > MAX_FRAGMENT_CHUNK_BYTES
  ) {
    throw new RangeError(
      `maxChunk must be an integer ${MIN_FRAGMENT_CHUNK_BYTES} … ${MAX_FRAGMENT_CHUNK_BYTES}`,
    );
  }
  if (!Number.isInteger(messageId) || messageId < 1 || messageId > MAX_MESSAGE_ID) {
    throw new RangeError('messageId must be an integer 1 … 2^32−1');
  }
  if (message.length <= maxChunk || message.length > MAX_MESSAGE_BYTES) {
    throw new RangeError(
      `a fragmented message is longer than maxChunk and at most ${MAX_MESSAGE_BYTES} bytes`,
    );
  }
  if (message[0] === FrameKind.FRAGMENT) throw new RangeError('a FRAGMENT cannot itself be fragmented');
  const out: Uint8Array[] = [];
  for (let at = 0; at < message.length; at += maxChunk) {
    const chunk = message.subarray(at, Math.min(at + maxChunk, message.length));
    const frame = new Uint8Array(FRAGMENT_HEADER_BYTES + chunk.length);
    frame[0] = FrameKind.FRAGMENT;
    writeU32(frame, 1, messageId);
    writeU32(frame, 5, message.length);
    writeU32(frame, 9, at);
    frame.set(chunk, FRAGMENT_HEADER_BYTES);
    out.push(frame);
  }
  return out;
}

/** Turns whole frames into Noise plaintexts, fragmenting the big ones. One per connection and direction. */
export class Fragmenter {
  readonly #maxPlaintext: number;
  #nextId = 1;

  constructor(maxPlaintext: number = MAX_NOISE_PLAINTEXT_BYTES) {
    if (
      !Number.isInteger(maxPlaintext) ||
      maxPlaintext < MIN_FRAGMENT_CHUNK_BYTES + FRAGMENT_HEADER_BYTES ||
      maxPlaintext > MAX_NOISE_PLAINTEXT_BYTES
    ) {
      throw new RangeError('maxPlaintext must fit one fragment chunk and one Noise message');
    }
    this.#maxPlaintext = maxPlaintext;
  }

  /** The plaintexts to send, in order: `[frame]` itself when it fits. */
  split(frame: Uint8Array): Uint8Array[] {
    if (!(frame instanceof Uint8Array) || frame.length === 0)
      throw new TypeError('frame must be a non-empty Uint8Array');
    if (frame.length <= this.#maxPlaintext) return [frame];
    if (this.#nextId > MAX_MESSAGE_ID)
      throw new RangeError('fragment message ids exhausted on this connection');
    return fragment(frame, this.#maxPlaintext - FRAGMENT_HEADER_BYTES, this.#nextId++);
  }
}

interface Partial {
  readonly total: number;
  readonly chunks: Uint8Array[];
  received: number;
}

/**
 * Collects FRAGMENT frames into whole frames, within MAX_PARTIAL_MESSAGES and MAX_REASSEMBLY_BYTES: a message's
 * declared total is reserved against the byte budget when its first fragment arrives, so a peer can never make
 * it hold more, whatever it sends. One per connection and direction.
 */
export class Reassembler {
  readonly #partials = new Map<number, Partial>();
  readonly #maxBytes: number;
  readonly #maxPartials: number;
  #reserved = 0;
  #lastStarted = 0;

  constructor(limits: { maxBytes?: number; maxPartials?: number } = {}) {
    const maxBytes = limits.maxBytes ?? MAX_REASSEMBLY_BYTES;
    const maxPartials = limits.maxPartials ?? MAX_PARTIAL_MESSAGES;
    if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > MAX_REASSEMBLY_BYTES) {
      throw new RangeError(`maxBytes must be an integer 1 … ${MAX_REASSEMBLY_BYTES}`);
    }
    if (!Number.isInteger(maxPartials) || maxPartials < 1 || maxPartials > MAX_PARTIAL_MESSAGES) {
      throw new RangeError(`maxPartials must be an integer 1 … ${MAX_PARTIAL_MESSAGES}`);
    }
    this.#maxBytes = maxBytes;
    this.#maxPartials = maxPartials;
  }

  /** Bytes reserved by partial messages (their declared totals). */
  get reservedBytes(): number {
    return this.#reserved;
  }

  /** Fragmented messages started and not yet complete. */
  get partialMessages(): number {
    return this.#partials.size;
  }

  /**
   * Feeds one Noise plaintext. Returns a whole frame when one is ready (a non-FRAGMENT plaintext is returned
   * as is), null while a message is still incomplete. Throws a fatal ProtocolError on any violation.
   */
  push(plaintext: Uint8Array): Uint8Array | null {
    if (!(plaintext instanceof Uint8Array)) throw new TypeError('plaintext must be a Uint8Array');
    if (plaintext.length === 0) throw fatalError('R-FRAME-1', 'empty frame');
    if (plaintext.length > MAX_NOISE_PLAINTEXT_BYTES) {
      throw fatalError('R-FRAME-7', 'plaintext exceeds one Noise message');
    }
    if (plaintext[0] !== FrameKind.FRAGMENT) return plaintext;
    if (plaintext.length <= FRAGMENT_HEADER_BYTES) throw fatalError('R-FRAG-1', 'fragment has no chunk');
    const id = readU32(plaintext, 1);
    const total = readU32(plaintext, 5);
    const at = readU32(plaintext, 9);
    const chunk = plaintext.subarray(FRAGMENT_HEADER_BYTES);
    if (id === 0) throw fatalError('R-FRAG-5', 'fragment message id 0 is reserved');
    if (at + chunk.length > total) throw fatalError('R-FRAG-2', 'fragment runs past its message total');

    let partial = this.#partials.get(id);
    if (partial === undefined) {
      if (at !== 0) throw fatalError('R-FRAG-4', 'fragment out of order: its message never started');
      if (id <= this.#lastStarted)
        throw fatalError('R-FRAG-5', 'fragment message id reused or not increasing');
      if (chunk.length === total)
        throw fatalError('R-FRAG-2', 'a fragmented message has at least two fragments');
      if (total > MAX_MESSAGE_BYTES)
        throw fatalError('R-FRAG-3', 'fragmented message exceeds MAX_MESSAGE_BYTES');
      if (chunk[0] === FrameKind.FRAGMENT) throw fatalError('R-FRAG-3', 'a fragment cannot carry a FRAGMENT');
      if (this.#partials.size >= this.#maxPartials) {
        throw fatalError('R-FRAG-6', 'too many fragmented messages interleaved at once');
      }
      if (this.#reserved + total > this.#maxBytes)
        throw fatalError('R-FRAG-6', 'reassembly byte budget exceeded');
      this.#lastStarted = id;
      this.#reserved += total;
      partial = { total, chunks: [], received: 0 };
      this.#partials.set(id, partial);
    } else {
      if (total !== partial.total) throw fatalError('R-FRAG-4', 'fragment total changed mid-message');
      if (at !== partial.received) throw fatalError('R-FRAG-4', 'fragment out of order or duplicated');
    }
    // Copy: the caller may reuse its buffer, and we must not keep a view into a larger one alive.
    partial.chunks.push(chunk.slice());
    partial.received += chunk.length;
    if (partial.received < partial.total) return null;

    this.#partials.delete(id);
    this.#reserved -= partial.total;
    const whole = new Uint8Array(partial.total);
    let offset = 0;
    for (const piece of partial.chunks) {
      whole.set(piece, offset);
      offset += piece.length;
    }
    return whole;
  }

  /** Call when the stream ends cleanly: throws if a fragmented message was cut off (R-FRAG-7). */
  end(): void {
    if (this.#partials.size > 0) throw fatalError('R-FRAG-7', 'stream ended inside a fragmented message');
  }
}
