import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WriteScheduler } from './write-scheduler.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('WriteScheduler', () => {
  it('writes once per burst, retries a failed write until it succeeds, and stops after dispose', () => {
    const results = [false, false, true];
    const write = vi.fn(() => results.shift() ?? true);
    const w = new WriteScheduler(write, { debounceMs: 100, retryMs: 1_000 });
    w.schedule();
    w.schedule();
    vi.advanceTimersByTime(100);
    expect(write).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(999);
    expect(write).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(write).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(1_000);
    expect(write).toHaveBeenCalledTimes(3);
    expect(vi.getTimerCount()).toBe(0);
    w.schedule();
    w.dispose();
    vi.advanceTimersByTime(10_000);
    w.schedule();
    expect(write).toHaveBeenCalledTimes(3);
  });

  it('flush writes now and cancels the pending write', () => {
    const write = vi.fn(() => true);
    const w = new WriteScheduler(write, { debounceMs: 100, retryMs: 1_000 });
    w.schedule();
    expect(w.flush()).toBe(true);
    vi.advanceTimersByTime(1_000);
    expect(write).toHaveBeenCalledTimes(1);
  });
});
