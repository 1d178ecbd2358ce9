/**
 * When a state file is written: once, a debounce after the first change of a burst, and — when the write
 * fails (a full or read-only disk) — again every `retryMs` until it succeeds, so a change accepted while the
 * disk was full reaches it once there is room, without waiting for the next change (issue 8 "disk full").
 * What is written, and how a failure is logged, is the caller's `write`; it returns false to be retried.
 */
export interface WriteSchedule {
  readonly debounceMs: number;
  readonly retryMs: number;
}

export class WriteScheduler {
  readonly #write: () => boolean;
  readonly #schedule: WriteSchedule;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(write: () => boolean, schedule: WriteSchedule) {
    this.#write = write;
    this.#schedule = schedule;
  }

  /** Writes after the debounce (or `delayMs`); calls while a write is pending share it. */
  schedule(delayMs = this.#schedule.debounceMs): void {
    if (this.#closed || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#write()) this.schedule(this.#schedule.retryMs);
    }, delayMs);
    this.#timer.unref();
  }

  /** Writes now, cancelling a pending write; true when it succeeded. Later schedules still work. */
  flush(): boolean {
    this.#cancel();
    return this.#write();
  }

  /** Cancels what is pending; nothing is written after this. */
  dispose(): void {
    this.#cancel();
    this.#closed = true;
  }

  #cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
