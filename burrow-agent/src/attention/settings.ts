/**
 * Alarm settings (alert-spec Alarm settings): validated and clamped on read and on write, unknown keys dropped,
 * missing keys defaulted, so a hand-edited file or a hostile message never installs a NaN or absurd timer.
 * Speech fields are out of scope (Pocket has no speech).
 */

export interface AlertSettings {
  /** The presence window: a viewer with no input for this long lapses idle. */
  readonly inactivityTimeoutMs: number;
  /** Gates deferral of terminal notifications and resumed-ring withdrawal. */
  readonly deferAlertsUntilQuiet: boolean;
  readonly pushEnabled: boolean;
  /** A push is due this long after its episode starts. */
  readonly pushDelayMs: number;
}

/** Inclusive clamps for the numeric fields; whole milliseconds. */
export const ALERT_SETTINGS_RANGES = Object.freeze({
  inactivityTimeoutMs: Object.freeze({ min: 5_000, max: 3_600_000 }),
  pushDelayMs: Object.freeze({ min: 0, max: 3_600_000 }),
});

export const DEFAULT_ALERT_SETTINGS: AlertSettings = Object.freeze({
  inactivityTimeoutMs: 60_000,
  deferAlertsUntilQuiet: true,
  pushEnabled: true,
  pushDelayMs: 10_000,
});

function clampMs(value: unknown, range: { min: number; max: number }, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(range.max, Math.max(range.min, Math.round(value)));
}

function bool(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

/** Reads any value as settings: every field validated and clamped, unknown keys dropped. */
export function normalizeAlertSettings(
  raw: unknown,
  base: AlertSettings = DEFAULT_ALERT_SETTINGS,
): AlertSettings {
  const r =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  return Object.freeze({
    inactivityTimeoutMs: clampMs(
      r.inactivityTimeoutMs,
      ALERT_SETTINGS_RANGES.inactivityTimeoutMs,
      base.inactivityTimeoutMs,
    ),
    deferAlertsUntilQuiet: bool(r.deferAlertsUntilQuiet, base.deferAlertsUntilQuiet),
    pushEnabled: bool(r.pushEnabled, base.pushEnabled),
    pushDelayMs: clampMs(r.pushDelayMs, ALERT_SETTINGS_RANGES.pushDelayMs, base.pushDelayMs),
  });
}

/** A write: fields present in `patch` replace (clamped) those of `current`; the rest stay. */
export function applyAlertSettingsPatch(current: AlertSettings, patch: unknown): AlertSettings {
  return normalizeAlertSettings(patch, current);
}
