/**
 * Every JSON message on the control socket after the handshake, validated on receipt with bounds. Requests
 * carry an id the response echoes; an `attach` turns the connection into one session's stream, on which the
 * client sends stream messages (no id) and Input frames, and the daemon sends events, Output and Snapshot
 * frames. New commands (enroll, pair, devices — later work) add methods here.
 */
import * as v from 'valibot';
import { MAX_HISTORY_PAGE } from '../screen/line-history.js';
import { MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from '../screen/screen-model.js';
import { MAX_SESSION_NAME } from '../session/session-id.js';
import { MAX_COMMAND_ARG_BYTES, MAX_COMMAND_ARGS } from '../session/session-registry.js';

/** Longest session reference (id or name) and path accepted. */
export const MAX_REF_LENGTH = MAX_SESSION_NAME * 4;
export const MAX_PATH_LENGTH = 4096;

const ref = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_REF_LENGTH));
const cols = v.pipe(v.number(), v.integer(), v.minValue(MIN_COLS), v.maxValue(MAX_COLS));
const rows = v.pipe(v.number(), v.integer(), v.minValue(MIN_ROWS), v.maxValue(MAX_ROWS));
const offset = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));
const empty = v.strictObject({});

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
} as const;

export type Method = keyof typeof RequestParams;
export type Params<M extends Method> = v.InferOutput<(typeof RequestParams)[M]>;

export const RequestSchema = v.strictObject({
  id: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2 ** 31)),
  method: v.picklist(Object.keys(RequestParams) as Method[]),
  params: v.unknown(),
});

/** Messages a client sends on an attach stream. */
export const StreamMessageSchema = v.variant('type', [
  v.strictObject({ type: v.literal('resize'), cols, rows }),
  v.strictObject({ type: v.literal('presence'), focused: v.boolean() }),
  v.strictObject({ type: v.literal('typing') }),
  v.strictObject({ type: v.literal('detach') }),
]);
export type StreamMessage = v.InferOutput<typeof StreamMessageSchema>;

export type ErrorCode = 'bad-request' | 'not-found' | 'conflict' | 'internal';

export type Response =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | {
      readonly id: number;
      readonly ok: false;
      readonly error: { readonly code: ErrorCode; readonly message: string };
    };

/** Events the daemon sends on an attach stream (besides Output and Snapshot frames). */
export type StreamEvent =
  | { readonly event: 'resize'; readonly cols: number; readonly rows: number }
  | { readonly event: 'exit'; readonly exitCode: number | null; readonly signal: number | null }
  | { readonly event: 'closed'; readonly reason: string };

/** Header of a Snapshot frame. */
export interface SnapshotHeader {
  readonly cols: number;
  readonly rows: number;
  readonly offset: number;
  readonly historyEnd: number;
  readonly reason: 'attach' | 'resync';
}

/** Daemon status; the relay / enrollment / devices slots are filled by later work. */
export interface StatusResult {
  readonly pid: number;
  readonly startedAt: number;
  readonly uptimeMs: number;
  readonly version: string;
  readonly stateDir: string;
  readonly sessions: { readonly total: number; readonly running: number; readonly exited: number };
  readonly relay: { readonly state: 'not-configured' };
  readonly enrollment: { readonly enrolled: boolean };
  readonly devices: { readonly paired: number };
}
