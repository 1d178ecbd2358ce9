/**
 * The line `burrow attach` prints as the session appears: which session, for a resumed coding agent which
 * conversation it resumed (issue 27: the agent's own screen rarely says — Codex, Gemini CLI and opencode clear
 * it as they start, wiping the daemon's in-terminal banner), and the keys. Everything from the daemon is shown,
 * never interpreted (printable.ts).
 */
import { AGENT_DISPLAY_NAMES } from '../recovery/recovery-record.js';
import { printable } from '../text/printable.js';

/** What the attach answer says about the session, as far as this line uses it (SessionInfo, untrusted shape). */
export interface AttachedSession {
  readonly name?: unknown;
  readonly createdAt?: unknown;
  readonly resumed?: unknown;
}

export interface AttachKeys {
  readonly help: string;
  readonly fitHelp: string;
}

/** "Claude Code conversation 3f2a…" for a session `burrow resume` started, else null. */
export function resumedText(session: AttachedSession | undefined): string | null {
  const r = session?.resumed;
  if (typeof r !== 'object' || r === null) return null;
  const { agent, conversation } = r as { agent?: unknown; conversation?: unknown };
  if (typeof agent !== 'string' || typeof conversation !== 'string') return null;
  const name = Object.hasOwn(AGENT_DISPLAY_NAMES, agent)
    ? AGENT_DISPLAY_NAMES[agent as keyof typeof AGENT_DISPLAY_NAMES]
    : printable(agent, 32);
  return `${name} conversation ${printable(conversation, 128)}`;
}

/** Local "14:02" of a start time, or null when there is none. */
function clock(ms: unknown): string | null {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return null;
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/**
 * `[burrow: attached to NAME; resumed Claude Code conversation ID at 14:02; detach with …, fit it … with …]`
 * (the resumed part only for a resumed session). `ref` names the session as typed when the answer has no name.
 */
export function attachLine(ref: string, session: AttachedSession | undefined, keys: AttachKeys): string {
  const name = typeof session?.name === 'string' ? session.name : ref;
  const resumed = resumedText(session);
  const at = clock(session?.createdAt);
  const resumedPart = resumed === null ? '' : `; resumed ${resumed}${at === null ? '' : ` at ${at}`}`;
  return `[burrow: attached to ${printable(name, 64)}${resumedPart}; detach with ${keys.help}, fit it to this terminal with ${keys.fitHelp}]`;
}
