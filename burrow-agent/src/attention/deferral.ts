/**
 * The pending terminal notification of deferAlertsUntilQuiet (alert-spec Completion events): live-only and
 * bounded to one notification, chosen by richness. It comes due when the session is quiet or, at the latest,
 * ALERT_TIMING.deferCeiling after the first notification deferred; a replacement keeps that start.
 */
import { type ActivityNotification, richer } from './notification.js';
import { ALERT_TIMING, SETTLE_MS } from './timing.js';

export class Deferral {
  #detail: ActivityNotification | null = null;
  #firstAt = 0;
  #quietAt = 0;

  get pending(): boolean {
    return this.#detail !== null;
  }

  /** Defers `detail`; `quietAt` is when the detector would settle if nothing more is printed. */
  add(detail: ActivityNotification, now: number, quietAt: number | null): void {
    if (this.#detail !== null) {
      this.#detail = richer(this.#detail, detail);
      return;
    }
    this.#detail = detail;
    this.#firstAt = now;
    this.#quietAt = quietAt ?? now + SETTLE_MS;
  }

  /** Meaningful output moves the quiet deadline (a command-boundary reset does not drop the deferral). */
  output(now: number): void {
    if (this.#detail !== null) this.#quietAt = now + SETTLE_MS;
  }

  deadline(): number | null {
    return this.#detail === null ? null : Math.min(this.#quietAt, this.#firstAt + ALERT_TIMING.deferCeiling);
  }

  /** Removes and returns the pending notification (to ring, fold, or drop). */
  take(): ActivityNotification | null {
    const d = this.#detail;
    this.#detail = null;
    return d;
  }
}
