/**
 * The part of an agent's environment a resume must give it again: what differs from the environment a new
 * session gets anyway (the daemon's). A person who exported ANTHROPIC_API_KEY in their shell, pointed
 * CODEX_HOME elsewhere or ran `env HOME=… gemini` gets the agent back with the same settings — and the same
 * store, so the same conversations. Shell bookkeeping (PWD, SHLVL, prompts, Burrow's own session variables)
 * is left out. Bounded by recovery-record.ts: the variables agents read first, then the rest by name, until
 * the budget is spent; what did not fit is named so the caller can say so.
 */
import {
  BASH_LOGIN_ENV,
  FISH_DATA_DIR_ENV,
  FISH_XDG_UNSET_ENV,
  NONCE_FILE_ENV,
  OPT_OUT_ENV,
  ZSH_USER_ZDOTDIR_ENV,
} from '../shell-integration/env-names.js';
import {
  MAX_RECOVERY_ENV_CHARS,
  MAX_RECOVERY_ENV_VALUE_CHARS,
  MAX_RECOVERY_ENV_VARS,
} from './recovery-record.js';

/** Set per shell or per terminal: never worth carrying to a new process. */
const SHELL_NOISE = new Set([
  '_',
  'PWD',
  'OLDPWD',
  'SHLVL',
  'TERM',
  'COLORTERM',
  'LINES',
  'COLUMNS',
  'PS1',
  'PS2',
  'PS3',
  'PS4',
  'PROMPT_COMMAND',
  'LS_COLORS',
  'HISTFILE',
  'HISTSIZE',
  'HISTFILESIZE',
  'HISTCONTROL',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'TERM_SESSION_ID',
  'VTE_VERSION',
  'WINDOWID',
  'TMUX',
  'TMUX_PANE',
  'STY',
  'COMP_WORDBREAKS',
]);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** What Burrow itself sets in a session: a new session gets its own. */
const BURROW_OWN = new Set([
  'BURROW_SESSION',
  NONCE_FILE_ENV,
  OPT_OUT_ENV,
  BASH_LOGIN_ENV,
  ZSH_USER_ZDOTDIR_ENV,
  FISH_DATA_DIR_ENV,
  FISH_XDG_UNSET_ENV,
]);

/** Names agents (and the programs they run) read to find their config, store and API: kept first. */
const FIRST =
  /^(?:HOME|PATH|USER|LANG|LC_[A-Z]+|XDG_[A-Z_]+|ANTHROPIC_\w+|CLAUDE_\w+|CODEX_\w+|OPENAI_\w+|GEMINI_\w+|GOOGLE_\w+|OPENCODE_\w+)$/;

export interface EnvDelta {
  readonly env: Record<string, string>;
  /** Variables that differed but did not fit the bounds. */
  readonly dropped: readonly string[];
}

export function envDelta(
  agentEnv: Readonly<Record<string, string>>,
  baseEnv: Readonly<Record<string, string | undefined>>,
): EnvDelta {
  const differing = Object.keys(agentEnv).filter(
    (k) =>
      ENV_NAME.test(k) &&
      !SHELL_NOISE.has(k) &&
      !BURROW_OWN.has(k) &&
      !agentEnv[k]!.includes('\0') &&
      agentEnv[k] !== baseEnv[k],
  );
  differing.sort((a, b) => Number(FIRST.test(b)) - Number(FIRST.test(a)) || (a < b ? -1 : a > b ? 1 : 0));
  const env: Record<string, string> = {};
  const dropped: string[] = [];
  let chars = 0;
  let count = 0;
  for (const k of differing) {
    const v = agentEnv[k]!;
    const cost = k.length + v.length;
    if (
      v.length > MAX_RECOVERY_ENV_VALUE_CHARS ||
      count >= MAX_RECOVERY_ENV_VARS ||
      chars + cost > MAX_RECOVERY_ENV_CHARS
    ) {
      dropped.push(k);
      continue;
    }
    env[k] = v;
    chars += cost;
    count++;
  }
  return { env, dropped };
}

/** The environment a resumed agent starts with: the daemon's, with the remembered differences over it. */
export function resumeEnv(
  baseEnv: Readonly<Record<string, string | undefined>>,
  delta: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(baseEnv)) if (v !== undefined) env[k] = v;
  return Object.assign(env, delta);
}
