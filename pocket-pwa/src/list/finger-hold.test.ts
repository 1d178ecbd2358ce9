import { describe, expect, it } from 'vitest';
import { manualClock } from '../test-support/manual-clock.js';
import { FingerHold, MAX_FINGERS } from './finger-hold.js';
import { HOLD_AFTER_TOUCH_MS } from './held-order.js';

describe('FingerHold', () => {
  it('holds from the first finger down until HOLD_AFTER_TOUCH_MS after the last lifts', () => {
    const { clock, advance } = manualClock();
    const changes: boolean[] = [];
    const hold = new FingerHold(clock, (h) => changes.push(h));
    hold.down(1);
    hold.down(2);
    hold.up(1);
    advance(HOLD_AFTER_TOUCH_MS * 3);
    expect(hold.held).toBe(true);
    hold.up(2);
    advance(HOLD_AFTER_TOUCH_MS - 1);
    expect(hold.held).toBe(true);
    advance(1);
    expect(hold.held).toBe(false);
    expect(changes).toEqual([true, false]);
  });

  it('ignores a lift it never saw go down (a finger elsewhere on the page)', () => {
    const { clock, pending } = manualClock();
    const hold = new FingerHold(clock, () => {});
    hold.up(9);
    expect(pending()).toBe(0);
    hold.down(1);
    hold.up(9);
    expect(pending()).toBe(0);
    expect(hold.held).toBe(true);
  });

  it(`forgets the oldest fingers past ${MAX_FINGERS}, so lost lifts cannot hold the list for good`, () => {
    const { clock, advance } = manualClock();
    const hold = new FingerHold(clock, () => {});
    for (let id = 0; id < MAX_FINGERS + 5; id++) hold.down(id);
    for (let id = 5; id < MAX_FINGERS + 5; id++) hold.up(id);
    advance(HOLD_AFTER_TOUCH_MS);
    expect(hold.held).toBe(false);
  });

  it('reset ends the hold at once; dispose leaves no timer', () => {
    const { clock, pending } = manualClock();
    const hold = new FingerHold(clock, () => {});
    hold.down(1);
    hold.reset();
    expect(hold.held).toBe(false);
    hold.down(2);
    hold.up(2);
    expect(pending()).toBe(1);
    hold.dispose();
    expect(pending()).toBe(0);
  });
});
