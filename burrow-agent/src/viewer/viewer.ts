/**
 * What a session tells a viewer, and what a viewer must provide. One abstraction for a local `burrow attach`
 * (over the control socket) and, later, a remote phone (over Noise through the relay): the session never knows
 * which it is talking to, only how much the viewer's transport has queued (`backlog`).
 */
import type { ScreenSnapshot } from '../screen/screen-model.js';

export type ViewerKind = 'local' | 'remote';

export type ViewerEvent =
  /**
   * Reset the terminal (RIS) and write `snapshot.data`; live output follows from `snapshot.offset`. Sent on
   * attach and again whenever the viewer fell too far behind (resync).
   */
  | { readonly type: 'snapshot'; readonly snapshot: ScreenSnapshot; readonly reason: 'attach' | 'resync' }
  /** Raw PTY bytes starting at absolute stream offset `offset`; contiguous with what came before. */
  | { readonly type: 'output'; readonly offset: number; readonly data: Uint8Array }
  /** The PTY size changed (some viewer took the size, or this one did). */
  | { readonly type: 'resize'; readonly cols: number; readonly rows: number }
  /** The program exited; the session stays listed until killed or cleared. */
  | { readonly type: 'exit'; readonly exitCode: number | null; readonly signal: number | null };

export type ViewerCloseReason = 'detached' | 'session-killed' | 'shutdown' | 'protocol-error';

/** The transport side of one attached viewer. */
export interface ViewerSink {
  readonly id: string;
  readonly kind: ViewerKind;
  /** Bytes this viewer's transport has accepted but not yet delivered (socket writableLength, etc.). */
  backlog(): number;
  /** Hands an event to the transport. Must not throw; must not block. */
  deliver(event: ViewerEvent): void;
  /** The session ended this attachment. */
  close(reason: ViewerCloseReason): void;
}

/** A viewer's presence, for the attention engine: it is looking (focused) and/or interacting (typing). */
export type Presence = { readonly focused: boolean } | { readonly typing: true };

/** The session side of one attachment, held by the transport. */
export interface Attachment {
  readonly viewerId: string;
  /** Keystrokes / pasted bytes for the PTY. */
  input(data: Uint8Array): void;
  /** Make the PTY this size ("fit to this screen"; last attach or take-back wins). */
  resize(cols: number, rows: number): void;
  presence(p: Presence): void;
  /** The transport's backlog dropped; a viewer that fell behind is caught up (resumed or resynced). */
  drained(): void;
  detach(): void;
}

/**
 * Most bytes a viewer's transport may hold before the session stops feeding it and marks it behind. Over it,
 * the viewer gets no more live output until it drains; then it is resumed from the ring or resynced from a
 * fresh snapshot. A slow viewer therefore costs at most this much memory and never slows the PTY.
 */
export const MAX_VIEWER_BACKLOG_BYTES = 1024 * 1024;
/** Most viewers attached to one session at once. */
export const MAX_VIEWERS_PER_SESSION = 16;
