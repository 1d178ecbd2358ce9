/**
 * What of a session's alert state survives a restart (alert-spec Public State): only `todo` and the
 * sanitized notification, plus the status for diagnostics. Episodes, rings, progress cycles, exit arms,
 * WATCHING and awaits never persist, so a restored session never re-rings — except a ring whose push had not
 * gone out yet (`owed`, issue 23: restart keeps what was owed), which rings again so the push goes.
 */
import { type ActivityNotification, normalizeNotification } from './notification.js';

export interface PersistedAlert {
  readonly todo: boolean;
  readonly notification: ActivityNotification | null;
  /** Diagnostics only; never read back into state. */
  readonly status?: string;
  /** A ring was open and its push still due when this was written. */
  readonly owed?: boolean;
}

/** Longest diagnostic status string kept. */
const MAX_STATUS_CHARS = 32;

/** The JSON-ready form of a session's persisted alert state. */
export function serializeAlert(state: PersistedAlert): PersistedAlert {
  return {
    todo: state.todo,
    notification: state.notification,
    ...(state.status === undefined ? {} : { status: state.status }),
    ...(state.owed === true ? { owed: true } : {}),
  };
}

/**
 * Reads persisted alert state back. Anything malformed reads as no TODO; a notification this build cannot
 * validate reads as none while the TODO is kept.
 */
export function restoreAlert(raw: unknown): PersistedAlert {
  if (typeof raw !== 'object' || raw === null) return { todo: false, notification: null };
  const r = raw as Record<string, unknown>;
  const todo = r.todo === true;
  const status = typeof r.status === 'string' ? r.status.slice(0, MAX_STATUS_CHARS) : undefined;
  const notification = todo ? normalizeNotification(r.notification) : null;
  return {
    todo,
    notification,
    ...(status === undefined ? {} : { status }),
    ...(r.owed === true && notification !== null ? { owed: true } : {}),
  };
}
