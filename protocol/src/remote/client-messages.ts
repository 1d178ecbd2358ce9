/**
 * Phone / viewer → Burrow, inside a `connect`-mode Noise session (DESIGN §4.3). [SPEC: R-C-*]
 *
 * Requests that expect an answer carry a `rid` the client chooses; the answer (or an `error`) echoes it.
 * Everything here except `input` is a control message (JSON); `input` is a binary frame (R-FRAME-4).
 */
import * as v from 'valibot';
import { directCandidateEntries, directSdp } from './direct-fields.js';
import { cols, displayText, intIn, offset, rawText, rid, rows, sessionId, version } from './fields.js';
import {
  MAX_ARG_CHARS,
  MAX_ARGV_ENTRIES,
  MAX_ARGV_TOTAL_CHARS,
  MAX_CWD_CHARS,
  MAX_HISTORY_LINES,
  MAX_LABEL_CHARS,
} from './limits.js';
import { networkPolicySchema } from './network-policy.js';
import { alertSettingsPatchSchema, watchRulesSchema } from './settings.js';

/** Which kind of viewer is connecting: the phone app, a local `burrow attach`, or a scripted test client. */
export const VIEWER_KINDS = ['pocket', 'cli', 'test'] as const;
export type ViewerKind = (typeof VIEWER_KINDS)[number];

export const PRESENCE_STATES = ['present', 'idle', 'away'] as const;
export type PresenceState = (typeof PRESENCE_STATES)[number];

export const TODO_ACTIONS = ['on', 'off', 'toggle'] as const;
export type TodoAction = (typeof TODO_ACTIONS)[number];

const msg = <T extends string, E extends v.ObjectEntries>(type: T, entries: E) =>
  v.strictObject({ type: v.literal(type), ...entries });

export const clientControlSchema = v.variant('type', [
  // R-C-HELLO-1: the first message after the handshake; nothing else is accepted before it.
  msg('hello', { appVersion: version, viewer: v.picklist(VIEWER_KINDS), cols, rows }),
  msg('ping', { rid }),
  // R-FLOW-1: how many bytes of whole Burrow frames this connection has received so far.
  msg('ack', { received: offset }),

  // Terminals
  msg('attach', {
    rid,
    session: sessionId,
    cols,
    rows,
    /** R-ATTACH-1: the offset this viewer's screen reflects (a re-attach); also a resume for R-SIZE-6. */
    resumeFrom: v.optional(offset),
    /** R-ATTACH-8: the oldest absolute line this viewer's scrollback holds; snapshots refill from there. */
    scrollbackFrom: v.optional(offset),
  }),
  msg('detach', { session: sessionId }),
  msg('history', {
    rid,
    session: sessionId,
    /** Absolute line number (R-ATTACH-5) of the oldest line the viewer holds; the page ends just before it. */
    beforeLine: offset,
    maxLines: intIn(1, MAX_HISTORY_LINES, 'R-C-HIST-1'),
  }),
  msg('resize', { session: sessionId, cols, rows }),
  msg('fit', { session: sessionId, cols, rows }),

  // Engagement
  msg('presence', { state: v.picklist(PRESENCE_STATES), focused: v.boolean(), visible: v.boolean() }),
  msg('focus', { session: v.nullable(sessionId) }),
  msg('acknowledge', { session: sessionId, withInput: v.boolean() }),
  msg('todo', { session: sessionId, action: v.picklist(TODO_ACTIONS) }),
  msg('dismiss', { session: sessionId }),

  // Session control
  msg('create', {
    rid,
    /** null: the owner's login shell (with shell integration); else the program and its arguments. */
    argv: v.nullable(
      v.pipe(
        v.array(rawText(MAX_ARG_CHARS)),
        v.minLength(1, 'R-C-CREATE-1: argv has at least the program'),
        v.maxLength(MAX_ARGV_ENTRIES, `R-C-CREATE-1: argv has at most ${MAX_ARGV_ENTRIES} entries`),
        v.check((a) => a[0] !== '', 'R-C-CREATE-1: argv[0] is not empty'),
        v.check(
          (a) => a.reduce((sum, arg) => sum + arg.length, 0) <= MAX_ARGV_TOTAL_CHARS,
          `R-C-CREATE-1: argv holds at most ${MAX_ARGV_TOTAL_CHARS} characters in all`,
        ),
      ),
    ),
    /** null: the owner's home directory. */
    cwd: v.nullable(displayText(MAX_CWD_CHARS, 1)),
    /** null: the Burrow names it. */
    name: v.nullable(displayText(MAX_LABEL_CHARS, 1)),
    cols,
    rows,
  }),
  msg('rename', { rid, session: sessionId, name: displayText(MAX_LABEL_CHARS, 1) }),
  msg('kill', { rid, session: sessionId }),
  msg('clear', { rid, session: sessionId }),
  /** R-C-RESUME-1: start a resumable session's coding agent on its conversation again (same id and name). */
  msg('resume', { rid, session: sessionId }),

  // Devices, push and settings
  msg('push-status', { rid }),
  msg('push-test', { rid }),
  msg('settings-get', { rid }),
  msg('settings-set', { rid, patch: alertSettingsPatchSchema }),
  msg('watch-rules-get', { rid }),
  msg('watch-rules-set', { rid, rules: watchRulesSchema }),
  msg('forget-me', { rid }),

  // The direct path (SPEC "The direct path"): the phone offers, the Burrow answers, both trickle candidates.
  msg('direct-offer', { rid, sdp: directSdp('offer') }),
  msg('direct-candidate', directCandidateEntries),
  msg('network-policy-get', { rid }),
  msg('network-policy-set', { rid, policy: networkPolicySchema }),
]);

export type ClientControlMessage = v.InferOutput<typeof clientControlSchema>;

/**
 * Bytes for a session's PTY (binary frame, R-FRAME-4). `kind` is `user` for keystrokes and paste (they count as
 * acknowledge-with-input and open the echo window) and `reply` for the viewer's terminal answering a query
 * (DA, DSR, focus reports), which the Burrow writes through without touching attention state.
 */
export interface InputMessage {
  readonly type: 'input';
  readonly session: string;
  readonly kind: 'user' | 'reply';
  readonly data: Uint8Array;
}

export type ClientMessage = ClientControlMessage | InputMessage;
export type ClientMessageType = ClientMessage['type'];
