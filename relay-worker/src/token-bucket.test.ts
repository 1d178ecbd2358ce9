import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fullAgainAt, type TokenBucketConfig, take } from './token-bucket.js';

const config: TokenBucketConfig = { capacity: 5, refillIntervalMs: 1_000 };

describe('token bucket [RL-LIM-2]', () => {
  it('allows a burst of capacity, then one per interval', () => {
    let state: ReturnType<typeof take>['state'] | undefined;
    for (let i = 0; i < 5; i++) {
      const r = take(config, state, 0);
      expect(r.allowed).toBe(true);
      state = r.state;
    }
    const refused = take(config, state, 0);
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 1_000 });
    expect(take(config, refused.state, 999).allowed).toBe(false);
    expect(take(config, refused.state, 1_000).allowed).toBe(true);
  });

  it('never grants more than capacity + elapsed/interval (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3_000 }), { maxLength: 200 }), (gaps) => {
        let now = 0;
        let state: ReturnType<typeof take>['state'] | undefined;
        let granted = 0;
        for (const gap of gaps) {
          now += gap;
          const r = take(config, state, now);
          state = r.state;
          if (r.allowed) granted += 1;
          expect(r.state.tokens).toBeGreaterThanOrEqual(0);
          expect(r.state.tokens).toBeLessThanOrEqual(config.capacity);
        }
        expect(granted).toBeLessThanOrEqual(config.capacity + Math.floor(now / config.refillIntervalMs));
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('takes a cost (a byte budget), all or nothing, and bounds it by the capacity', () => {
    const bytes: TokenBucketConfig = { capacity: 1000, refillIntervalMs: 1 };
    let r = take(bytes, undefined, 0, 600);
    expect(r.allowed).toBe(true);
    r = take(bytes, r.state, 0, 600);
    expect(r).toMatchObject({ allowed: false, retryAfterMs: 200 });
    // The refusal took nothing: 400 are still there.
    r = take(bytes, r.state, 0, 400);
    expect(r.allowed).toBe(true);
    expect(take(bytes, r.state, 100, 100).allowed).toBe(true);
    for (const bad of [0, 1.5, 1001, -1]) expect(() => take(bytes, undefined, 0, bad)).toThrow(RangeError);
  });

  it('refills nothing when the clock goes backwards, and rejects bad input', () => {
    const first = take(config, undefined, 10_000);
    const back = take(config, { tokens: 0, at: 10_000 }, 5_000);
    expect(first.allowed).toBe(true);
    expect(back.allowed).toBe(false);
    expect(back.state.at).toBe(10_000);
    expect(() => take(config, undefined, Number.NaN)).toThrow(TypeError);
    expect(() => take({ capacity: 0, refillIntervalMs: 1 }, undefined, 0)).toThrow(RangeError);
    expect(() => take({ capacity: 1, refillIntervalMs: 0 }, undefined, 0)).toThrow(RangeError);
  });

  it('says when a used bucket is full again, after which it answers like a fresh one (property)', () => {
    expect(fullAgainAt(config, { tokens: 5, at: 7 })).toBe(7);
    expect(fullAgainAt(config, { tokens: 2.5, at: 0 })).toBe(2_500);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.nat(10_000), fc.nat(100_000), (used, start, later) => {
        let state: ReturnType<typeof take>['state'] | undefined;
        for (let i = 0; i < used; i++) state = take(config, state, start).state;
        const full = fullAgainAt(config, state!);
        const at = full + later;
        // Taken from the stored state or from nothing at all: the same answer and the same tokens left.
        const kept = take(config, state, at);
        const forgotten = take(config, undefined, at);
        expect(kept.allowed).toBe(forgotten.allowed);
        expect(kept.state.tokens).toBeCloseTo(forgotten.state.tokens, 9);
        // And no later than needed: a millisecond before, it is not full yet.
        if (full > start)
          expect(take(config, state, full - 1).state.tokens).toBeLessThan(config.capacity - 1);
      }),
      { seed: 0xb0c4e7, numRuns: 200 },
    );
  });
});
