/**
 * The push delivery scheduler (alert-spec Alarm settings → "The host decides when to deliver"; DESIGN §4.4,
 * §5): at most one push per episode, due at the episode's start + pushDelayMs. At the deadline it rechecks
 * that no viewer is present and consumes the deadline if that fails, never retrying. A source joining an
 * episode sends nothing; the ring clearing consumes what was pending; disabling push consumes all pending
 * work and enabling never replays an episode. It only decides; sealing and sending are someone else's.
 */

export interface PushDue {
  readonly sessionId: string;
  readonly episodeId: number;
}

interface Pending {
  readonly episodeId: number;
  readonly dueAt: number;
}

export class DeliveryScheduler {
  readonly #pending = new Map<string, Pending>();

  /** A new episode opened; a push is scheduled only while push is enabled at that moment. */
  episodeOpened(
    sessionId: string,
    episodeId: number,
    since: number,
    pushEnabled: boolean,
    pushDelayMs: number,
  ): void {
    if (!pushEnabled) return;
    this.#pending.set(sessionId, { episodeId, dueAt: since + pushDelayMs });
  }

  /** The episode ended: whatever it had pending is consumed. */
  episodeEnded(sessionId: string, episodeId: number): void {
    if (this.#pending.get(sessionId)?.episodeId === episodeId) this.#pending.delete(sessionId);
  }

  /** Disabling consumes pending work immediately; enabling schedules nothing for running episodes. */
  setPushEnabled(enabled: boolean): void {
    if (!enabled) this.#pending.clear();
  }

  sessionRemoved(sessionId: string): void {
    this.#pending.delete(sessionId);
  }

  /** Whether this episode's push is still to come. */
  pending(sessionId: string, episodeId: number): boolean {
    return this.#pending.get(sessionId)?.episodeId === episodeId;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  nextDeadline(): number | null {
    let best: number | null = null;
    for (const p of this.#pending.values()) if (best === null || p.dueAt < best) best = p.dueAt;
    return best;
  }

  /** Consumes every deadline reached by `now`; sends only those whose recheck passes. */
  due(now: number, anyViewerPresent: boolean): PushDue[] {
    const out: PushDue[] = [];
    for (const [sessionId, p] of this.#pending) {
      if (p.dueAt > now) continue;
      this.#pending.delete(sessionId);
      if (!anyViewerPresent) out.push({ sessionId, episodeId: p.episodeId });
    }
    return out;
  }
}
