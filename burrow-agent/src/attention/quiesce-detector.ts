/**
 * QuiesceDetector: the always-on output/silence observer (alert-spec WATCHING Track). Output drives it up
 * NOTHING_TO_SHOW → MIGHT_BE_BUSY → BUSY, silence drives it down BUSY → MIGHT_NEED_ATTENTION → settled; the
 * MIGHT_* states are debounce windows both ways. It never latches: each settle is reported once and the
 * detector returns to NOTHING_TO_SHOW. Pure: time arrives as arguments, deadlines are read with nextDeadline().
 */
import { ALERT_TIMING } from './timing.js';

export type QuiesceStatus = 'NOTHING_TO_SHOW' | 'MIGHT_BE_BUSY' | 'BUSY' | 'MIGHT_NEED_ATTENTION';

/** What a step of the detector observed; `busy` is a confirmed rise, `settled` a busy session gone quiet. */
export type QuiesceTransition = 'busy' | 'settled' | null;

export interface QuiesceTimings {
  readonly busyCandidateGap: number;
  readonly busyConfirmGap: number;
  readonly mightNeedAttention: number;
  readonly needsAttentionConfirm: number;
}

export class QuiesceDetector {
  readonly #t: QuiesceTimings;
  #status: QuiesceStatus = 'NOTHING_TO_SHOW';
  /** First output of the current candidate, or null when there is no candidate history. */
  #candidateSince: number | null = null;
  /** When MIGHT_BE_BUSY began (its confirmation window starts there). */
  #mightBeBusySince: number | null = null;
  #lastOutput: number | null = null;

  constructor(timings: QuiesceTimings = ALERT_TIMING) {
    this.#t = timings;
  }

  get status(): QuiesceStatus {
    return this.#status;
  }

  /** BUSY or MIGHT_NEED_ATTENTION: what deferral waits out (alert-spec Completion events). */
  get fullyArmed(): boolean {
    return this.#status === 'BUSY' || this.#status === 'MIGHT_NEED_ATTENTION';
  }

  /** When a quiet session would settle, if it is armed. */
  get quietAt(): number | null {
    return this.fullyArmed && this.#lastOutput !== null ? this.#lastOutput + this.#settleGap() : null;
  }

  #staleGap(): number {
    return this.#t.busyCandidateGap + this.#t.busyConfirmGap;
  }

  #settleGap(): number {
    return this.#t.mightNeedAttention + this.#t.needsAttentionConfirm;
  }

  /** Meaningful output at `now` (the caller has already filtered echo and resize noise). */
  output(now: number): QuiesceTransition {
    const last = this.#lastOutput;
    this.#lastOutput = now;
    switch (this.#status) {
      case 'NOTHING_TO_SHOW':
        // Stale history is discarded here too, so a confirmation timer that ran late cannot revive it.
        if (this.#candidateSince === null || last === null || now - last > this.#staleGap()) {
          this.#candidateSince = now;
        } else if (now - this.#candidateSince >= this.#t.busyCandidateGap) {
          this.#status = 'MIGHT_BE_BUSY';
          this.#mightBeBusySince = now;
        }
        return null;
      case 'MIGHT_BE_BUSY':
        if (last !== null && now - last > this.#staleGap()) {
          this.#forget();
          this.#candidateSince = now;
          this.#lastOutput = now;
          return null;
        }
        if (now - this.#mightBeBusySince! >= this.#t.busyConfirmGap) {
          this.#status = 'BUSY';
          return 'busy';
        }
        return null;
      case 'MIGHT_NEED_ATTENTION':
        this.#status = 'BUSY';
        return null;
      case 'BUSY':
        return null;
    }
  }

  /** Advances silence-driven transitions to `now`. Safe to call at any time, late or early. */
  tick(now: number): QuiesceTransition {
    const last = this.#lastOutput;
    if (last === null) return null;
    const quiet = now - last;
    switch (this.#status) {
      case 'NOTHING_TO_SHOW':
        if (this.#candidateSince !== null && quiet > this.#staleGap()) this.#forget();
        return null;
      case 'MIGHT_BE_BUSY':
        if (quiet > this.#t.busyCandidateGap) this.#forget();
        return null;
      case 'BUSY':
      case 'MIGHT_NEED_ATTENTION':
        if (quiet >= this.#settleGap()) {
          this.#forget();
          return 'settled';
        }
        if (quiet >= this.#t.mightNeedAttention) this.#status = 'MIGHT_NEED_ATTENTION';
        return null;
    }
  }

  /** The next time tick() could change something, or null. */
  nextDeadline(): number | null {
    const last = this.#lastOutput;
    if (last === null) return null;
    switch (this.#status) {
      case 'NOTHING_TO_SHOW':
        return this.#candidateSince === null ? null : last + this.#staleGap() + 1;
      case 'MIGHT_BE_BUSY':
        return last + this.#t.busyCandidateGap + 1;
      case 'BUSY':
        return last + this.#t.mightNeedAttention;
      case 'MIGHT_NEED_ATTENTION':
        return last + this.#settleGap();
    }
  }

  /**
   * The session is busy as of `lastOutputAt` though output alone has not confirmed it (issue 23): it was
   * producing output when its last viewer left, or it is answering a submitted line. Its settle comes
   * SETTLE_MS after the latest output; an armed detector only moves that on.
   */
  markBusy(lastOutputAt: number): void {
    this.#status = 'BUSY';
    this.#candidateSince = null;
    this.#mightBeBusySince = null;
    this.#lastOutput = Math.max(this.#lastOutput ?? lastOutputAt, lastOutputAt);
  }

  /** Every command boundary and a user verb clearing a watching ring start the detector over. */
  reset(): void {
    this.#forget();
  }

  #forget(): void {
    this.#status = 'NOTHING_TO_SHOW';
    this.#candidateSince = null;
    this.#mightBeBusySince = null;
    this.#lastOutput = null;
  }
}
