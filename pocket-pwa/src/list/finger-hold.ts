/**
 * Whether a finger is on the session list, or lifted less than HOLD_AFTER_TOUCH_MS ago (held-order.ts says
 * why the list holds its order then). Pure, with an injected clock; use-held-order.ts feeds it pointer events.
 */
import type { Clock } from '../core/index.js';
import { HOLD_AFTER_TOUCH_MS } from './held-order.js';

/**
 * Fingers tracked at once. A lift the page never heard (the app left mid-touch) would keep one forever; past
 * this many, the oldest are forgotten, so a lost lift cannot hold the list for good.
 */
export const MAX_FINGERS = 10;

export class FingerHold {
  readonly #down = new Set<number>();
  readonly #clock: Clock;
  readonly #onChange: (held: boolean) => void;
  #release: unknown = null;
  #held = false;

  constructor(clock: Clock, onChange: (held: boolean) => void) {
    this.#clock = clock;
    this.#onChange = onChange;
  }

  get held(): boolean {
    return this.#held;
  }

  /** A finger went down on the list. */
  down(pointerId: number): void {
    this.#down.add(pointerId);
    for (const id of this.#down) {
      if (this.#down.size <= MAX_FINGERS) break;
      this.#down.delete(id);
    }
    this.#cancelRelease();
    this.#set(true);
  }

  /** A finger lifted (or the browser took it over, pointercancel) anywhere on the page. */
  up(pointerId: number): void {
    if (!this.#down.delete(pointerId) || this.#down.size > 0) return;
    this.#cancelRelease();
    this.#release = this.#clock.setTimeout(() => {
      this.#release = null;
      this.#set(false);
    }, HOLD_AFTER_TOUCH_MS);
  }

  /** The page lost every finger at once (it was hidden or lost focus): the hold ends now. */
  reset(): void {
    this.#down.clear();
    this.#cancelRelease();
    this.#set(false);
  }

  dispose(): void {
    this.#down.clear();
    this.#cancelRelease();
  }

  #cancelRelease(): void {
    if (this.#release !== null) this.#clock.clearTimeout(this.#release);
    this.#release = null;
  }

  #set(held: boolean): void {
    if (held === this.#held) return;
    this.#held = held;
    this.#onChange(held);
  }
}
