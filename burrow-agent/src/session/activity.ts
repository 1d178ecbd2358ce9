/**
 * The seam the attention engine (and later the remote API) plugs into. Output taps run on every PTY chunk in
 * stream order, before the screen model; activity listeners hear about input, resize, presence, spawn and
 * exit. Both are isolated: "a remote sink must never break the local pipe" (standalone-host-spec), so a
 * throwing tap or listener is logged and the pipeline goes on.
 */
import type { Presence, ViewerKind } from '../viewer/viewer.js';

export type SessionActivity =
  | {
      readonly type: 'spawn';
      readonly sessionId: string;
      readonly pid: number;
      readonly command: readonly string[];
      readonly cols: number;
      readonly rows: number;
      readonly at: number;
    }
  | {
      readonly type: 'input';
      readonly sessionId: string;
      readonly viewerId: string;
      readonly bytes: number;
      /** The bytes themselves (read-only view), so a listener can tell a keystroke from a terminal reply. */
      readonly data: Uint8Array;
      readonly at: number;
    }
  | {
      readonly type: 'resize';
      readonly sessionId: string;
      readonly viewerId: string | null;
      readonly cols: number;
      readonly rows: number;
      readonly at: number;
    }
  | {
      readonly type: 'attach' | 'detach';
      readonly sessionId: string;
      readonly viewerId: string;
      readonly kind: ViewerKind;
      readonly at: number;
    }
  | {
      readonly type: 'presence';
      readonly sessionId: string;
      readonly viewerId: string;
      readonly presence: Presence;
      readonly at: number;
    }
  /** The session left the registry (killed, or a restored entry cleared). */
  | { readonly type: 'remove'; readonly sessionId: string; readonly at: number }
  | {
      readonly type: 'exit';
      readonly sessionId: string;
      readonly exitCode: number | null;
      readonly signal: number | null;
      readonly at: number;
    };

export type ActivityListener = (activity: SessionActivity) => void;

/**
 * A pipeline stage that sees every output chunk before the screen model, with the chunk's absolute start
 * offset. The terminal parser → attention engine chain is one of these. `spawn` is called once per PTY
 * generation so a stage can retire per-generation state (a half-read sequence must not splice across).
 */
export interface OutputTap {
  /** `chunk` is a view of the PTY reader's buffer, valid only during the call: copy what you keep. */
  output(sessionId: string, chunk: Uint8Array, offset: number): void;
  spawn?(sessionId: string, generation: PtyGeneration): void;
  exit?(sessionId: string): void;
}

/** What a tap learns about a new PTY generation. */
export interface PtyGeneration {
  /** The shell-integration nonce injected into this PTY, or null when it runs without integration. */
  readonly nonce: string | null;
}

export type Logger = (level: 'info' | 'warn' | 'error', message: string) => void;
