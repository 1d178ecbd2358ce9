/**
 * What the remote API needs from the attention engine (DESIGN §5, §4.3 "Engagement"). The daemon wires the
 * engine in; the remote side never imports the engine, so the two evolve separately.
 */
import type { Notification, PresenceState, SessionStatus, TodoAction } from '@burrow/protocol';

export interface PublicAttentionState {
  readonly status: SessionStatus;
  readonly ringing: boolean;
  readonly ringingSince: number | null;
  readonly episodeId: string | null;
  readonly todo: boolean;
  readonly notification: Notification | null;
  readonly awaited: boolean;
  /** The latest OSC 0 / 2 window title the program set ('' before any). */
  readonly title: string;
  /** The running command line (shell integration), and the WATCHING key derived from it. */
  readonly command: string | null;
  readonly watchKey: string | null;
}

export interface AttentionPort {
  /** The public projection for the directory; called for every entry sent. */
  publicState(sessionId: string): PublicAttentionState;
  acknowledge(sessionId: string, viewerId: string, withInput: boolean): void;
  todo(sessionId: string, action: TodoAction): void;
  dismiss(sessionId: string): void;
  /** Per viewer (one per phone connection), for the engine's presence window. */
  presence(viewerId: string, report: { state: PresenceState; focused: boolean; visible: boolean }): void;
  focus(viewerId: string, sessionId: string | null): void;
  /**
   * The viewer typed into a session: input keeps its presence alive, as typing in a local `burrow attach`
   * does (issue 23: a phone typing every few seconds is never lapsed to idle).
   */
  activity?(viewerId: string): void;
  /** The viewer went away: forget its presence and focus. */
  viewerGone(viewerId: string): void;
  /** Called by the engine's owner when any public state changed, so directory deltas go out. */
  onChange(listener: (sessionId: string) => void): () => void;
}
