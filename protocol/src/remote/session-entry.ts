/**
 * One session as the directory shows it (DESIGN §4.3 "Directory", alert-spec "Public State"). [SPEC: R-DIR-*]
 */
import * as v from 'valibot';
import { cols, displayText, offset, rows, sessionId, timestamp } from './fields.js';
import {
  MAX_AGENT_NAME_CHARS,
  MAX_COMMAND_CHARS,
  MAX_CONVERSATION_ID_CHARS,
  MAX_CWD_CHARS,
  MAX_LABEL_CHARS,
  MAX_NOTIFICATION_BODY_CHARS,
  MAX_NOTIFICATION_TITLE_CHARS,
  MAX_TITLE_CHARS,
  MAX_WATCH_KEY_CHARS,
} from './limits.js';

/** The public status projection, first match wins, in the spec's order and with the spec's names. */
export const SESSION_STATUSES = [
  'ALERT_RINGING',
  'OSC_NOTIF_BUSY',
  'NOTHING_TO_SHOW',
  'MIGHT_BE_BUSY',
  'BUSY',
  'MIGHT_NEED_ATTENTION',
  'COMMAND_EXIT_ARMED',
  'WATCHING_DISABLED',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/**
 * Where a notification's detail came from, richest first (alert-spec "Clearing And TODO" richness order: a text
 * report > command exit > OSC 9;4 > watching > BEL). `osc7501` (a program's own status report) and `title` (an
 * agent's window title in a needs-you form) are reports too (issue 23).
 */
export const NOTIFICATION_SOURCES = [
  'osc9',
  'osc99',
  'osc777',
  'osc7501',
  'title',
  'command-exit',
  'progress',
  'watching',
  'bell',
] as const;
export type NotificationSource = (typeof NOTIFICATION_SOURCES)[number];

export const notificationSchema = v.strictObject({
  source: v.picklist(NOTIFICATION_SOURCES),
  title: displayText(MAX_NOTIFICATION_TITLE_CHARS),
  body: displayText(MAX_NOTIFICATION_BODY_CHARS),
});
export type Notification = v.InferOutput<typeof notificationSchema>;

/** What a resumable session would resume (R-DIR-8): the coding agent and its id for the conversation. */
export const resumableSchema = v.strictObject({
  agent: displayText(MAX_AGENT_NAME_CHARS, 1),
  conversation: displayText(MAX_CONVERSATION_ID_CHARS, 1),
});
export type Resumable = v.InferOutput<typeof resumableSchema>;

/**
 * What a session was started on by `resume` (R-DIR-9): the same shape as `resumable`, kept for the session's
 * life so every viewer can say which conversation it is (the agent's own screen may not: most clear it).
 */
export const resumedSchema = resumableSchema;
export type Resumed = Resumable;

export const sessionEntrySchema = v.pipe(
  v.strictObject({
    id: sessionId,
    /** The label the owner gave it (or the default); what push notifications are titled by. */
    name: displayText(MAX_LABEL_CHARS, 1),
    /** The window title the program set (OSC 0/2), or ''. */
    title: displayText(MAX_TITLE_CHARS),
    cwd: v.nullable(displayText(MAX_CWD_CHARS)),
    /** The foreground command line from shell integration, or null at a prompt / without integration. */
    command: v.nullable(displayText(MAX_COMMAND_CHARS)),
    watchKey: v.nullable(displayText(MAX_WATCH_KEY_CHARS, 1)),
    cols,
    rows,
    exited: v.boolean(),
    exitCode: v.nullable(v.pipe(v.number(), v.integer('R-DIR-1: exitCode must be an integer'))),
    createdAt: timestamp,
    lastActivityAt: timestamp,
    /** Bytes of output the session has produced so far: where a fresh attach would start. */
    outputOffset: offset,
    status: v.picklist(SESSION_STATUSES),
    ringing: v.boolean(),
    ringingSince: v.nullable(timestamp),
    episodeId: v.nullable(sessionId),
    todo: v.boolean(),
    notification: v.nullable(notificationSchema),
    awaited: v.boolean(),
    /**
     * Set when the session ran a coding agent when the Burrow's daemon stopped and `resume` can start it on the
     * same conversation; absent (or null) otherwise. Added within v1 (hello capability `resume`).
     */
    resumable: v.optional(v.nullable(resumableSchema)),
    /**
     * Set on a session that `resume` started: the coding agent and the conversation it resumed (from then on,
     * running or exited); absent (or null) otherwise. Added within v1, beside `resumable`.
     */
    resumed: v.optional(v.nullable(resumedSchema)),
  }),
  v.check((e) => e.exited || e.exitCode === null, 'R-DIR-2: a running session has no exitCode'),
  v.check(
    (e) => e.ringing === (e.ringingSince !== null) && e.ringing === (e.episodeId !== null),
    'R-DIR-3: ringingSince and episodeId are set exactly while ringing',
  ),
  v.check(
    (e) => e.ringing === (e.status === 'ALERT_RINGING'),
    'R-DIR-4: status is ALERT_RINGING exactly while ringing',
  ),
  v.check((e) => e.lastActivityAt >= e.createdAt, 'R-DIR-5: lastActivityAt is not before createdAt'),
  v.check((e) => e.exited || e.resumable == null, 'R-DIR-8: only an exited session is resumable'),
  v.check(
    (e) => e.resumable == null || e.resumed == null,
    'R-DIR-9: a session is not both resumable and resumed',
  ),
);
export type SessionEntry = v.InferOutput<typeof sessionEntrySchema>;
