/**
 * Engagement (alert-spec Engagement): viewers — each Pocket connection and each local `burrow attach` — report
 * presence and which session they look at. A viewer is present while it says so, is focused and visible, and
 * had input within inactivityTimeoutMs; a session is engaged while some present viewer looks at it. Kept per
 * viewer, so one viewer leaving never disengages a session another still engages.
 *
 * Deviation: the desktop spec keeps no host presence timer (its renderer reports lapses). A phone's page can
 * be frozen by the OS without reporting anything, so the host also lapses a silent viewer idle at its deadline.
 */

/** Most viewers tracked at once; a further one is refused with a RangeError. */
export const MAX_VIEWERS = 64;
/** Longest viewer id accepted. */
export const MAX_VIEWER_ID_CHARS = 128;

export type Presence = 'present' | 'idle' | 'away';
const PRESENCES: readonly Presence[] = ['present', 'idle', 'away'];

export interface PresenceReport {
  readonly presence: Presence;
  readonly focused: boolean;
  readonly visible: boolean;
}

/** Why a session stopped being engaged: only an idle lapse with focus unchanged releases held completions. */
export type DisengageReason = 'idle' | 'other';

export interface EngagementEdge {
  readonly sessionId: string;
  readonly engaged: boolean;
  readonly reason: DisengageReason;
}

interface Viewer {
  presence: Presence;
  focused: boolean;
  visible: boolean;
  lastInputAt: number;
  sessionId: string | null;
}

export function checkViewerId(viewerId: string): void {
  if (typeof viewerId !== 'string' || viewerId.length === 0 || viewerId.length > MAX_VIEWER_ID_CHARS) {
    throw new TypeError('viewer id must be a non-empty string of at most 128 characters');
  }
}

export class Engagement {
  readonly #viewers = new Map<string, Viewer>();
  #timeoutMs: number;
  /** Sessions engaged after the last recompute. */
  #engaged = new Set<string>();

  constructor(inactivityTimeoutMs: number) {
    this.#timeoutMs = inactivityTimeoutMs;
  }

  set inactivityTimeoutMs(ms: number) {
    this.#timeoutMs = ms;
  }

  #viewer(viewerId: string, now: number): Viewer {
    checkViewerId(viewerId);
    let v = this.#viewers.get(viewerId);
    if (!v) {
      if (this.#viewers.size >= MAX_VIEWERS) throw new RangeError(`at most ${MAX_VIEWERS} viewers`);
      v = { presence: 'away', focused: false, visible: false, lastInputAt: now, sessionId: null };
      this.#viewers.set(viewerId, v);
    }
    return v;
  }

  /** A presence transition. Focus or visibility returning counts as input (alert-spec Engagement). */
  report(viewerId: string, report: PresenceReport, now: number): EngagementEdge[] {
    if (
      typeof report !== 'object' ||
      report === null ||
      !PRESENCES.includes(report.presence) ||
      typeof report.focused !== 'boolean' ||
      typeof report.visible !== 'boolean'
    ) {
      throw new TypeError('presence report needs presence (present | idle | away), focused and visible');
    }
    const v = this.#viewer(viewerId, now);
    const gained =
      (report.focused && !v.focused) || (report.visible && !v.visible) || report.presence === 'present';
    const idleLapse =
      report.presence === 'idle' && report.focused === v.focused && report.visible === v.visible;
    v.presence = report.presence;
    v.focused = report.focused;
    v.visible = report.visible;
    if (gained) v.lastInputAt = now;
    return this.recompute(now, idleLapse ? 'idle' : 'other');
  }

  /** Typing, pointer, wheel or composition in the viewer: stamps a time, nothing else. */
  input(viewerId: string, now: number): EngagementEdge[] {
    const v = this.#viewer(viewerId, now);
    v.lastInputAt = now;
    if (v.presence === 'idle' && v.focused && v.visible) v.presence = 'present';
    return this.recompute(now, 'other');
  }

  /** Which session the viewer looks at (null: none). An absent viewer's look is kept but engages nothing. */
  look(viewerId: string, sessionId: string | null, now: number): EngagementEdge[] {
    this.#viewer(viewerId, now).sessionId = sessionId;
    return this.recompute(now, 'other');
  }

  /** The viewer is gone (connection closed, attach detached). */
  remove(viewerId: string, now: number): EngagementEdge[] {
    this.#viewers.delete(viewerId);
    return this.recompute(now, 'other');
  }

  /** A session went away: viewers looking at it now look at nothing. */
  forgetSession(sessionId: string): void {
    for (const v of this.#viewers.values()) if (v.sessionId === sessionId) v.sessionId = null;
    this.#engaged.delete(sessionId);
  }

  isPresent(viewerId: string, now: number): boolean {
    const v = this.#viewers.get(viewerId);
    return v !== undefined && this.#present(v, now);
  }

  #present(v: Viewer, now: number): boolean {
    return v.presence === 'present' && v.focused && v.visible && now - v.lastInputAt < this.#timeoutMs;
  }

  /** Push recheck: is any viewer present at all (alert-spec delivery: push only while no viewer is present)? */
  anyPresent(now: number): boolean {
    for (const v of this.#viewers.values()) if (this.#present(v, now)) return true;
    return false;
  }

  isEngaged(sessionId: string): boolean {
    return this.#engaged.has(sessionId);
  }

  /** The next presence lapse, or null. */
  nextDeadline(now: number): number | null {
    let best: number | null = null;
    for (const v of this.#viewers.values()) {
      if (!this.#present(v, now)) continue;
      const at = v.lastInputAt + this.#timeoutMs;
      if (best === null || at < best) best = at;
    }
    return best;
  }

  /** Lapses viewers whose window ran out; their disengagements are idle lapses. */
  tick(now: number): EngagementEdge[] {
    for (const v of this.#viewers.values()) {
      if (v.presence === 'present' && now - v.lastInputAt >= this.#timeoutMs) v.presence = 'idle';
    }
    return this.recompute(now, 'idle');
  }

  /** Recomputes engaged sessions and returns the edges; `reason` names why any disengagement happened. */
  recompute(now: number, reason: DisengageReason): EngagementEdge[] {
    const next = new Set<string>();
    for (const v of this.#viewers.values())
      if (v.sessionId !== null && this.#present(v, now)) next.add(v.sessionId);
    const edges: EngagementEdge[] = [];
    for (const s of next)
      if (!this.#engaged.has(s)) edges.push({ sessionId: s, engaged: true, reason: 'other' });
    for (const s of this.#engaged) if (!next.has(s)) edges.push({ sessionId: s, engaged: false, reason });
    this.#engaged = next;
    return edges;
  }
}
