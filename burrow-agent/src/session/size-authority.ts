/**
 * Who decides a session's PTY size when several viewers watch it (DESIGN §4.3 and §6, protocol/SPEC.md
 * R-SIZE-1 … R-SIZE-7), as a pure state machine. The session feeds it arrivals, departures, take-backs, screen
 * sizes and keystrokes, with times from an injected clock; it answers with the PTY size and the holder, and the
 * session applies them. It never starts a timer: `deadline()` says when `tick()` is due.
 *
 * The rules, in short (tmux's `window-size latest` where the product agrees with it):
 *  - the last viewer to attach holds the size (R-SIZE-1), and any viewer takes it back with `fit` (R-SIZE-2);
 *  - the holder's screen changes resize the PTY; anyone else's are noted for when they hold it (R-SIZE-3);
 *  - when the holder leaves, the size goes to the remaining viewer used most recently (R-SIZE-4);
 *  - a phone whose connection dropped keeps the size for RESUME_WINDOW_MS, and its automatic re-attach (a
 *    resume) never takes the size from anyone: a network blip must not move the size (R-SIZE-5, R-SIZE-6);
 *  - typing does not move the size (unlike tmux's `latest`): one key answered from the phone must not reflow the
 *    desk's screen. It only counts for who is "most recent" at a hand-over, and ends a lost holder's wait
 *    (R-SIZE-7).
 */
import type { ViewerKind } from '../viewer/viewer.js';

export interface Size {
  readonly cols: number;
  readonly rows: number;
}

/**
 * How long a phone that lost its connection keeps holding the size (ms), and so how long its re-attach counts
 * as a return rather than a newcomer. Pocket notices a cut within POCKET_KEEPALIVE.deadAfterMs (15 s) at worst
 * and retries after 0.5, 1.5, 3.5 and 7.5 s (POCKET_BACKOFF): a drop of a few seconds is back well inside it,
 * so the size does not flip to the desk's terminal and back while the phone's user is reading.
 */
export const RESUME_WINDOW_MS = 15_000;

/** Why the size or its holder changed, as viewers are told (protocol SIZE_CHANGE_CAUSES). */
export type SizeCause = 'attach' | 'fit' | 'resize' | 'handover' | 'away' | 'return';

export interface SizeState {
  /** The size the PTY should have. */
  readonly size: Size;
  /** The identity holding the size; null once nobody is left to hold it. */
  readonly holder: string | null;
  /** The holder's kind (null with no holder). */
  readonly holderKind: ViewerKind | null;
  /** The holder left without saying so and may come back (R-SIZE-5). */
  readonly holderAway: boolean;
  readonly cause: SizeCause;
  /** Increases with every change of size or holder. */
  readonly seq: number;
}

/** One attachment as the authority sees it. */
export interface SizeViewer {
  /** This attachment (unique while attached). */
  readonly id: string;
  /**
   * The viewer across connections: a phone's device id, so its reconnect is recognised as the same viewer.
   * A local `burrow attach` is its own identity (each run is a new viewer).
   */
  readonly identity: string;
  readonly kind: ViewerKind;
}

interface Identity {
  readonly kind: ViewerKind;
  /** Attachment id → that attachment's screen size, in attach order. */
  readonly attachments: Map<string, Size>;
  /** The attachment whose screen is this identity's (the newest one, or the one that last resized). */
  latest: string;
  /** Order of the last attach, fit or keystroke (R-SIZE-4's "most recent"). */
  usedAt: number;
}

export class SizeAuthority {
  readonly #now: () => number;
  readonly #resumeWindowMs: number;
  readonly #identities = new Map<string, Identity>();
  /** attachment id → identity. */
  readonly #owners = new Map<string, string>();
  #size: Size;
  #holder: string | null = null;
  #cause: SizeCause = 'attach';
  #seq = 0;
  #order = 0;
  /** The holder's identity lost its last attachment at this time (R-SIZE-5); null otherwise. */
  #awaySince: number | null = null;
  /** The kind of the holder, kept while it is away (it has no attachments then). */
  #holderKind: ViewerKind | null = null;

