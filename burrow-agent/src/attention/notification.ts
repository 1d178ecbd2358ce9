/**
 * The one ActivityNotification a session keeps (alert-spec Clearing And TODO, Text And Security), its
 * richness order, and the texts the engine generates (COMMAND_EXIT, progress, WATCHING, BEL, OSC 7501, an
 * agent's title). Text arriving here was sanitized and bounded by the parser; the generated texts are
 * bounded here.
 */
import type { BlockedKind, ProgramState } from '../terminal/events.js';

/**
 * Where a notification's detail came from; the order of RICHNESS is the spec's richness order. `osc7501` is a
 * program's own status report and `title` an agent's window title in a documented needs-you form (issue 23).
 */
export type NotificationSource =
  | 'osc9'
  | 'osc99'
  | 'osc777'
  | 'osc7501'
  | 'title'
  | 'exit'
  | 'progress'
  | 'watching'
  | 'bell';

/** What a report says the program is waiting for or did (OSC 7501 `kind`, or its state). */
export type ReportKind = BlockedKind | 'blocked' | 'done' | 'error';
const REPORT_KINDS: readonly ReportKind[] = ['permission', 'question', 'auth', 'blocked', 'done', 'error'];

export interface ActivityNotification {
  readonly source: NotificationSource;
  readonly title: string | null;
  readonly body: string | null;
  /** What the program is waiting for or did, when its report said (OSC 7501, a title signal). */
  readonly kind?: ReportKind | null;
  /**
   * Lines read off the screen when the ring opened (issue 23: every ring says something useful): the
   * prompt-like lines around the cursor, sanitized and bounded (screen-detail.ts). Only a detail without
   * words of its own gets one — a bare BEL, WATCHING, a command exit, a report with no body.
   */
  readonly context?: string | null;
}

/** text report > COMMAND_EXIT > OSC 9;4 > WATCHING > BEL. A program status report and a title signal are reports. */
const RICHNESS: Readonly<Record<NotificationSource, number>> = {
  osc9: 4,
  osc99: 4,
  osc777: 4,
  osc7501: 4,
  title: 4,
  exit: 3,
  progress: 2,
  watching: 1,
  bell: 0,
};

export const NOTIFICATION_SOURCES = Object.keys(RICHNESS) as readonly NotificationSource[];

/** Longest generated summary of a command line in COMMAND_EXIT and progress texts. */
export const MAX_COMMAND_SUMMARY_CHARS = 80;
/** Longest title or body a restored notification may carry (the parser's own bound is lower). */
export const MAX_NOTIFICATION_FIELD_CHARS = 1024;
/** Longest screen context kept (issue 23: at most 3 lines / 200 characters; screen-detail.ts). */
export const MAX_CONTEXT_CHARS = 200;

/** Whether a detail has no words of its own, so the screen should supply them (issue 23). */
export function wantsContext(n: ActivityNotification): boolean {
  return n.body === null || n.source === 'exit' || n.source === 'watching' || n.source === 'bell';
}

/** The detail with `context` set (or cleared). */
export function withContext(n: ActivityNotification, context: string | null): ActivityNotification {
  const { context: _old, ...rest } = n;
  return context === null ? rest : { ...rest, context };
}

export function richness(n: ActivityNotification): number {
  return RICHNESS[n.source];
}

/** A joining source, a deferred notification, or a receipt replaces detail only at equal or higher rank. */
export function richer(
  current: ActivityNotification | null,
  incoming: ActivityNotification,
): ActivityNotification {
  return current === null || richness(incoming) >= richness(current) ? incoming : current;
}

/**
 * Shape check for a notification read back from disk (alert-spec: only a shape check — known source,
 * string-or-null fields, trimmed, at least one non-empty). Anything else reads as none.
 */
