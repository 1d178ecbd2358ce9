/**
 * The screen model on the daemon's own thread, fed in slices between PTY reads ("batched / idle-time
 * parsing"): reads are gathered into LOCAL_FEED_SLICE_BYTES pieces and xterm gets the next piece only once it
 * parsed the last, from a setImmediate, so a PTY read never waits behind more than one slice of parsing
 * (xterm alone parses whatever is queued in 12 ms bursts). Kept beside the worker host as the measured
 * alternative (burrow-agent/bench/output-path-bench.ts) and for a daemon that cannot start a worker.
 */
import { ChunkBatcher, type HistoryPage, type ScreenHost, type ScreenHostOptions } from './screen-host.js';
import { ScreenModel, type ScreenSnapshot } from './screen-model.js';

/** Bytes handed to xterm per step: about a millisecond of parsing here. */
export const LOCAL_FEED_SLICE_BYTES = 32 * 1024;

export class LocalScreenHost implements ScreenHost {
  readonly #model: ScreenModel;
  readonly #queue = new ChunkBatcher(LOCAL_FEED_SLICE_BYTES);
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
    return this.#queue.bytes + this.#model.backlog;
  }

  get hibernated(): boolean {
    return this.#model.hibernated;
  }

  write(chunk: Uint8Array): void {
    if (this.#disposed) return;
    this.#queue.push(chunk);
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
    try {
      return Promise.resolve(this.#model.history.read(before, count));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  hibernate(): Promise<boolean> {
    if (this.#queue.bytes > 0) return Promise.resolve(false);
    return this.#model.hibernate();
  }

  dispose(): void {
    this.#disposed = true;
    if (this.#step !== undefined) clearImmediate(this.#step);
    this.#queue.takeAll();
    this.#model.dispose();
  }

  #kick(): void {
    if (this.#feeding || this.#step !== undefined || this.#queue.bytes === 0 || this.#disposed) return;
    this.#step = setImmediate(() => this.#feed());
  }

  #feed(): void {
    this.#step = undefined;
    const slice = this.#queue.takeOne();
    if (slice === null || this.#disposed) return;
    this.#feeding = true;
    this.#model.write(slice);
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
    const rest = this.#queue.takeAll();
    for (const b of rest) this.#model.write(b);
    if (rest.length > 0) {
      this.#feeding = true;
      void this.#model.whenParsed(() => {
        this.#feeding = false;
        this.#onProgress();
        this.#kick();
      });
    }
  }
}
