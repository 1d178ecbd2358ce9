/**
 * Input from this phone to its Burrow, paced (R-FLOW-2, issue 24.8). A paste used to go out as one `input`
 * message: over 1 MiB the encoder refused it, and a few MiB ran through the relay's inbound budget for the
 * Burrow (RL-LIM-7, 4 MiB burst then 1 MiB/s), which closed the phone 4009 partway through.
 *
 * Now every input is cut into frames of at most INPUT_CHUNK_BYTES and queued in order (keystrokes, pastes and
 * terminal replies alike, so a reply never overtakes a paste), and a frame goes out only when both
 *  - the Burrow has acknowledged all but INPUT_WINDOW_BYTES of what was sent (`input-ack`: it acknowledges
 *    input once the terminal it went to has less than that waiting for its program, so a program that does
 *    not read holds the paste back here, end to end, instead of in the daemon), and
 *  - a token bucket of PASTE_BURST_BYTES refilled at PASTE_BYTES_PER_SECOND has the bytes: half the relay's
 *    budget, so no paste trips it.
 * A single keystroke goes out at once. A paste that would make more than MAX_PASTE_BYTES wait is refused
 * whole, before any of it is sent. On a new connection whatever was still queued is dropped (the old code
 * dropped input sent while disconnected too): a paste cut by a disconnect arrives in part, in order.
 *
 * Pure: an injected clock and a send function; burrow-connection.ts owns one per connection.
 */
import {
  INPUT_CHUNK_BYTES,
  INPUT_WINDOW_BYTES,
  MAX_PASTE_BYTES,
  PASTE_BURST_BYTES,
  PASTE_BYTES_PER_SECOND,
} from '@burrow/protocol';
import type { Clock } from './clock.js';

export type InputKind = 'user' | 'reply';

export interface InputPacerOptions {
  readonly clock: Clock;
  /** Sends one `input` message now; false when there is no connection to send on. */
  readonly send: (session: string, kind: InputKind, data: Uint8Array) => boolean;
  /** Defaults: the protocol's constants. */
  readonly chunkBytes?: number;
  readonly windowBytes?: number;
  readonly bytesPerSecond?: number;
  readonly burstBytes?: number;
  readonly maxQueuedBytes?: number;
}

/** Why a `push` was refused: the limit it would have passed, for the words the user sees. */
export interface InputRefusal {
  readonly bytes: number;
  readonly queuedBytes: number;
  readonly limit: number;
}

interface Piece {
  readonly session: string;
  readonly kind: InputKind;
  readonly data: Uint8Array;
}

export class InputPacer {
  readonly #o: Required<InputPacerOptions>;
  readonly #queue: Piece[] = [];
  #queuedBytes = 0;
  #sent = 0;
  #acked = 0;
  #tokens: number;
  #tokensAt: number;
  #timer: unknown = null;

  constructor(options: InputPacerOptions) {
    this.#o = {
      chunkBytes: INPUT_CHUNK_BYTES,
      windowBytes: INPUT_WINDOW_BYTES,
      bytesPerSecond: PASTE_BYTES_PER_SECOND,
      burstBytes: PASTE_BURST_BYTES,
      maxQueuedBytes: MAX_PASTE_BYTES,
      ...options,
    };
    if (this.#o.chunkBytes > this.#o.windowBytes || this.#o.chunkBytes > this.#o.burstBytes)
      throw new RangeError('a chunk must fit in the window and the burst');
    this.#tokens = this.#o.burstBytes;
    this.#tokensAt = this.#o.clock.now();
  }

  /** Bytes queued, not yet sent (a paste in progress). */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Queues `data` for `session` and sends what it may now. Null when queued; the refusal otherwise. */
  push(session: string, kind: InputKind, data: Uint8Array): InputRefusal | null {
    if (data.length === 0) return null;
    if (this.#queuedBytes + data.length > this.#o.maxQueuedBytes)
      return { bytes: data.length, queuedBytes: this.#queuedBytes, limit: this.#o.maxQueuedBytes };
    for (let at = 0; at < data.length; at += this.#o.chunkBytes)
      this.#queue.push({ session, kind, data: data.subarray(at, at + this.#o.chunkBytes) });
    this.#queuedBytes += data.length;
    this.#pump();
    return null;
  }

  /**
   * The Burrow's `input-ack`. @throws RangeError when it goes backwards or past what was sent (the caller
   * closes the connection: the Burrow broke the protocol).
   */
  acked(received: number): void {
    if (received < this.#acked || received > this.#sent)
      throw new RangeError(`input-ack ${received} outside ${this.#acked}…${this.#sent}`);
    this.#acked = received;
    this.#pump();
  }

  /** A new connection: counts start over, and input still queued for the old one is dropped. */
  reset(): void {
    this.#o.clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    this.#sent = this.#acked = 0;
  }

  #pump(): void {
    this.#o.clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#refill();
    while (this.#queue.length > 0) {
      const piece = this.#queue[0]!;
      const size = piece.data.length;
      // The window: wait for the next input-ack (acked() pumps again).
      if (this.#sent - this.#acked + size > this.#o.windowBytes) return;
      if (this.#tokens < size) {
        const waitMs = Math.ceil(((size - this.#tokens) * 1000) / this.#o.bytesPerSecond);
        this.#timer = this.#o.clock.setTimeout(() => this.#pump(), waitMs);
        return;
      }
      if (!this.#o.send(piece.session, piece.kind, piece.data)) {
        // No connection: the queue is stale (reset() comes with the next one).
        this.#queue.length = 0;
        this.#queuedBytes = 0;
        return;
      }
      this.#queue.shift();
      this.#queuedBytes -= size;
      this.#tokens -= size;
      this.#sent += size;
    }
  }

  #refill(): void {
    const now = this.#o.clock.now();
    const earned = ((now - this.#tokensAt) * this.#o.bytesPerSecond) / 1000;
    this.#tokens = Math.min(this.#o.burstBytes, this.#tokens + earned);
    this.#tokensAt = now;
  }
}
