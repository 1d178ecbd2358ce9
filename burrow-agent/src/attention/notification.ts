/**
 * The one ActivityNotification a session keeps (alert-spec Clearing And TODO, Text And Security), its
 * richness order, and the texts the engine generates (COMMAND_EXIT, progress, WATCHING, BEL). Text arriving
 * here was sanitized and bounded by the parser; the generated texts are bounded here.
 */

/** Where a notification's detail came from; the order of RICHNESS is the spec's richness order. */
export type NotificationSource = 'osc9' | 'osc99' | 'osc777' | 'exit' | 'progress' | 'watching' | 'bell';

export interface ActivityNotification {
  readonly source: NotificationSource;
  readonly title: string | null;
  readonly body: string | null;
}

/** text report > COMMAND_EXIT > OSC 9;4 > WATCHING > BEL. */
const RICHNESS: Readonly<Record<NotificationSource, number>> = {
  osc9: 4,
  osc99: 4,
  osc777: 4,
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
  return { source: r.source as NotificationSource, title, body };
}

function summarize(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= MAX_COMMAND_SUMMARY_CHARS
    ? flat
    : `${chars.slice(0, MAX_COMMAND_SUMMARY_CHARS - 1).join('')}…`;
}

/** COMMAND_EXIT: title "Command finished", body the summarized command and its exit code. */
export function commandExitNotification(
  commandLine: string | null,
  exitCode: number | null,
): ActivityNotification {
  const what = commandLine ? summarize(commandLine) : 'Command';
  const code = exitCode === null ? 'exit code unknown' : `exit ${exitCode}`;
  return { source: 'exit', title: 'Command finished', body: `${what} (${code})` };
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
