import { describe, expect, it } from 'vitest';
import { earliest, ManualClock } from './clock.js';

describe('ManualClock', () => {
  it('moves only forward', () => {
    const c = new ManualClock(10);
    expect(c.advance(5)).toBe(15);
    c.set(20);
    expect(c.now()).toBe(20);
    expect(() => c.advance(-1)).toThrow(RangeError);
    expect(() => c.advance(Number.NaN)).toThrow(RangeError);
    expect(() => c.set(19)).toThrow(RangeError);
  });

  it('earliest ignores absent deadlines', () => {
    expect(earliest(null, 5, 3, null)).toBe(3);
    expect(earliest(null, null)).toBeNull();
  });
});
