/**
 * A session's screen model as a cache of its output log (issue 26). The log is the truth: every PTY read is
 * appended there (and shown to the attention parser, which is cheap) and nothing more happens per read. The
 * model — headless xterm and the line history, on the screen worker — is handed the log's new bytes only at a
 * checkpoint:
 *  - when CHECKPOINT_BYTES have piled up (a flood: one hand-over per that many bytes, so its plain-text skip
 *    parses one screenful per hand-over instead of one per batch, and the daemon posts one message instead of
 *    dozens);
 *  - once output pauses for CHECKPOINT_QUIET_MS (so an attach after the burst finds the model current, and the
 *    log can shrink back to what viewers need), or at the latest CHECKPOINT_MAX_TICKS quiet periods after the
 *    first byte waiting (a program that never pauses still checkpoints every second);
 *  - whenever someone needs the screen: a snapshot (attach, resync, a ring's words), a history page, a resize
 *    (which must meet exactly the bytes before it), parking.
 * A viewer that renders for itself (Pocket, `burrow attach`) is fed from the log, never from the model, so a
 * live viewer costs the model nothing either. The session keeps every byte the model has not been handed
 * (`floor`): a checkpoint is never lost to the log's bounds.
 *
 * Why these numbers (docs/performance.md "Lazy screen model"): a hand-over of CHECKPOINT_BYTES of coloured
 * output — the worst case, xterm parses all of it — stays inside the attach budget (100 ms including the
 * snapshot) on this machine, while a plain flood parses ~1 % of its bytes.
 */
import { type HistoryPage, handOverBuffer, type ScreenHost } from './screen-host.js';
import type { ScreenSnapshot } from './screen-model.js';

/** Bytes waiting in the log that make a checkpoint at once. */
export const CHECKPOINT_BYTES = 1024 * 1024;
/** Output quiet this long (ms) hands the model what waits. */
export const CHECKPOINT_QUIET_MS = 50;
/** Quiet periods after which waiting bytes are handed over even if output never paused (1 s). */
export const CHECKPOINT_MAX_TICKS = 20;

/** What the lazy screen reads: the session's output log. */
export interface LogSource {
  readonly endOffset: number;
  /** Copies bytes [from, to) into `into`; they must still be held. */
  copy(from: number, to: number, into: Uint8Array): void;
  /** Drops what nobody needs any more (the model no longer needs what it was handed). */
  trim(): void;
}

export interface LazyScreenOptions {
  readonly checkpointBytes?: number;
  readonly quietMs?: number;
}

export class LazyScreen {
  readonly #log: LogSource;
  readonly #host: ScreenHost;
  readonly #checkpointBytes: number;
  readonly #quietMs: number;
  /** Stream offset up to which the model has been handed the log's bytes. */
  #handed: number;
  #timer: NodeJS.Timeout | undefined;
  /** The log's end when the quiet timer last started a period. */
  #endAtArm = 0;
  /** Quiet periods the oldest waiting byte has waited. */
  #ticks = 0;
  #disposed = false;

  constructor(log: LogSource, host: ScreenHost, options: LazyScreenOptions = {}) {
    const bytes = options.checkpointBytes ?? CHECKPOINT_BYTES;
    const quiet = options.quietMs ?? CHECKPOINT_QUIET_MS;
    if (!Number.isSafeInteger(bytes) || bytes < 1) throw new RangeError('checkpointBytes must be positive');
    if (!Number.isSafeInteger(quiet) || quiet < 1) throw new RangeError('quietMs must be positive');
    this.#log = log;
    this.#host = host;
    this.#checkpointBytes = bytes;
    this.#quietMs = quiet;
    this.#handed = log.endOffset;
  }

  get cols(): number {
    return this.#host.cols;
  }

  get rows(): number {
    return this.#host.rows;
  }

  /** Bytes handed to the model and not parsed yet (the session's backpressure signal). */
  get backlog(): number {
    return this.#host.backlog;
  }

  /** Bytes in the log the model has not been handed yet. */
  get waiting(): number {
    return this.#log.endOffset - this.#handed;
  }

  /** The oldest stream offset the model still needs from the log. */
  get floor(): number {
    return this.#handed;
  }

  get hibernated(): boolean {
    return this.#host.hibernated && this.waiting === 0;
  }

  /** The log grew (after every append): a checkpoint if enough waits, else the quiet timer runs. */
  advance(): void {
    if (this.#disposed) return;
    if (this.waiting >= this.#checkpointBytes) {
      this.checkpoint();
      return;
    }
    if (this.#timer === undefined && this.waiting > 0) {
      this.#endAtArm = this.#log.endOffset;
      this.#timer = setTimeout(() => this.#tick(), this.#quietMs);
      this.#timer.unref();
    }
  }

  /** Hands the model every byte the log holds that it has not seen. */
  checkpoint(): void {
    if (this.#disposed) return;
    this.#ticks = 0;
    const end = this.#log.endOffset;
    const n = end - this.#handed;
    if (n === 0) return;
    const chunk = handOverBuffer(n);
    this.#log.copy(this.#handed, end, chunk);
    this.#handed = end;
    this.#host.write(chunk);
    this.#log.trim();
  }

  /** Takes effect after every byte read before it. */
  resize(cols: number, rows: number): void {
    this.checkpoint();
    this.#host.resize(cols, rows);
  }

  /** The screen, exact at every byte read before this call. */
  snapshot(): Promise<ScreenSnapshot> {
    this.checkpoint();
    return this.#host.snapshot();
  }

  history(before: number, count: number): Promise<HistoryPage> {
    this.checkpoint();
    return this.#host.history(before, count);
  }

  hibernate(): Promise<boolean> {
    this.checkpoint();
    return this.#host.hibernate();
  }

  dispose(): void {
    this.#disposed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#host.dispose();
  }

  #tick(): void {
    const end = this.#log.endOffset;
    if (this.#disposed || end === this.#handed) {
      this.#timer = undefined;
      this.#ticks = 0;
      return;
    }
    this.#ticks++;
    if (end === this.#endAtArm || this.#ticks >= CHECKPOINT_MAX_TICKS) {
      this.#timer = undefined;
      this.checkpoint();
      return;
    }
    this.#endAtArm = end;
    this.#timer!.refresh();
  }
}
