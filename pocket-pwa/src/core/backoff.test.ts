import { describe, expect, it } from 'vitest';
import { backoffDelayMs, POCKET_BACKOFF } from './backoff.js';

describe('backoffDelayMs', () => {
  it('grows geometrically from the initial delay', () => {
    expect([0, 1, 2, 3].map((n) => backoffDelayMs(POCKET_BACKOFF, n, 0))).toEqual([500, 1000, 2000, 4000]);
  });
  it('is capped, even for huge attempt numbers', () => {
    expect(backoffDelayMs(POCKET_BACKOFF, 10, 0)).toBe(10_000);
    expect(backoffDelayMs(POCKET_BACKOFF, 1e9, 0)).toBe(10_000);
  });
  it('jitters downwards by at most the jitter fraction', () => {
    expect(backoffDelayMs(POCKET_BACKOFF, 3, 0.999)).toBeGreaterThanOrEqual(Math.floor(4000 * 0.7));
    expect(backoffDelayMs(POCKET_BACKOFF, 3, 0.5)).toBe(3400);
  });
  it('rejects bad arguments with RangeError', () => {
    expect(() => backoffDelayMs(POCKET_BACKOFF, -1, 0)).toThrow(RangeError);
    expect(() => backoffDelayMs(POCKET_BACKOFF, 0, 1)).toThrow(RangeError);
    expect(() => backoffDelayMs(POCKET_BACKOFF, 0.5, 0)).toThrow(RangeError);
  });
});
