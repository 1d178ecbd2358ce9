import { describe, expect, it } from 'vitest';
import { QuiesceDetector } from './quiesce-detector.js';
import { ALERT_TIMING, AWAIT_GRACE_MS, SETTLE_MS } from './timing.js';

const { busyCandidateGap, busyConfirmGap, mightNeedAttention } = ALERT_TIMING;

/** Steady output every 250 ms from `from` through `to`; returns what the detector reported. */
function steady(d: QuiesceDetector, from: number, to: number): string[] {
  const seen: string[] = [];
  for (let t = from; t <= to; t += 250) {
    const a = d.tick(t);
    const b = d.output(t);
    if (a) seen.push(a);
    if (b) seen.push(b);
  }
  return seen;
}

describe('QuiesceDetector', () => {
  it('first output starts candidate tracking without changing status', () => {
    const d = new QuiesceDetector();
    d.output(0);
    expect(d.status).toBe('NOTHING_TO_SHOW');
  });

  it('rises NOTHING_TO_SHOW -> MIGHT_BE_BUSY -> BUSY, no sooner than the grace floor', () => {
    const d = new QuiesceDetector();
    d.output(0);
    d.output(busyCandidateGap);
    expect(d.status).toBe('MIGHT_BE_BUSY');
    d.output(AWAIT_GRACE_MS - 1);
    expect(d.status).toBe('MIGHT_BE_BUSY');
    expect(d.output(AWAIT_GRACE_MS)).toBe('busy');
    expect(d.status).toBe('BUSY');
  });

  it('unconfirmed MIGHT_BE_BUSY returns to NOTHING_TO_SHOW', () => {
    const d = new QuiesceDetector();
    d.output(0);
    d.output(busyCandidateGap);
    d.tick(busyCandidateGap * 2 + 1);
    expect(d.status).toBe('NOTHING_TO_SHOW');
  });

  it('falls BUSY -> MIGHT_NEED_ATTENTION -> settled, reporting the settle once', () => {
    const d = new QuiesceDetector();
    steady(d, 0, 3000);
    expect(d.status).toBe('BUSY');
    expect(d.tick(3000 + mightNeedAttention)).toBeNull();
    expect(d.status).toBe('MIGHT_NEED_ATTENTION');
    expect(d.tick(3000 + SETTLE_MS)).toBe('settled');
    expect(d.status).toBe('NOTHING_TO_SHOW');
    expect(d.tick(3000 + SETTLE_MS * 3)).toBeNull();
  });

  it('output in MIGHT_NEED_ATTENTION returns to BUSY and moves the settle', () => {
    const d = new QuiesceDetector();
    steady(d, 0, 3000);
    d.tick(3000 + mightNeedAttention);
    d.output(3000 + mightNeedAttention + 10);
    expect(d.status).toBe('BUSY');
    expect(d.tick(3000 + SETTLE_MS)).toBeNull();
    expect(d.quietAt).toBe(3000 + mightNeedAttention + 10 + SETTLE_MS);
  });

  it('settles even when its timer runs late', () => {
    const d = new QuiesceDetector();
    steady(d, 0, 3000);
    expect(d.tick(3000 + SETTLE_MS * 10)).toBe('settled');
  });

  it('forgets stale candidate history', () => {
    const d = new QuiesceDetector();
    d.output(0);
    d.tick(AWAIT_GRACE_MS + 1);
    d.output(AWAIT_GRACE_MS + 500);
    // The old candidate is gone, so this output only starts a new one.
    expect(d.status).toBe('NOTHING_TO_SHOW');
    d.output(AWAIT_GRACE_MS + 500 + busyCandidateGap - 1);
    expect(d.status).toBe('NOTHING_TO_SHOW');
  });

  it('expires candidate history even when the confirmation timer has not run', () => {
    const d = new QuiesceDetector();
    d.output(0);
    d.output(busyCandidateGap);
    expect(d.status).toBe('MIGHT_BE_BUSY');
    // No tick ran; output after a gap beyond busyCandidateGap + busyConfirmGap must not confirm BUSY.
    expect(d.output(busyCandidateGap + AWAIT_GRACE_MS + 1)).toBeNull();
    expect(d.status).toBe('NOTHING_TO_SHOW');
  });

  it('reset returns to NOTHING_TO_SHOW with no history and no deadline', () => {
    const d = new QuiesceDetector();
    steady(d, 0, 3000);
    d.reset();
    expect(d.status).toBe('NOTHING_TO_SHOW');
    expect(d.nextDeadline()).toBeNull();
    expect(d.tick(100_000)).toBeNull();
  });

  it('reports deadlines that, when ticked, make progress', () => {
    const d = new QuiesceDetector();
    steady(d, 0, 3000);
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const at = d.nextDeadline();
      if (at === null) break;
      const r = d.tick(at);
      if (r) seen.push(r);
    }
    expect(seen).toEqual(['settled']);
    expect(d.nextDeadline()).toBeNull();
  });

  it('is fully armed only in BUSY and MIGHT_NEED_ATTENTION', () => {
    const d = new QuiesceDetector();
    d.output(0);
    d.output(busyCandidateGap);
    expect(d.fullyArmed).toBe(false);
    d.output(busyCandidateGap + busyConfirmGap);
    expect(d.fullyArmed).toBe(true);
  });
});
