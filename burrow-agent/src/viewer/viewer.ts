/**
 * What a session tells a viewer, and what a viewer must provide. One abstraction for a local `burrow attach`
 * (over the control socket) and, later, a remote phone (over Noise through the relay): the session never knows
 * which it is talking to, only how much the viewer's transport has queued (`backlog`).
 */
import type { HistoryPage } from '../screen/screen-host.js';
import type { ScreenSnapshot } from '../screen/screen-model.js';
import type { SizeCause } from '../session/size-authority.js';

export type ViewerKind = 'local' | 'remote';

/** Who holds a session's size, as one viewer is told: itself, or another viewer of that kind. */
export type SizeHolder = 'you' | ViewerKind;

export type ViewerEvent =
  /**
   * Reset the terminal (RIS) and write `snapshot.data`; live output follows from `snapshot.offset`. Sent on
   * attach and again whenever the viewer fell too far behind (resync).
   */
  | {
      readonly type: 'snapshot';
      readonly snapshot: ScreenSnapshot;
      readonly reason: 'attach' | 'resync';
      /**
       * Older lines for a viewer that asked to keep its scrollback (Attachment `refillFrom`, protocol
       * R-ATTACH-8): plain text, ending where `snapshot` begins (`snapshot.historyEnd`). Null when not asked
       * or none older remain.
       */
      readonly refill: HistoryPage | null;
    }
  /** Raw PTY bytes starting at absolute stream offset `offset`; contiguous with what came before. */
  | { readonly type: 'output'; readonly offset: number; readonly data: Uint8Array }
  /**
   * The PTY's size or who holds it changed (protocol R-SIZE-*), in stream order: output before it was drawn
   * at the old size, output after it at this one. Also sent right after every snapshot (the state as of the
   * snapshot) and on a resume. `holder` is null once nobody holds it (never while this viewer is attached);
   * `holderAway`: the holder is a phone whose connection dropped and which may be back (R-SIZE-5).
   */
  | {
      readonly type: 'size';
      readonly cols: number;
      readonly rows: number;
      readonly cause: SizeCause;
      readonly holder: SizeHolder | null;
      readonly holderAway: boolean;
    }
  /** The program exited; the session stays listed until killed or cleared. */
  | { readonly type: 'exit'; readonly exitCode: number | null; readonly signal: number | null };

export type ViewerCloseReason = 'detached' | 'session-killed' | 'shutdown' | 'protocol-error';

/**
 * The transport side of one attached viewer. The kind decides what a full transport does:
 *  - `local` (`burrow attach`): lossless. Past LOCAL_VIEWER_HOLD_BYTES the session stops reading the PTY until
 *    the transport drains — a slow local terminal slows the program, like any terminal, and never loses a byte.
 *  - `remote` (a phone): a phone that keeps up never loses a byte, and a phone that does not never slows the
 *    program for long. Past MAX_VIEWER_BACKLOG_BYTES the phone waits and the PTY pauses for at most
 *    REMOTE_HOLD_MS: a phone that drains its window in that time (≥ ~3 MB/s) keeps up, and paces a flooding
 *    program as a terminal would. One that does not lets the program go on; it catches up from the session's
 *    output log when it drains, or, stuck longer than REMOTE_STALL_MS or further behind than the log keeps,
 *    is resynced from a fresh snapshot.
 */
export interface ViewerSink {
  readonly id: string;
  readonly kind: ViewerKind;
  /**
   * The viewer across connections, for size authority (R-SIZE-6): a phone's device id, so its reconnect is
   * known as the same viewer. Absent: this attachment is a viewer of its own (each `burrow attach`).
   */
  readonly identity?: string;
  /**
   * Largest `output` event this transport takes at once, in bytes (default DEFAULT_OUTPUT_EVENT_BYTES): the
   * session gathers PTY reads into events up to this size (sent within OUTPUT_FLUSH_MS), not one per read.
   */
  readonly maxOutputBytes?: number;
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
  /** This viewer's screen is now this size: the PTY follows if it holds the size, else it is noted (R-SIZE-3). */
  resize(cols: number, rows: number): void;
  /** "Fit to this screen": take the size and make the PTY this size (R-SIZE-2). */
  fit(cols: number, rows: number): void;
  presence(p: Presence): void;
  /** The transport's backlog dropped; a viewer that fell behind is caught up (resumed or resynced). */
  drained(): void;
  /** Send this viewer a fresh snapshot (`reason: 'resync'`); live output continues from its offset. */
  resync(): void;
  /**
   * Ends the attachment. `lost`: the viewer's connection dropped without a detach (a phone that may be back,
   * R-SIZE-5); the default is a deliberate detach.
   */
  detach(how?: 'detached' | 'lost'): void;
}

/**
 * Most bytes a remote viewer's transport may hold before the session stops feeding it. Over it, the viewer
 * gets no more live output until it drains; then it catches up from the output log, or is resynced from a
 * fresh snapshot if the log no longer holds its offset. A slow phone therefore never slows the PTY.
 */
export const MAX_VIEWER_BACKLOG_BYTES = 1024 * 1024;
/**
 * A local viewer's transport holding more than this (bytes) pauses the PTY until it drains: the bound on
 * what one `burrow attach` can queue in the daemon, and the reason a slow terminal never loses output.
 */
export const LOCAL_VIEWER_HOLD_BYTES = 256 * 1024;
/**
 * Longest the PTY waits (ms) for a remote viewer whose backlog passed MAX_VIEWER_BACKLOG_BYTES to drain to
 * DRAINED_BELOW_BYTES (api-connection.ts): 768 KiB in 250 ms is ~3 MB/s, far below any phone on a LAN or on
 * loopback, far above what a stalled or cellular one sustains while a program floods.
 */
export const REMOTE_HOLD_MS = 250;
/**
 * A remote viewer stuck over its backlog bound longer than this (ms) stops holding output in the log for
 * itself: it is resynced from a snapshot once it drains (a phone that stopped reading must not pin megabytes).
 */
export const REMOTE_STALL_MS = 2_000;
/**
 * Output is gathered into events for at most this long (ms) before it is sent; the first read after a quiet
 * spell, or after a viewer typed, goes out at once: a keystroke's echo is never delayed.
 */
export const OUTPUT_FLUSH_MS = 2;
/** Output event size for a sink that does not say (ViewerSink.maxOutputBytes). */
export const DEFAULT_OUTPUT_EVENT_BYTES = 64 * 1024;
/** Most viewers attached to one session at once. */
export const MAX_VIEWERS_PER_SESSION = 16;
/**
 * Most older lines a snapshot brings along for a viewer that keeps its scrollback (R-ATTACH-8): Pocket's own
 * scrollback (protocol MAX_HISTORY_LINES).
 */
export const MAX_REFILL_LINES = 10_000;
/**
 * Most characters of those lines (UTF-16 units; the oldest are left out past it): 10,000 lines of 400 columns,
 * so the refill plus a snapshot stays far inside protocol MAX_SNAPSHOT_BYTES whatever the lines hold.
 */
export const MAX_REFILL_CHARS = 4_000_000;
/**
 * Size changes remembered for viewers that are behind, so each gets them at the right point of the stream; a
 * viewer behind by more changes than this is resynced instead.
 */
export const MAX_SIZE_MARKS = 64;
