/**
 * Every JSON message on the control socket after the handshake, validated on receipt with bounds. Requests
 * carry an id the response echoes; an `attach` turns the connection into one session's stream, on which the
 * client sends stream messages (no id) and Input frames, and the daemon sends events, Output and Snapshot
 * frames. A `pair` turns it into a pairing conversation instead: the daemon sends `pair-request` (the code
 * and the phone's label), the client answers `pair-answer`, the daemon ends with `pair-done`.
 */
import * as v from 'valibot';
import type { LastPush, PushWarning } from '../push/push-dispatch.js';
import type { LinkStatus } from '../relay-link/link-status.js';
import { MAX_HISTORY_PAGE } from '../screen/line-history.js';
import { MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from '../screen/screen-limits.js';
import { MAX_COMMAND_ARG_BYTES, MAX_COMMAND_ARGS } from '../session/command-bounds.js';
import { MAX_SESSION_NAME } from '../session/session-id.js';
import { MAX_STATE_TEXT } from '../state/burrow-state.js';

/** Longest session reference (id or name) and path accepted. */
export const MAX_REF_LENGTH = MAX_SESSION_NAME * 4;
export const MAX_PATH_LENGTH = 4096;

const ref = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_REF_LENGTH));
const cols = v.pipe(v.number(), v.integer(), v.minValue(MIN_COLS), v.maxValue(MAX_COLS));
const rows = v.pipe(v.number(), v.integer(), v.minValue(MIN_ROWS), v.maxValue(MAX_ROWS));
const offset = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));
const empty = v.strictObject({});
/** Longest `burrow await --timeout` (a day): the daemon keeps nothing for longer on a CLI's behalf. */
export const MAX_AWAIT_MS = 24 * 60 * 60 * 1000;
/** A WATCHING rule as typed; the engine validates its shape (attention/watch-rules.ts). */
const watchKey = v.pipe(v.string(), v.minLength(1), v.maxLength(256));
const stateText = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_STATE_TEXT));
/** A device id (devices/device-id.ts): 16 base64url characters. */
const deviceId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{16}$/));

export const RequestParams = {
  status: empty,
  list: empty,
  create: v.strictObject({
    name: v.optional(v.pipe(v.string(), v.maxLength(MAX_REF_LENGTH))),
    cwd: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_PATH_LENGTH)),
    command: v.pipe(
      v.array(v.pipe(v.string(), v.maxLength(MAX_COMMAND_ARG_BYTES))),
      v.maxLength(MAX_COMMAND_ARGS),
    ),
    cols: v.optional(cols),
    rows: v.optional(rows),
  }),
  kill: v.strictObject({ session: ref }),
  /** Start a resumable session's coding agent on its conversation again (src/recovery/). */
  resume: v.strictObject({ session: ref }),
  rename: v.strictObject({ session: ref, name: v.pipe(v.string(), v.maxLength(MAX_REF_LENGTH)) }),
  attach: v.strictObject({
    session: ref,
    cols: v.optional(cols),
    rows: v.optional(rows),
    resumeFrom: v.optional(offset),
  }),
  history: v.strictObject({
    session: ref,
    before: offset,
    count: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_HISTORY_PAGE)),
  }),
  enroll: v.strictObject({ relayUrl: stateText, secret: v.nullable(stateText) }),
  pair: v.strictObject({ label: v.nullable(v.pipe(v.string(), v.maxLength(MAX_SESSION_NAME * 4))) }),
  devices: empty,
  'devices-revoke': v.strictObject({ deviceId }),
  'push-test': empty,
  todo: v.strictObject({ session: ref, action: v.picklist(['on', 'off', 'toggle']) }),
  dismiss: v.strictObject({ session: ref }),
  await: v.strictObject({
    session: ref,
    until: v.picklist(['quiet', 'exit']),
    timeoutMs: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_AWAIT_MS)),
  }),
  'watch-list': empty,
  'watch-add': v.strictObject({ key: watchKey }),
  'watch-remove': v.strictObject({ key: watchKey }),
  'settings-get': empty,
  'settings-set': v.strictObject({
    key: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
    value: v.union([v.boolean(), v.pipe(v.number(), v.finite())]),
  }),
  // The network policy (protocol R-NET-*): read, and replaced whole (the daemon validates it).
  'network-policy-get': empty,
  'network-policy-set': v.strictObject({ policy: v.unknown() }),
} as const;

/** Methods that turn the connection into a stream (the response comes first, then stream traffic). */
export type StreamMethod = 'attach' | 'pair';

export type Method = keyof typeof RequestParams;
export type Params<M extends Method> = v.InferOutput<(typeof RequestParams)[M]>;

