/**
 * Awaits parked on one session (alert-spec Await): a program waits until the session finishes what it is
 * doing and learns why. `quiet` resolves on a settle, an exit or a notification; `exit` only on an exit. With
 * nothing running an await parks for one grace window and resolves `idle` if nothing started. Every await
 * has a host-side ceiling. The registry is the claimant the completion seam offers events to first.
 */
import { AWAIT_GRACE_MS, MAX_AWAIT_TIMEOUT_MS } from './timing.js';

export type AwaitUntil = 'quiet' | 'exit';
export type AwaitCause = 'quiet' | 'exit' | 'bell' | 'idle' | 'died' | 'cancelled' | 'timeout';
/** A completion signal as an await sees it. */
export type AwaitSignal = 'quiet' | 'exit' | 'bell';

/** Most awaits parked on one session; a further one is answered cancelled. */
export const MAX_AWAITS_PER_SESSION = 32;
/** Await ids: what a client mints, bounded and plain. */
export const AWAIT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface AwaitRequest {
  readonly awaitId: string;
  readonly until: AwaitUntil;
  readonly timeoutMs: number;
}

/**
 * What an await learns about a command that ended (issue 13: `burrow await --until exit && deploy` must tell
 * success from failure): its exit code (null when the shell did not say, or a signal ended the process) and
 * its command line. Attached to `exit` (the command that finished) and `died` (the session's process).
 */
export interface CommandExit {
  readonly exitCode: number | null;
  readonly command: string | null;
}

/** No command ended with this resolution. */
export const NO_EXIT: CommandExit = Object.freeze({ exitCode: null, command: null });

export interface AwaitResolution extends CommandExit {
  readonly realmId: string;
  readonly awaitId: string;
  readonly cause: AwaitCause;
}

interface Parked {
  readonly realmId: string;
  readonly awaitId: string;
  readonly until: AwaitUntil;
  readonly deadline: number;
  graceUntil: number | null;
}

/** Null when the request is well-formed; else why not. Bad requests are rejected, never clamped. */
export function awaitRequestProblem(req: unknown): string | null {
  if (typeof req !== 'object' || req === null) return 'not an object';
  const r = req as Record<string, unknown>;
  if (typeof r.awaitId !== 'string' || !AWAIT_ID_PATTERN.test(r.awaitId)) return 'bad awaitId';
  if (r.until !== 'quiet' && r.until !== 'exit') return 'until must be quiet or exit';
  const t = r.timeoutMs;
  if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0 || t > MAX_AWAIT_TIMEOUT_MS)
    return 'bad timeoutMs';
  return null;
}

function accepts(until: AwaitUntil, signal: AwaitSignal): boolean {
  return until === 'quiet' || signal === 'exit';
}

export class AwaitRegistry {
  readonly #parked: Parked[] = [];

  get size(): number {
    return this.#parked.length;
  }

  has(realmId: string, awaitId: string): boolean {
    return this.#parked.some((p) => p.realmId === realmId && p.awaitId === awaitId);
  }

  /** Parks a validated request; `running` says a foreground command is known to run (no grace then). */
  park(realmId: string, req: AwaitRequest, now: number, running: boolean): boolean {
    if (this.#parked.length >= MAX_AWAITS_PER_SESSION) return false;
    this.#parked.push({
      realmId,
      awaitId: req.awaitId,
      until: req.until,
      deadline: now + req.timeoutMs,
      graceUntil: running ? null : now + AWAIT_GRACE_MS,
    });
    return true;
  }

  /**
   * Offers a completion: every await it satisfies resolves on it (several may share one). Returns those, so
   * the caller knows whether the completion was claimed.
   */
  offer(signal: AwaitSignal, exit: CommandExit = NO_EXIT): AwaitResolution[] {
    return this.#take((p) => accepts(p.until, signal), signal, exit);
  }

  /** A command started: the grace window is over under either until; the await waits for a real signal. */
  commandStarted(): void {
    for (const p of this.#parked) p.graceUntil = null;
  }

  /** Meaningful output ends the grace window under quiet only. */
  output(): void {
    for (const p of this.#parked) if (p.until === 'quiet') p.graceUntil = null;
  }

  nextDeadline(): number | null {
    let best: number | null = null;
    for (const p of this.#parked) {
      const at = p.graceUntil === null ? p.deadline : Math.min(p.deadline, p.graceUntil);
      if (best === null || at < best) best = at;
    }
    return best;
  }

  /** Grace windows that saw nothing resolve idle; ceilings resolve timeout (claiming nothing). */
  tick(now: number): AwaitResolution[] {
    return [
      ...this.#take((p) => p.graceUntil !== null && p.graceUntil <= now && p.deadline > now, 'idle'),
      ...this.#take((p) => p.deadline <= now, 'timeout'),
    ];
  }

  cancel(realmId: string, awaitId: string): AwaitResolution[] {
    return this.#take((p) => p.realmId === realmId && p.awaitId === awaitId, 'cancelled');
  }

  cancelRealm(realmId: string): AwaitResolution[] {
    return this.#take((p) => p.realmId === realmId, 'cancelled');
  }

  resolveAll(cause: AwaitCause, exit: CommandExit = NO_EXIT): AwaitResolution[] {
    return this.#take(() => true, cause, exit);
  }

  #take(match: (p: Parked) => boolean, cause: AwaitCause, exit: CommandExit = NO_EXIT): AwaitResolution[] {
    const out: AwaitResolution[] = [];
    for (let i = 0; i < this.#parked.length; ) {
      const p = this.#parked[i]!;
      if (match(p)) {
        this.#parked.splice(i, 1);
        out.push({ realmId: p.realmId, awaitId: p.awaitId, cause, ...exit });
      } else i++;
    }
    return out;
  }
}
