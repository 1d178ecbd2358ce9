/**
 * Burrow → phone / viewer, inside a `connect`-mode Noise session (DESIGN §4.3). [SPEC: R-B-*]
 *
 * `attached`, `resync` and `history-page` carry a large `data` string (a serialized screen); they travel as
 * text-body frames (R-FRAME-3) so terminal escapes are not inflated by JSON escaping. `output` is binary.
 */
import * as v from 'valibot';
import { ErrorCode } from '../error-codes.js';
import { directCandidateEntries, directSdp, rejoinId } from './direct-fields.js';
import { capability, cols, displayText, intIn, offset, rid, rows, sessionId, version } from './fields.js';
import {
  MAX_CAPABILITIES,
  MAX_ERROR_TEXT_CHARS,
  MAX_LABEL_CHARS,
  MAX_REPORTED_DEVICES,
  MAX_RID,
  MAX_SESSIONS,
} from './limits.js';
import { networkPolicySchema } from './network-policy.js';
import { buildFilesSchema } from './pocket-build.js';
import { sessionEntrySchema } from './session-entry.js';
import { alertSettingsSchema, watchRulesSchema } from './settings.js';

/** What a test push achieved (DESIGN §4.4 step 4, as the Burrow summarises the relay's per-target report). */
export const PUSH_TEST_OUTCOMES = [
  'no_devices',
  'no_subscriptions',
  'zero_delivered',
  'partial',
  'delivered',
] as const;
export type PushTestOutcome = (typeof PUSH_TEST_OUTCOMES)[number];

/**
 * R-B-PUSH-2: no_devices ⇔ no targets; zero_delivered and no_subscriptions ⇔ targets but none delivered (the
 * latter when the relay held no subscription for any of them); partial ⇔ some; delivered ⇔ all.
 */
function outcomeFits(outcome: PushTestOutcome, targets: number, delivered: number): boolean {
  switch (outcome) {
    case 'no_devices':
      return targets === 0;
    case 'no_subscriptions':
    case 'zero_delivered':
      return targets > 0 && delivered === 0;
    case 'partial':
      return delivered > 0 && delivered < targets;
    case 'delivered':
      return targets > 0 && delivered === targets;
  }
}

/**
 * Why the size of a session or its holder changed (R-SIZE-*): a viewer attached (R-SIZE-1) or took the size
 * back (`fit`, R-SIZE-2), the holder's screen resized (R-SIZE-3), the holder left and another viewer holds it
 * now (`handover`, R-SIZE-4), the holder's connection dropped (`away`) or it came back (`return`, R-SIZE-5).
 */
export const SIZE_CHANGE_CAUSES = ['attach', 'fit', 'resize', 'handover', 'away', 'return'] as const;
export type SizeChangeCause = (typeof SIZE_CHANGE_CAUSES)[number];
/**
 * Who holds a session's size, as the receiving viewer is told (R-SIZE-8): itself, a terminal on the Burrow's
 * computer (`burrow attach`), or another remote viewer (a phone).
 */
export const SIZE_HOLDERS = ['you', 'local', 'remote'] as const;
export type SizeHolder = (typeof SIZE_HOLDERS)[number];

const msg = <T extends string, E extends v.ObjectEntries>(type: T, entries: E) =>
  v.strictObject({ type: v.literal(type), ...entries });

const errorCodes = Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]];

/** Fields of a screen snapshot, shared by `attached` and `resync` (R-ATTACH-2). */
const snapshotEntries = {
  session: sessionId,
  /** Output byte offset the snapshot reflects: live `output` continues from exactly here. */
  offset,
  cols,
  rows,
  /** Absolute line number of the first line in `data` (lines ever scrolled off count too). */
  firstLine: offset,
  /** Whether lines older than `firstLine` can still be fetched with `history`. */
  hasOlder: v.boolean(),
};

