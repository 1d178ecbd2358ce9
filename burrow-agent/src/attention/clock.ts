/**
 * The engine's only source of time. The machines never start timers: each exposes `nextDeadline()` and is
 * driven by `tick()`, so a test (or the daemon's one real timer) decides when time passes.
 */
export interface Clock {
  /** Milliseconds on a monotonic-enough scale; only differences are used. */
  now(): number;
}

/** A clock a test moves by hand. */
export class ManualClock implements Clock {
  #now: number;

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Moves time forward by `ms` (never backward). */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('ManualClock.advance needs a finite ms >= 0');
    this.#now += ms;
    return this.#now;
  }

  set(now: number): void {
    if (!Number.isFinite(now) || now < this.#now) throw new RangeError('ManualClock.set cannot go backward');
    this.#now = now;
  }
}

/** The earliest of several optional deadlines. */
export function earliest(...deadlines: ReadonlyArray<number | null>): number | null {
  let best: number | null = null;
  for (const d of deadlines) if (d !== null && (best === null || d < best)) best = d;
  return best;
}
