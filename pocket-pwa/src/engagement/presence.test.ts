import { describe, expect, it } from 'vitest';
import {
  nextPresenceChangeAt,
  PRESENCE_REFRESH_MS,
  presenceOf,
  presenceRefreshDue,
  samePresence,
} from './presence.js';

const T = 60_000;

describe('presenceOf', () => {
  it('is present only while visible, focused and with recent input', () => {
    expect(presenceOf({ visible: true, focused: true, lastInputAt: 1000 }, 1000 + T - 1, T).state).toBe(
      'present',
    );
    expect(presenceOf({ visible: true, focused: true, lastInputAt: 1000 }, 1000 + T, T).state).toBe('idle');
    expect(presenceOf({ visible: true, focused: false, lastInputAt: 1000 }, 1001, T).state).toBe('idle');
    expect(presenceOf({ visible: true, focused: true, lastInputAt: null }, 1001, T).state).toBe('idle');
    expect(presenceOf({ visible: false, focused: true, lastInputAt: 1000 }, 1001, T).state).toBe('away');
  });

  it('schedules the lapse to idle exactly at the end of the window', () => {
    const inputs = { visible: true, focused: true, lastInputAt: 1000 };
    expect(nextPresenceChangeAt(inputs, 2000, T)).toBe(1000 + T);
    expect(presenceOf(inputs, 1000 + T, T).state).toBe('idle');
    expect(nextPresenceChangeAt(inputs, 1000 + T, T)).toBeNull();
    expect(nextPresenceChangeAt({ ...inputs, visible: false }, 2000, T)).toBeNull();
  });

  it('compares reports', () => {
    const r = presenceOf({ visible: true, focused: true, lastInputAt: 1 }, 2, T);
    expect(samePresence(null, r)).toBe(false);
    expect(samePresence(r, { ...r })).toBe(true);
    expect(samePresence(r, { ...r, focused: false })).toBe(false);
  });
});

describe('presenceRefreshDue (issue 23: use keeps the phone present at the Burrow)', () => {
  const present = presenceOf({ visible: true, focused: true, lastInputAt: 0 }, 0, T);

  it('re-sends present after input, at most every PRESENCE_REFRESH_MS', () => {
    expect(presenceRefreshDue(present, 0, 100, PRESENCE_REFRESH_MS - 1)).toBe(false);
    expect(presenceRefreshDue(present, 0, 100, PRESENCE_REFRESH_MS)).toBe(true);
    expect(presenceRefreshDue(present, 0, 0, PRESENCE_REFRESH_MS * 3)).toBe(false); // no input since
    expect(presenceRefreshDue(present, null, 100, PRESENCE_REFRESH_MS)).toBe(false); // never sent: a change
    const idle = presenceOf({ visible: true, focused: false, lastInputAt: 100 }, 200, T);
    expect(presenceRefreshDue(idle, 0, 100, PRESENCE_REFRESH_MS)).toBe(false);
  });

  it('typing every 10 s for 3 minutes refreshes well inside every presence window', () => {
    let lastSent = 0;
    const sends: number[] = [];
    for (let t = 10_000; t <= 180_000; t += 10_000) {
      const report = presenceOf({ visible: true, focused: true, lastInputAt: t }, t, T);
      expect(report.state).toBe('present');
      if (presenceRefreshDue(report, lastSent, t, t)) {
        sends.push(t);
        lastSent = t;
      }
    }
    expect(sends).toHaveLength(18);
    for (let i = 1; i < sends.length; i++) expect(sends[i]! - sends[i - 1]!).toBeLessThan(T);
  });
});
