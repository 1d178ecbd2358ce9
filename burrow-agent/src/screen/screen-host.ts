/**
 * Where a session's screen model runs, as the lazy screen (lazy-screen.ts) sees it: stream bytes go in, in
 * order, in large hand-overs copied out of the session's output log, and never wait for parsing; snapshots,
 * history pages and parking come back as promises. Two hosts:
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
  /**
   * Stream bytes in order. The host takes `chunk` over (do not touch it again): a buffer from
   * `handOverBuffer`, posted whole to the worker and given back for reuse once parsed.
   */
  write(chunk: Uint8Array): void;
  resize(cols: number, rows: number): void;
  /** The screen, exact at `snapshot.offset` = every byte written before this call. */
  snapshot(): Promise<ScreenSnapshot>;
  history(before: number, count: number): Promise<HistoryPage>;
  /** Parks the model once it has parsed everything written before; resolves whether it parked. */
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

/** Smallest hand-over buffer: a keystroke's echo must not cost a flood-sized allocation. */
export const MIN_HAND_OVER_BUFFER_BYTES = 16 * 1024;
/** Hand-over buffers kept for reuse by any session once the model is done with them. */
export const MAX_RECYCLED_BUFFERS = 4;
/**
 * Most bytes of hand-over buffers kept for reuse: two flood hand-overs (1.25 MiB each) and small ones. A flood
 * reuses them turn about; more would sit in the daemon's RSS for good after one (issue 26: memory per session).
 */
export const MAX_RECYCLED_BYTES = 3 * 1024 * 1024;
/** Hand-over buffers past this size grow in steps of it (see handOverBuffer). */
const LARGE_HAND_OVER_STEP = 256 * 1024;

const recycled: ArrayBuffer[] = [];
let recycledBytes = 0;

/** A hand-over buffer the model is done with: a later hand-over of up to its size reuses it. */
export function recycleBuffer(buffer: ArrayBuffer): void {
  if (buffer.byteLength === 0 || recycled.length >= MAX_RECYCLED_BUFFERS) return;
  if (recycledBytes + buffer.byteLength > MAX_RECYCLED_BYTES) return;
  recycled.push(buffer);
  recycledBytes += buffer.byteLength;
}

/**
 * A view of exactly `size` bytes at the start of a buffer of its own (never pooled, so it can be transferred
 * whole): a recycled one that fits without wasting more than three quarters of it, else a fresh one rounded
 * up to a power of two, or past 256 KiB to a multiple of it (so it is reused by later hand-overs of similar
 * size). Every byte is written before it is read.
 */
export function handOverBuffer(size: number): Uint8Array {
  let best = -1;
  for (let i = 0; i < recycled.length; i++) {
    const n = recycled[i]!.byteLength;
    if (n >= size && n <= 4 * Math.max(size, MIN_HAND_OVER_BUFFER_BYTES)) {
      if (best < 0 || n < recycled[best]!.byteLength) best = i;
    }
  }
  if (best >= 0) {
    const buffer = recycled.splice(best, 1)[0]!;
    recycledBytes -= buffer.byteLength;
    return new Uint8Array(buffer, 0, size);
  }
  let capacity = MIN_HAND_OVER_BUFFER_BYTES;
  while (capacity < size && capacity < LARGE_HAND_OVER_STEP) capacity *= 2;
  // A flood's hand-overs are CHECKPOINT_BYTES plus part of a read: rounding them up to a power of two would
  // allocate 2 MiB for every 1.02 MiB; a 256 KiB step gives them all the same size, which the pool reuses.
  if (capacity < size) capacity = Math.ceil(size / LARGE_HAND_OVER_STEP) * LARGE_HAND_OVER_STEP;
  return new Uint8Array(Buffer.allocUnsafeSlow(capacity).buffer, 0, size);
}