  constructor(opts: { size: Size; now: () => number; resumeWindowMs?: number }) {
    this.#size = opts.size;
    this.#now = opts.now;
    this.#resumeWindowMs = opts.resumeWindowMs ?? RESUME_WINDOW_MS;
    if (!Number.isInteger(this.#resumeWindowMs) || this.#resumeWindowMs < 0)
      throw new RangeError('resumeWindowMs must be a non-negative integer');
  }

  state(): SizeState {
    return {
      size: this.#size,
      holder: this.#holder,
      holderKind: this.#holder === null ? null : this.#holderKind,
      holderAway: this.#awaySince !== null,
      cause: this.#cause,
      seq: this.#seq,
    };
  }

  /** The identity attachment `id` belongs to (undefined once detached). */
  identityOf(id: string): string | undefined {
    return this.#owners.get(id);
  }

  /**
   * A viewer attached with its screen size. `resume`: it is re-attaching a view it already had (a reconnect,
   * protocol `resumeFrom`), which never takes the size from another viewer (R-SIZE-6); anything else is an
   * attach, which does (R-SIZE-1).
   */
  attach(viewer: SizeViewer, size: Size, resume: boolean): boolean {
    if (this.#owners.has(viewer.id)) throw new RangeError(`attachment ${viewer.id} is already known`);
    let ident = this.#identities.get(viewer.identity);
    if (ident === undefined) {
      ident = { kind: viewer.kind, attachments: new Map(), latest: viewer.id, usedAt: 0 };
      this.#identities.set(viewer.identity, ident);
    }
    ident.attachments.set(viewer.id, size);
    ident.latest = viewer.id;
    this.#owners.set(viewer.id, viewer.identity);
    if (!resume) {
      ident.usedAt = ++this.#order;
      return this.#hold(viewer.identity, size, 'attach');
    }
    if (this.#holder === viewer.identity) {
      // Back within the window (or a second connection of the holder): it holds as before, at its screen's size.
      return this.#hold(viewer.identity, size, 'return');
    }
    if (this.#holder === null) {
      ident.usedAt = ++this.#order;
      return this.#hold(viewer.identity, size, 'attach');
    }
    return false;
  }

  /** "Fit to this screen": the viewer takes the size (R-SIZE-2). */
  fit(id: string, size: Size): boolean {
    const owner = this.#owner(id);
    const ident = this.#identities.get(owner)!;
    ident.attachments.set(id, size);
    ident.latest = id;
    ident.usedAt = ++this.#order;
    return this.#hold(owner, size, 'fit');
  }

  /** The viewer's screen changed size: applied if it holds the size, noted otherwise (R-SIZE-3). */
  resize(id: string, size: Size): boolean {
    const owner = this.#owner(id);
    const ident = this.#identities.get(owner)!;
    ident.attachments.set(id, size);
    ident.latest = id;
    if (this.#holder !== owner) return false;
    return this.#hold(owner, size, 'resize');
  }

  /**
   * The viewer typed. It becomes the most recent viewer for a later hand-over, and if the holder is away it
   * takes the size now instead of waiting out the window: someone is using the session (R-SIZE-7).
   */
  used(id: string): boolean {
    const owner = this.#owner(id);
    const ident = this.#identities.get(owner)!;
    ident.usedAt = ++this.#order;
    if (this.#awaySince === null || this.#holder === owner) return false;
    return this.#hold(owner, ident.attachments.get(ident.latest)!, 'handover');
  }

  /**
   * An attachment ended. `lost`: its connection dropped without a detach, so a phone may be back (R-SIZE-5);
   * a holder that detached, or a local terminal, hands the size over at once (R-SIZE-4).
   */
  detach(id: string, how: 'detached' | 'lost'): boolean {
    const owner = this.#owners.get(id);
    if (owner === undefined) return false;
    this.#owners.delete(id);
    const ident = this.#identities.get(owner)!;
    ident.attachments.delete(id);
    if (ident.attachments.size > 0) {
      if (ident.latest === id) ident.latest = [...ident.attachments.keys()].at(-1)!;
      if (this.#holder !== owner) return false;
      // Another connection of the same viewer still holds: its screen is the size now.
      return this.#hold(owner, ident.attachments.get(ident.latest)!, 'resize');
    }
    if (this.#holder !== owner) {
      this.#identities.delete(owner);
      return false;
    }
    if (how === 'lost' && ident.kind === 'remote' && this.#othersAttached(owner)) {
      this.#awaySince = this.#now();
      this.#cause = 'away';
      this.#seq++;
      return true;
    }
    return this.#handOver();
  }

  /** When `tick` must next run (clock time), or null. */
  deadline(): number | null {
    return this.#awaySince === null ? null : this.#awaySince + this.#resumeWindowMs;
  }

  /** The away holder's window ended: the size goes to the most recent remaining viewer (R-SIZE-5). */
  tick(): boolean {
    const due = this.deadline();
    if (due === null || this.#now() < due) return false;
    return this.#handOver();
  }

  #owner(id: string): string {
    const owner = this.#owners.get(id);
    if (owner === undefined) throw new RangeError(`attachment ${id} is not attached`);
    return owner;
  }

  #othersAttached(except: string): boolean {
    for (const [key, ident] of this.#identities)
      if (key !== except && ident.attachments.size > 0) return true;
    return false;
  }

  /** R-SIZE-4: the remaining viewer used most recently holds the size, at its screen's size. */
  #handOver(): boolean {
    let best: [string, Identity] | null = null;
    for (const entry of this.#identities) {
      if (entry[1].attachments.size === 0) continue;
      if (best === null || entry[1].usedAt > best[1].usedAt) best = entry;
    }
    if (best !== null) return this.#hold(best[0], best[1].attachments.get(best[1].latest)!, 'handover');
    // Nobody left: the PTY keeps its size until the next viewer.
    return this.#hold(null, this.#size, 'handover');
  }

  /**
   * Makes `identity` the holder at `size` (no longer away); true if anything a viewer is told changed (size,
   * holder, away). A former holder with no attachment left is forgotten.
   */
  #hold(identity: string | null, size: Size, cause: SizeCause): boolean {
    const before = this.state();
    const previous = this.#holder;
    if (previous !== null && previous !== identity && this.#identities.get(previous)?.attachments.size === 0)
      this.#identities.delete(previous);
    this.#holder = identity;
    this.#holderKind = identity === null ? null : this.#identities.get(identity)!.kind;
    this.#awaySince = null;
    this.#size = size;
    const changed =
      before.holder !== identity ||
      before.holderAway ||
      before.size.cols !== size.cols ||
      before.size.rows !== size.rows;
    if (!changed) return false;
    this.#cause = cause;
    this.#seq++;
    return true;
  }
}