export function normalizeNotification(raw: unknown): ActivityNotification | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Record<string, unknown>;
  if (typeof r.source !== 'string' || !Object.hasOwn(RICHNESS, r.source)) return null;
  const field = (v: unknown): string | null | undefined => {
    if (v === null || v === undefined) return null;
    if (typeof v !== 'string' || v.length > MAX_NOTIFICATION_FIELD_CHARS) return undefined;
    const t = v.trim();
    return t === '' ? null : t;
  };
  const title = field(r.title);
  const body = field(r.body);
  if (title === undefined || body === undefined || (title === null && body === null)) return null;
  const out: { -readonly [K in keyof ActivityNotification]: ActivityNotification[K] } = {
    source: r.source as NotificationSource,
    title,
    body,
  };
  // Fields added later (issue 23) are optional: a file without them, or with a value this build cannot
  // read, keeps the notification without them.
  if (REPORT_KINDS.includes(r.kind as ReportKind)) out.kind = r.kind as ReportKind;
  if (typeof r.context === 'string' && r.context.length <= MAX_CONTEXT_CHARS && r.context.trim() !== '')
    out.context = r.context.trim();
  return out;
}

function summarize(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= MAX_COMMAND_SUMMARY_CHARS
    ? flat
    : `${chars.slice(0, MAX_COMMAND_SUMMARY_CHARS - 1).join('')}…`;
}

/**
 * COMMAND_EXIT: title "Command finished", body the summarized command and its exit code — for a signal the
 * shell's 128 + n, with the signal named (issue 23: one exit-code convention across `ls`, `await` and rings).
 */
export function commandExitNotification(
  commandLine: string | null,
  exitCode: number | null,
  signal: string | null = null,
): ActivityNotification {
  const what = commandLine ? summarize(commandLine) : 'Command';
  const code = exitCode === null ? 'exit code unknown' : `exit ${exitCode}${signal ? `, ${signal}` : ''}`;
  return { source: 'exit', title: 'Command finished', body: `${what} (${code})` };
}

/** Longest program name put into a generated title. */
const MAX_APP_CHARS = 32;

/**
 * An OSC 7501 report as a notification (issue 23): the program's own title when it gave one, else a title
 * from its state and kind ("codex needs your permission"); the body is its message, or none — then the
 * screen supplies the words (context).
 */
export function programStatusNotification(report: {
  readonly state: ProgramState;
  readonly kind: BlockedKind | null;
  readonly app: string | null;
  readonly title: string;
  readonly msg: string;
}): ActivityNotification {
  const who = report.app === null ? null : report.app.slice(0, MAX_APP_CHARS);
  const kind: ReportKind =
    report.state === 'blocked' ? (report.kind ?? 'blocked') : report.state === 'error' ? 'error' : 'done';
  const generated: Record<ReportKind, [string, string]> = {
    permission: ['needs your permission', 'Permission needed'],
    question: ['has a question', 'Question for you'],
    auth: ['needs you to sign in', 'Sign-in needed'],
    blocked: ['is waiting for you', 'Waiting for you'],
    done: ['finished', 'Finished'],
    error: ['failed', 'Failed'],
  };
  const [phrase, alone] = generated[kind];
  const title = report.title.trim() !== '' ? report.title : who === null ? alone : `${who} ${phrase}`;
  const body = report.msg.trim() === '' ? null : report.msg;
  return { source: 'osc7501', title, body, kind };
}

/** An agent's window title in a needs-you form (title-signals.ts): the title is the words; the screen adds more. */
export function titleNotification(title: string, kind: ReportKind): ActivityNotification {
  return { source: 'title', title: summarize(title), body: null, kind };
}

/** WATCHING: <watch key> went quiet. */
export function watchingNotification(watchKey: string): ActivityNotification {
  return { source: 'watching', title: `${summarize(watchKey)} went quiet`, body: null };
}

export const BELL_NOTIFICATION: ActivityNotification = Object.freeze({
  source: 'bell',
  title: 'Terminal bell',
  body: null,
});

export type ProgressOutcome = 'complete' | 'error' | 'warning';

/**
 * A progress cycle's end (alert-spec Terminal reports): titled by the running command — its watch key, else
 * its display command — or a generic title with none running; the body is `Progress <percent>%`, or none.
 */
export function progressNotification(
  name: string | null,
  outcome: ProgressOutcome,
  percent: number | null,
): ActivityNotification {
  const who = name ? summarize(name) : 'Task';
  const verb = outcome === 'error' ? 'failed' : outcome === 'warning' ? 'finished with warnings' : 'finished';
  return {
    source: 'progress',
    title: `${who} ${verb}`,
    body: percent === null ? null : `Progress ${percent}%`,
  };
}
