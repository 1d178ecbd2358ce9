/**
 * The phone's presence as the Burrow's attention engine needs it (alert-spec "Engagement": a viewer is present
 * while its window is focused and visible with input within inactivityTimeoutMs; DESIGN §5 "Viewers"). Pure
 * with an injected clock: the React hook feeds it DOM events and reports only changes.
 */
import type { PresenceState } from '@burrow/protocol';

/** The presence window until the Burrow's settings say otherwise (alert-spec `inactivityTimeoutMs`). */
export const DEFAULT_INACTIVITY_TIMEOUT_MS = 60_000;
/**
 * While present, input since the last `presence` sent re-sends it this often (issue 23: the Burrow restarts
 * its presence window at each `present`; a phone that only reported changes was lapsed to idle 60 s after
 * its last change however much it was used). Below the Burrow's smallest window (5 s), whatever it is set to.
 */
export const PRESENCE_REFRESH_MS = 4_000;

export interface PresenceInputs {
  readonly visible: boolean;
  readonly focused: boolean;
  /** ms timestamp of the last typing, pointer, wheel or composition event; null if none yet. */
  readonly lastInputAt: number | null;
}

export interface PresenceReport {
  readonly state: PresenceState;
  readonly visible: boolean;
  readonly focused: boolean;
}

/** away: not visible; idle: visible but unfocused or no input within the window; present otherwise. */
export function presenceOf(
  inputs: PresenceInputs,
  nowMs: number,
  inactivityTimeoutMs: number,
): PresenceReport {
  const recent = inputs.lastInputAt !== null && nowMs - inputs.lastInputAt < inactivityTimeoutMs;
  const state: PresenceState = !inputs.visible ? 'away' : inputs.focused && recent ? 'present' : 'idle';
  return { state, visible: inputs.visible, focused: inputs.focused };
}

/** When the report computed at `nowMs` next changes by itself (presence lapsing to idle), or null. */
export function nextPresenceChangeAt(
  inputs: PresenceInputs,
  nowMs: number,
  inactivityTimeoutMs: number,
): number | null {
  if (!inputs.visible || !inputs.focused || inputs.lastInputAt === null) return null;
  const lapse = inputs.lastInputAt + inactivityTimeoutMs;
  return lapse > nowMs ? lapse : null;
}

export function samePresence(a: PresenceReport | null, b: PresenceReport): boolean {
  return a !== null && a.state === b.state && a.visible === b.visible && a.focused === b.focused;
}

/**
 * Whether a present phone should tell the Burrow again that it is present: there was input since it last said
 * so, at least PRESENCE_REFRESH_MS ago (protocol R-ENG-1).
 */
export function presenceRefreshDue(
  report: PresenceReport,
  lastSentAt: number | null,
  lastInputAt: number | null,
  nowMs: number,
): boolean {
  return (
    report.state === 'present' &&
    lastSentAt !== null &&
    lastInputAt !== null &&
    lastInputAt > lastSentAt &&
    nowMs - lastSentAt >= PRESENCE_REFRESH_MS
  );
}
