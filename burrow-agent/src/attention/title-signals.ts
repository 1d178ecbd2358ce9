/**
 * Window titles as attention signals, only where an agent documents a needs-you form (issue 23; reference
 * agent-signals.md). A title is no report in general — programs put anything there — so it counts only for
 * the agent the session's foreground command is keyed as, and only in the forms that agent is known to use:
 *
 * | watch key | working          | needs you                  | ready            |
 * | --------- | ---------------- | -------------------------- | ---------------- |
 * | gemini    | `✦ Working… (d)` | `✋ Action Required (d)`    | `◇ Ready (d)`    |
 *
 * Gemini CLI writes nothing else by default (no BEL, no OSC notification), so its title is the only prompt
 * signal it gives. Codex's `[ ! ] Action Required | …` title is not used: Codex writes OSC 7501 with a kind
 * at the same moment, a better signal. Claude Code's titles (`✳` idle, a spinner while working) have no
 * needs-you form: its turn end and prompts are found by WATCHING.
 *
 * The manager reads phases, not titles: a needs-you title rings once when it is entered, a ready title after
 * working is a turn end, and leaving needs-you by any other way withdraws what it raised.
 */

export type TitlePhase = 'working' | 'blocked' | 'ready';

interface AgentTitles {
  readonly working: RegExp;
  readonly blocked: RegExp;
  readonly ready: RegExp;
}

const AGENT_TITLES: ReadonlyMap<string, AgentTitles> = new Map([
  ['gemini', { working: /^✦\s/u, blocked: /^✋\s*Action Required\b/u, ready: /^◇\s*Ready\b/u }],
]);

/** The phase `title` signals for an agent keyed `watchKey`, or null when it signals nothing known. */
export function titlePhase(watchKey: string | null, title: string): TitlePhase | null {
  if (watchKey === null) return null;
  const forms = AGENT_TITLES.get(watchKey);
  if (forms === undefined) return null;
  if (forms.blocked.test(title)) return 'blocked';
  if (forms.ready.test(title)) return 'ready';
  if (forms.working.test(title)) return 'working';
  return null;
}

/** Watch keys whose titles are read as signals (for docs and tests). */
export const TITLE_SIGNAL_AGENTS: readonly string[] = [...AGENT_TITLES.keys()];