export const burrowControlSchema = v.variant('type', [
  msg('hello', {
    burrowName: displayText(MAX_LABEL_CHARS, 1),
    protocolVersion: intIn(1, MAX_RID, 'R-B-HELLO-1'),
    agentVersion: version,
    capabilities: v.pipe(
      v.array(capability),
      v.maxLength(MAX_CAPABILITIES, `R-B-HELLO-1: at most ${MAX_CAPABILITIES} capabilities`),
    ),
  }),
  msg('pong', { rid }),
  /**
   * R-FLOW-2: the total length of this connection's `input` payloads the Burrow has handed to its terminals, each
   * once that terminal had less than INPUT_WINDOW_BYTES of input waiting for its program.
   */
  msg('input-ack', { received: offset }),

  // Directory (R-DIR-*)
  msg('directory', {
    sessions: v.pipe(
      v.array(sessionEntrySchema),
      v.maxLength(MAX_SESSIONS, `R-DIR-6: at most ${MAX_SESSIONS} sessions`),
      v.check(
        (list) => new Set(list.map((e) => e.id)).size === list.length,
        'R-DIR-6: session ids are distinct',
      ),
    ),
  }),
  msg('directory-upsert', { entry: sessionEntrySchema }),
  msg('directory-remove', { session: sessionId }),

  // Terminals (R-ATTACH-*)
  msg('attached', { rid, ...snapshotEntries, data: v.string() }),
  msg('resumed', { rid, session: sessionId, offset, cols, rows }),
  msg('resync', { ...snapshotEntries, data: v.string() }),
  v.pipe(
    msg('history-page', {
      rid,
      session: sessionId,
      firstLine: offset,
      /** Exclusive end: the `beforeLine` the request named (or less, if those lines were trimmed meanwhile). */
      endLine: offset,
      hasOlder: v.boolean(),
      data: v.string(),
    }),
    v.check((m) => m.firstLine <= m.endLine, 'R-ATTACH-5: a history page ends at or after its first line'),
  ),
  msg('size-changed', {
    session: sessionId,
    cols,
    rows,
    cause: v.picklist(SIZE_CHANGE_CAUSES),
    /** R-SIZE-8: null only when nobody holds it (never while the receiver is attached). */
    holder: v.nullable(v.picklist(SIZE_HOLDERS)),
    /** R-SIZE-5: the holder is a phone whose connection dropped and which may come back. */
    holderAway: v.boolean(),
  }),

  // Request results
  msg('ok', { rid }),
  msg('created', { rid, session: sessionId }),
  msg('push-status', {
    rid,
    /** The Burrow's `pushEnabled` setting. */
    pushEnabled: v.boolean(),
    /** Whether the relay holds a Web Push subscription for this phone's deliveryId; null if it could not ask. */
    subscribed: v.nullable(v.boolean()),
  }),
  v.pipe(
    msg('push-test-result', {
      rid,
      outcome: v.picklist(PUSH_TEST_OUTCOMES),
      /** Active devices the push was sealed for, and how many the relay reported delivered. */
      targets: intIn(0, MAX_REPORTED_DEVICES, 'R-B-PUSH-1'),
      delivered: intIn(0, MAX_REPORTED_DEVICES, 'R-B-PUSH-1'),
    }),
    v.check((m) => m.delivered <= m.targets, 'R-B-PUSH-1: delivered is at most targets'),
    v.check(
      (m) => outcomeFits(m.outcome, m.targets, m.delivered),
      'R-B-PUSH-2: outcome agrees with the counts',
    ),
  ),
  /** Answer to settings-get / settings-set (with rid) or a broadcast after any change (rid null). */
  msg('settings', { rid: v.nullable(rid), settings: alertSettingsSchema }),
  msg('watch-rules', { rid: v.nullable(rid), rules: watchRulesSchema }),
  /**
   * R-B-BUILD-1: the Pocket build this Burrow vouches for (the manifest it was released with, R-BUILD-1), or
   * null when it has none. Sent to `pocket` viewers right after `directory`.
   */
  msg('pocket-build', { files: v.nullable(buildFilesSchema) }),
  /** R-DIRECT-1: the answer to a `direct-offer`; `rejoin` names this connection to a new relay socket (R-PATH-8). */
  msg('direct-answer', { rid, sdp: directSdp('answer'), rejoin: rejoinId }),
  msg('direct-candidate', directCandidateEntries),
  /** R-NET-3: after `directory` on every connection, as the answer to network-policy-get/-set, and on change. */
  msg('network-policy', { rid: v.nullable(rid), policy: networkPolicySchema }),
  msg('error', {
    rid: v.nullable(rid),
    code: v.picklist(errorCodes),
    message: displayText(MAX_ERROR_TEXT_CHARS),
  }),
]);

export type BurrowControlMessage = v.InferOutput<typeof burrowControlSchema>;

/** Live PTY output (binary frame, R-FRAME-4): `data` is the session's output bytes from `offset` on. */
export interface OutputMessage {
  readonly type: 'output';
  readonly session: string;
  readonly offset: number;
  readonly data: Uint8Array;
}

export type BurrowMessage = BurrowControlMessage | OutputMessage;
export type BurrowMessageType = BurrowMessage['type'];

/** The messages whose `data` string travels as a text-body frame. */
export const TEXT_BODY_TYPES: ReadonlySet<string> = new Set(['attached', 'resync', 'history-page']);
