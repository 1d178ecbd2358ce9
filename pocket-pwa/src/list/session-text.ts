/**
 * Words the session list shows (pure, so they are tested without rendering). All of it is plain text from the
 * directory, which the Burrow already sanitized (DESIGN §2); React renders it as text nodes only.
 */
import type { SessionEntry } from '@burrow/protocol';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "just now", "5 min ago", "3 h ago", "2 d ago". */
export function agoText(thenMs: number, nowMs: number): string {
  const d = Math.max(0, nowMs - thenMs);
  if (d < MINUTE) return 'just now';
  if (d < HOUR) return `${Math.floor(d / MINUTE)} min ago`;
  if (d < DAY) return `${Math.floor(d / HOUR)} h ago`;
  return `${Math.floor(d / DAY)} d ago`;
}

/** The preview line: the notification's title and body, or null. */
export function previewText(entry: SessionEntry): string | null {
  const n = entry.notification;
  if (n === null) return null;
  const parts = [n.title, n.body].filter((s) => s.trim() !== '');
  return parts.length === 0 ? null : parts.join(' — ');
}

/**
 * How an ended session ended, in words. An exit with no code is one the Burrow did not see: the program died
 * with the Burrow's daemon (a crash, a reboot) and the daemon lists it again after its restart (a PTY that
 * exits on its own always reports a code, or a signal as 128 + n). Said in words, not only by a colour.
 */
export function exitText(entry: SessionEntry): string | null {
  if (!entry.exited) return null;
  return entry.exitCode === null ? DIED_WITH_BURROW_TEXT : `exited (${entry.exitCode})`;
}

export const DIED_WITH_BURROW_TEXT = 'ended when Burrow restarted';

/** The agents' names as people know them (the Burrow sends `claude`, `codex`, …). */
const AGENT_NAMES: Readonly<Record<string, string>> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  opencode: 'opencode',
};

/** An agent's name as people know it ("Claude Code" for `claude`); an unknown one as the Burrow sent it. */
export function agentName(agent: string): string {
  return AGENT_NAMES[agent] ?? agent;
}

/**
 * When something happened, as a person reads it on the phone: "14:02" (or "2:02 PM") today, "3 Dec 14:02" on
 * another day (the phone's own locale and time zone).
 */
export function clockText(thenMs: number, nowMs: number): string {
  const then = new Date(thenMs);
  const time = then.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
  if (then.toDateString() === new Date(nowMs).toDateString()) return time;
  return `${then.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })} ${time}`;
}

/** What the session view's first line says of a session `resume` started (R-DIR-9), or null for any other. */
export interface ResumedWords {
  /** "Claude Code" */
  readonly agent: string;
  /** The agent's own id for the conversation, whole. */
  readonly conversation: string;
  /** When this session started on it: "14:02" (today), "3 Dec 14:02". */
  readonly started: string;
  /** The whole line in words, for its accessible name. */
  readonly label: string;
}

export function resumedWords(entry: SessionEntry, nowMs: number): ResumedWords | null {
  const r = entry.resumed;
  if (r === undefined || r === null) return null;
  const agent = agentName(r.agent);
  const started = clockText(entry.createdAt, nowMs);
  return {
    agent,
    conversation: r.conversation,
    started,
    label: `Resumed ${agent} conversation ${r.conversation} at ${started}`,
  };
}

/** "Claude Code conversation can be resumed", for a session whose agent can come back (R-DIR-8), else null. */
export function resumableText(entry: SessionEntry): string | null {
  const r = entry.resumable;
  if (!entry.exited || r === undefined || r === null) return null;
  return `${agentName(r.agent)} conversation can be resumed`;
}

/** The Resume button's words: "Resume Claude Code". */
export function resumeLabel(entry: SessionEntry): string {
  const agent = entry.resumable?.agent ?? '';
  return `Resume ${agentName(agent)}`.trim();
}

/**
 * How an ended session's line is coloured (issue 17 item 7): exit 0 is a program that finished as asked —
 * not an alarm, so not the "down" red; a non-zero code or a signal is a failure; dying with the Burrow is
 * neither. The words say it too (exitText), colour only repeats them.
 */
export function exitTone(entry: SessionEntry): 'ok' | 'failed' | 'unknown' {
  if (!entry.exited || entry.exitCode === null) return 'unknown';
  return entry.exitCode === 0 ? 'ok' : 'failed';
}

/** Ended sessions, which "Clear ended sessions" removes in one action. */
export function endedSessions(entries: Iterable<SessionEntry>): SessionEntry[] {
  return [...entries].filter((e) => e.exited);
}

/** An ended session the Burrow brought back from its previous run (see exitText): nothing to attach to. */
export function diedWithBurrow(entry: SessionEntry): boolean {
  return entry.exited && entry.exitCode === null;
}

/** The accessible summary of a row, so ringing and TODO are announced, not only coloured. */
export function rowLabel(entry: SessionEntry): string {
  const bits = [entry.name];
  if (entry.ringing) bits.push('ringing, needs you');
  if (entry.todo) bits.push('to do');
  const exit = exitText(entry);
  if (exit !== null) bits.push(exit);
  const resumable = resumableText(entry);
  if (resumable !== null) bits.push(resumable);
  return bits.join(', ');
}

/**
 * How to start a dead session again: the same command line through the login shell in the same directory, or
 * a plain shell if it was one (issue 5: "a dead agent can be restarted from the phone").
 */
export function restartArgv(entry: SessionEntry): string[] | null {
  return entry.command === null ? null : ['/bin/sh', '-lc', entry.command];
}
