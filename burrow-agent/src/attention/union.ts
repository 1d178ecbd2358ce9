/**
 * The union of a set of sessions' alert views (alert-spec Workspace union): what Pocket's session list shows
 * for one Burrow. Display-only: it never feeds the engine or rings on its own.
 */
import type { SessionAlertView } from './engine.js';

export interface AlertUnion {
  /** Any session is ALERT_RINGING. */
  readonly ringing: boolean;
  /** Any session has todo. */
  readonly todo: boolean;
  /** Sessions ringing or TODO, each counted once. */
  readonly count: number;
  /** The earliest ringing session's episode start, else null. */
  readonly ringingSince: number | null;
}

export function computeUnion(views: Iterable<SessionAlertView>): AlertUnion {
  let ringing = false;
  let todo = false;
  let count = 0;
  let ringingSince: number | null = null;
  for (const v of views) {
    if (v.ringing) {
      ringing = true;
      if (v.ringingSince !== null && (ringingSince === null || v.ringingSince < ringingSince))
        ringingSince = v.ringingSince;
    }
    if (v.todo) todo = true;
    if (v.ringing || v.todo) count++;
  }
  return { ringing, todo, count, ringingSince };
}
