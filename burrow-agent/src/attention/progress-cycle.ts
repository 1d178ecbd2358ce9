/**
 * The OSC 9;4 progress cycle (alert-spec Terminal reports): an independent sub-state that never touches the
 * ring. Active states start or update it; `1;100`, an error, or a clear of an active cycle end it as a report
 * completion; a command boundary ends it silently. Invalid input is ignored. A 1 or 4 without a percent starts
 * or updates the cycle with no value (the parser also clamps percents above 100; attention README "Choices").
 */
import type { ProgressState } from '../terminal/events.js';
import type { ProgressOutcome } from './notification.js';

/** How a cycle ended, when it ended as a completion. */
export interface ProgressEnd {
  readonly outcome: ProgressOutcome;
  readonly percent: number | null;
}

export class ProgressCycle {
  #active = false;
  #value: number | null = null;
  /** A warning (state 4) was seen during this cycle; completing it is a completion with the warning title. */
  #warning = false;

  get active(): boolean {
    return this.#active;
  }

  /** Applies one report; returns the completion it ended with, or null. */
  apply(state: ProgressState, value: number | null): ProgressEnd | null {
    if (value !== null && !(Number.isInteger(value) && value >= 0 && value <= 100)) return null; // out of range
    switch (state) {
      case 'normal':
      case 'paused':
        if (state === 'normal' && value === 100) return this.#end('complete', 100);
        this.#start(value, state === 'paused');
        return null;
      case 'indeterminate':
        this.#start(null, false);
        return null;
      case 'error':
        return this.#end('error', value);
      case 'clear':
        return this.#active ? this.#end(this.#warning ? 'warning' : 'complete', this.#value) : null;
      default:
        return null; // an invalid state
    }
  }

  /** A command boundary, PTY exit or a restore: the cycle ends silently. */
  abandon(): void {
    this.#active = false;
    this.#value = null;
    this.#warning = false;
  }

  #start(value: number | null, warning: boolean): void {
    this.#warning = (this.#active && this.#warning) || warning;
    this.#active = true;
    this.#value = value;
  }

  #end(outcome: ProgressOutcome, percent: number | null): ProgressEnd {
    this.abandon();
    return { outcome, percent };
  }
}
