/**
 * Where a session's screen model runs, as the session sees it: PTY bytes go in (copied, in stream order) and
 * never wait for parsing; snapshots, history pages and parking come back as promises. Two hosts:
 *  - WorkerScreenHost: the model on a worker thread shared by every session (the default; DESIGN §6 "screen
 *    model off the reading thread" and docs/performance.md for why it won);
 *  - LocalScreenHost: the model on the daemon's own thread, fed in small slices between PTY reads.
 */
import type { ScreenSnapshot } from './screen-model.js';

export interface HistoryPage {
  readonly first: number;
  readonly lines: string[];
}

export interface ScreenHost {
  readonly cols: number;
  readonly rows: number;
  /** Bytes written and not parsed yet (the session pauses the PTY when this passes its bound). */
  readonly backlog: number;
  /** True while the model is parked as a string (see ScreenModel.hibernate). */
  readonly hibernated: boolean;
  /** PTY bytes in stream order; copied, so the caller may reuse `chunk`. */
  write(chunk: Uint8Array): void;
  resize(cols: number, rows: number): void;
  /** The screen, exact at `snapshot.offset` = every byte written before this call. */
  snapshot(): Promise<ScreenSnapshot>;
  history(before: number, count: number): Promise<HistoryPage>;
  hibernate(): Promise<boolean>;
  dispose(): void;
}

export interface ScreenHostOptions {
  readonly cols: number;
  readonly rows: number;
  /** Called whenever parsing made progress (the backlog fell). */
  readonly onProgress: () => void;
}

export type ScreenHostFactory = (options: ScreenHostOptions) => ScreenHost;

/** First batch buffer after a quiet spell: a keystroke's echo must not cost a flood-sized allocation. */
export const FIRST_BATCH_BYTES = 16 * 1024;
/** Batch buffers the screen worker gave back, kept for reuse by any session (bytes bounded: 8 × 256 KiB). */
export const MAX_RECYCLED_BATCHES = 8;

const recycled: ArrayBuffer[] = [];

/** A batch buffer the worker is done with: the next batch of that size (or smaller) reuses it. */
export function recycleBatch(buffer: ArrayBuffer): void {
  if (recycled.length < MAX_RECYCLED_BATCHES && buffer.byteLength > 0) recycled.push(buffer);
}

/** A buffer of exactly `size` bytes: a recycled one of that size, else a fresh one (never pooled). */
function batchBuffer(size: number): Uint8Array {
  const i = recycled.findIndex((b) => b.byteLength === size);
  if (i >= 0) return new Uint8Array(recycled.splice(i, 1)[0]!);
  // Its own ArrayBuffer (allocUnsafeSlow is never pooled): it can be transferred whole. Every byte is written
  // before it is read.
  return Buffer.allocUnsafeSlow(size);
}

/**
 * Gathers PTY reads (a few KiB each, in a reused buffer) into copies of up to `batchBytes`, so the model is
 * handed large pieces: fewer parser calls and, for the worker, fewer messages. Buffers start small after a
 * quiet spell and grow while output keeps filling them (a 256 KiB buffer per echoed keystroke cost the daemon
 * more than the echo itself).
 */
export class ChunkBatcher {
  #current: Uint8Array | null = null;
  #used = 0;
  readonly #full: Uint8Array[] = [];
  #bytes = 0;
  #nextSize: number;

  constructor(readonly batchBytes: number) {
    if (!Number.isSafeInteger(batchBytes) || batchBytes <= 0)
      throw new RangeError('batchBytes must be a positive integer');
    this.#nextSize = Math.min(batchBytes, FIRST_BATCH_BYTES);
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Batches filled completely so far. */
  get fullBatches(): number {
    return this.#full.length;
  }

  push(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.byteLength) {
      if (this.#current === null) {
        this.#current = batchBuffer(this.#nextSize);
        this.#used = 0;
      }
      const size = this.#current.byteLength;
      const n = Math.min(size - this.#used, chunk.byteLength - at);
      this.#current.set(chunk.subarray(at, at + n), this.#used);
      this.#used += n;
      at += n;
      if (this.#used === size) {
        this.#full.push(this.#current);
        this.#current = null;
        this.#nextSize = Math.min(this.batchBytes, size * 4);
      }
    }
    this.#bytes += chunk.byteLength;
  }

  /** The oldest batch (full, or the partial one if none is full), or null when empty. */
  takeOne(): Uint8Array | null {
    const full = this.#full.shift();
    if (full !== undefined) {
      this.#bytes -= full.byteLength;
      return full;
    }
    if (this.#current === null || this.#used === 0) return null;
    const part = this.#current.subarray(0, this.#used);
    this.#current = null;
    this.#bytes -= part.byteLength;
    // Taken before it filled. Little in it: output has paused, start small again; else it is still flowing
    // (a flush timer took it) and batches keep their size.
    if (part.byteLength < FIRST_BATCH_BYTES) this.#nextSize = Math.min(this.batchBytes, FIRST_BATCH_BYTES);
    return part;
  }

  /** Every batch held, oldest first. */
  takeAll(): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let b = this.takeOne(); b !== null; b = this.takeOne()) out.push(b);
    return out;
  }
}
