/**
 * The screen model on the daemon's own thread, fed in slices between PTY reads ("batched / idle-time
 * parsing"): each hand-over is cut into LOCAL_FEED_SLICE_BYTES pieces and xterm gets the next piece only once
 * it parsed the last, from a setImmediate, so a PTY read never waits behind more than one slice of parsing
 * (xterm alone parses whatever is queued in 12 ms bursts). Kept beside the worker host as the measured
 * alternative (burrow-agent/bench/screen-host-bench.ts) and for a daemon that cannot start a worker.
 */
import type { HistoryPage, ScreenHost, ScreenHostOptions } from './screen-host.js';
import { ScreenModel, type ScreenSnapshot } from './screen-model.js';

/** Bytes handed to xterm per step: about a millisecond of parsing here. */
export const LOCAL_FEED_SLICE_BYTES = 32 * 1024;

export class LocalScreenHost implements ScreenHost {
  readonly #model: ScreenModel;
  /** Hand-overs not given to the model yet, oldest first; `#at` is how far into the first one it got. */
  readonly #queue: Uint8Array[] = [];
  #at = 0;
  #queued = 0;
  readonly #onProgress: () => void;
  #step: NodeJS.Immediate | undefined;
  /** A slice is with xterm and not parsed yet. */
  #feeding = false;
  #disposed = false;

  constructor(options: ScreenHostOptions) {
    this.#model = new ScreenModel(options.cols, options.rows);
    this.#onProgress = options.onProgress;
  }

  get cols(): number {
    return this.#model.cols;
  }

  get rows(): number {
    return this.#model.rows;
  }

  get backlog(): number {
    return this.#queued + this.#model.backlog;
  }

  /** Bytes the model's plain-text skip took past xterm (ScreenModel.skippedBytes); for benches and tests. */
  get skippedBytes(): number {
    return this.#model.skippedBytes;
  }

  get hibernated(): boolean {
    return this.#model.hibernated;
  }

  write(chunk: Uint8Array): void {
    if (this.#disposed || chunk.byteLength === 0) return;
    this.#queue.push(chunk);
    this.#queued += chunk.byteLength;
    this.#kick();
  }

  resize(cols: number, rows: number): void {
    this.#handOverAll();
    this.#model.resize(cols, rows);
  }

  snapshot(): Promise<ScreenSnapshot> {
    this.#handOverAll();
    return this.#model.snapshot();
  }

  history(before: number, count: number): Promise<HistoryPage> {
    this.#handOverAll();
    return this.#model.whenParsed(() => this.#model.history.read(before, count));
  }

  hibernate(): Promise<boolean> {
    this.#handOverAll();
    return this.#model.hibernate();
  }

  dispose(): void {
    this.#disposed = true;
    if (this.#step !== undefined) clearImmediate(this.#step);
    this.#queue.length = 0;
    this.#queued = 0;
    this.#model.dispose();
  }

  #kick(): void {
    if (this.#feeding || this.#step !== undefined || this.#queued === 0 || this.#disposed) return;
    this.#step = setImmediate(() => this.#feed());
  }

  /** The next slice of the oldest hand-over (a view: the model keeps it until parsed, nothing reuses it). */
  #slice(max: number): Uint8Array | null {
    const head = this.#queue[0];
    if (head === undefined) return null;
    const end = Math.min(head.byteLength, this.#at + max);
    const slice = head.subarray(this.#at, end);
    this.#queued -= slice.byteLength;
    if (end === head.byteLength) {
      this.#queue.shift();
      this.#at = 0;
    } else {
      this.#at = end;
    }
    return slice;
  }

  #feed(): void {
    this.#step = undefined;
    const slice = this.#slice(LOCAL_FEED_SLICE_BYTES);
    if (slice === null || this.#disposed) return;
    this.#feeding = true;
    this.#model.write(slice);
    this.#afterParse();
  }

  #afterParse(): void {
    void this.#model.whenParsed(() => {
      this.#feeding = false;
      this.#onProgress();
      this.#kick();
    });
  }

  /** Everything queued goes to xterm now, so what comes next (resize, snapshot) follows it in the stream. */
  #handOverAll(): void {
    if (this.#step !== undefined) clearImmediate(this.#step);
    this.#step = undefined;
    let any = false;
    for (
      let s = this.#slice(Number.POSITIVE_INFINITY);
      s !== null;
      s = this.#slice(Number.POSITIVE_INFINITY)
    ) {
      this.#model.write(s);
      any = true;
    }
    if (any) {
      this.#feeding = true;
      this.#afterParse();
    }
  }
}
