import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALERT_SETTINGS_RANGES,
  applyAlertSettingsPatch,
  DEFAULT_ALERT_SETTINGS,
  normalizeAlertSettings,
} from './settings.js';

describe('alarm settings', () => {
  it('defaults every missing key, deferral on', () => {
    expect(normalizeAlertSettings({})).toEqual(DEFAULT_ALERT_SETTINGS);
    expect(DEFAULT_ALERT_SETTINGS.deferAlertsUntilQuiet).toBe(true);
  });

  it('drops unknown keys', () => {
    expect(Object.keys(normalizeAlertSettings({ speakEnabled: true, x: 1 })).sort()).toEqual(
      ['deferAlertsUntilQuiet', 'inactivityTimeoutMs', 'pushDelayMs', 'pushEnabled'].sort(),
    );
  });

  it('clamps numbers into range and never installs a NaN or absurd timer', () => {
    const s = normalizeAlertSettings({ inactivityTimeoutMs: 1, pushDelayMs: 1e12 });
    expect(s.inactivityTimeoutMs).toBe(ALERT_SETTINGS_RANGES.inactivityTimeoutMs.min);
    expect(s.pushDelayMs).toBe(ALERT_SETTINGS_RANGES.pushDelayMs.max);
    expect(normalizeAlertSettings({ pushDelayMs: Number.NaN }).pushDelayMs).toBe(
      DEFAULT_ALERT_SETTINGS.pushDelayMs,
    );
    expect(normalizeAlertSettings({ pushDelayMs: '5' }).pushDelayMs).toBe(DEFAULT_ALERT_SETTINGS.pushDelayMs);
  });

  it('keeps wrongly typed booleans at their value', () => {
    expect(normalizeAlertSettings({ pushEnabled: 'no' }).pushEnabled).toBe(
      DEFAULT_ALERT_SETTINGS.pushEnabled,
    );
  });

  it('a write validates too and keeps the fields it does not name', () => {
    const cur = normalizeAlertSettings({ pushDelayMs: 20_000, pushEnabled: false });
    const next = applyAlertSettingsPatch(cur, { pushDelayMs: -5, bogus: 1 });
    expect(next).toEqual({ ...cur, pushDelayMs: 0 });
  });

  it('reads any value as valid settings', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const s = normalizeAlertSettings(raw);
        for (const k of ['inactivityTimeoutMs', 'pushDelayMs'] as const) {
          expect(Number.isInteger(s[k])).toBe(true);
          expect(s[k]).toBeGreaterThanOrEqual(ALERT_SETTINGS_RANGES[k].min);
          expect(s[k]).toBeLessThanOrEqual(ALERT_SETTINGS_RANGES[k].max);
        }
        expect(typeof s.pushEnabled).toBe('boolean');
      }),
      { seed: 7, numRuns: 500 },
    );
  });
});