export const RequestSchema = v.strictObject({
  id: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2 ** 31)),
  method: v.picklist(Object.keys(RequestParams) as Method[]),
  params: v.unknown(),
});

/**
 * Messages a client sends on an attach stream. `resize`: the terminal's size changed (the PTY follows only
 * while this viewer holds the size, protocol R-SIZE-3); `fit`: take the size (R-SIZE-2); `resync`: send a fresh
 * snapshot (the CLI switching between passing bytes through and drawing a clipped view, cli/attach-view.ts).
 */
export const StreamMessageSchema = v.variant('type', [
  v.strictObject({ type: v.literal('resize'), cols, rows }),
  v.strictObject({ type: v.literal('fit'), cols, rows }),
  v.strictObject({ type: v.literal('resync') }),
  v.strictObject({ type: v.literal('presence'), focused: v.boolean() }),
  v.strictObject({ type: v.literal('typing') }),
  v.strictObject({ type: v.literal('detach') }),
  v.strictObject({ type: v.literal('pair-answer'), accept: v.boolean() }),
]);
export type StreamMessage = v.InferOutput<typeof StreamMessageSchema>;

/** `failed`: understood, but it could not be done; the message says why and what to do (nothing changed). */
export type ErrorCode = 'bad-request' | 'not-found' | 'conflict' | 'failed' | 'internal';

export type Response =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | {
      readonly id: number;
      readonly ok: false;
      readonly error: { readonly code: ErrorCode; readonly message: string };
    };

/** Why a session's size or its holder changed (size-authority.ts, protocol SIZE_CHANGE_CAUSES). */
export const SIZE_CAUSES = ['attach', 'fit', 'resize', 'handover', 'away', 'return'] as const;
/** Who holds the size, as this viewer is told: itself, a terminal on this computer, or a phone. */
export const SIZE_HOLDERS = ['you', 'local', 'remote'] as const;

/** Events the daemon sends on an attach stream (besides Output and Snapshot frames). */
export type StreamEvent =
  /** The PTY's size or its holder changed, in stream order (viewer.ts `size`). */
  | {
      readonly event: 'size';
      readonly cols: number;
      readonly rows: number;
      readonly cause: (typeof SIZE_CAUSES)[number];
      readonly holder: (typeof SIZE_HOLDERS)[number] | null;
      readonly holderAway: boolean;
    }
  | { readonly event: 'exit'; readonly exitCode: number | null; readonly signal: number | null }
  | { readonly event: 'closed'; readonly reason: string }
  | {
      readonly event: 'pair-request';
      readonly code: string;
      readonly label: string;
      readonly platform: string;
    }
  | {
      readonly event: 'pair-done';
      readonly outcome: 'paired' | 'declined' | 'timeout' | 'failed';
      readonly message: string;
      readonly deviceId: string | null;
      readonly label: string | null;
    };

/** Header of a Snapshot frame. */
export interface SnapshotHeader {
  readonly cols: number;
  readonly rows: number;
  readonly offset: number;
  readonly historyEnd: number;
  readonly reason: 'attach' | 'resync';
}

import type { ConnectionPath } from '../remote/remote-endpoint.js';

/** Daemon status (`burrow status --json` prints it with `running: true`). */
export interface StatusResult {
  readonly pid: number;
  readonly startedAt: number;
  readonly uptimeMs: number;
  readonly version: string;
  readonly stateDir: string;
  readonly sessions: { readonly total: number; readonly running: number; readonly exited: number };
  /**
   * `state` is the link's kind (`not-configured` when not enrolled); `text` the same in words
   * ("reconnecting in 4 s: …").
   */
  readonly relay: {
    readonly state: 'not-configured' | Exclude<LinkStatus['kind'], 'not-enrolled'>;
    readonly text: string;
  };
  readonly enrollment: {
    readonly enrolled: boolean;
    readonly relayUrl: string | null;
    readonly burrowId: string | null;
  };
  readonly devices: { readonly paired: number; readonly connected: number };
  readonly push: { readonly last: LastPush | null; readonly warnings: readonly PushWarning[] };
  /**
   * The direct path (absent from an older daemon): the policy, and each live connection's path — where its
   * messages go now, and whether its relay socket is still there.
   */
  readonly direct?: {
    readonly policy: 'allowed' | 'off';
    readonly connections: readonly ConnectionPath[];
  };
}

/** `devices` result: one row per paired phone (no keys, no delivery id). */
export interface DeviceRowResult {
  readonly deviceId: string;
  readonly label: string;
  readonly pairedAt: number;
  readonly lastSeenAt: number | null;
  readonly connected: boolean;
  readonly subscribed: boolean | null;
  readonly subscriptionUpdatedAt: number | null;
}
