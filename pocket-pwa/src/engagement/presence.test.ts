import { describe, expect, it } from 'vitest';
import { nextPresenceChangeAt, presenceOf, samePresence } from './presence.js';

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
