/**
 * The host's side of parked awaits: one promise per (realm, awaitId), settled exactly once when the engine
 * emits its `await-resolved` (the engine guarantees exactly one per await, alert-spec Awaits).
 */
import {
  type AwaitCause,
  type CommandExit,
  MAX_AWAITS_PER_SESSION,
  MAX_SESSIONS,
} from '../attention/index.js';

/** How an await ended: its cause, and for `exit` / `died` the command's exit code and line. */
export interface AwaitResult extends CommandExit {
  readonly cause: AwaitCause;
}

/** Most awaits waiting at once across the daemon: the engine's own per-session bound times its sessions. */
export const MAX_PENDING_AWAITS = MAX_SESSIONS * MAX_AWAITS_PER_SESSION;
/** Random bytes in an await id (hex, so it matches AWAIT_ID_PATTERN). */
const AWAIT_ID_BYTES = 12;

function key(realmId: string, awaitId: string): string {
  return `${realmId.length}:${realmId}:${awaitId}`;
}

export function newAwaitId(): string {
  let hex = '';
  for (const b of crypto.getRandomValues(new Uint8Array(AWAIT_ID_BYTES)))
    hex += b.toString(16).padStart(2, '0');
  return hex;
}

export class PendingAwaits {
  readonly #waiting = new Map<string, (result: AwaitResult) => void>();

  get size(): number {
    return this.#waiting.size;
  }

  /** A promise for the await's result; null when the daemon already holds MAX_PENDING_AWAITS. */
  add(realmId: string, awaitId: string): Promise<AwaitResult> | null {
    if (this.#waiting.size >= MAX_PENDING_AWAITS) return null;
    return new Promise((resolve) => this.#waiting.set(key(realmId, awaitId), resolve));
  }

  /** Settles the await; a second resolution for the same id is ignored. Returns whether one was waiting. */
  resolve(realmId: string, awaitId: string, result: AwaitResult): boolean {
    const k = key(realmId, awaitId);
    const done = this.#waiting.get(k);
    if (done === undefined) return false;
    this.#waiting.delete(k);
    done(result);
    return true;
  }

  /** Settles everything still waiting with `cause` (host disposal). */
  resolveAll(cause: AwaitCause): void {
    const all = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const done of all) done({ cause, exitCode: null, command: null });
  }
}
