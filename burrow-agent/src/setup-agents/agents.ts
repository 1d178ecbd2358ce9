/**
 * The coding agents `burrow setup` knows (issue 23; reference agent-signals.md): what each says by default,
 * what its own setting adds, and where that setting lives.
 *
 * | agent    | by default, Burrow rings from                    | `burrow setup` sets                        |
 * | -------- | ------------------------------------------------ | ------------------------------------------ |
 * | claude   | WATCHING (its title is all it writes)            | preferredNotifChannel "iterm2" (OSC 9)     |
 * | codex    | OSC 7501 with a kind, BEL                        | [tui] notification_method "osc9" (OSC 9)   |
 * | gemini   | its title (✋ Action Required), WATCHING          | general.enableNotifications (OSC 777)      |
 * | opencode | OSC 99, once Burrow answered its capability query | nothing: Burrow's answer is the setup      |
 *
 * Without setup every ring still says something (the screen's words); with it the agent's own words ring at
 * once, often before the screen shows the prompt.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import {
  BURROW_NOTIF_CHANNEL,
  claudeSettingsPath,
  NOTIF_CHANNEL_KEY,
  parsePlainSettings,
  withNotifChannel,
} from '../setup-claude/claude-settings.js';
import type { AgentSetupSpec } from './agent-setup.js';
import {
  CODEX_KEY,
  CODEX_TABLE,
  CODEX_VALUE,
  codexConfigPath,
  codexCurrent,
  codexNotificationsOff,
  parseCodexConfig,
  withCodexNotifications,
} from './codex-config.js';
import { readConfigFile, SetupError } from './config-file.js';
import {
  GEMINI_PATH,
  geminiCurrent,
  geminiSettingsPath,
  parseGeminiSettings,
  withGeminiNotifications,
} from './gemini-settings.js';

/** Claude Code's channels that carry words Burrow reads (OSC 9, OSC 99); `terminal_bell` is a bare BEL. */
const CLAUDE_WORDED_CHANNELS = new Set(['iterm2', 'iterm2_with_bell', 'kitty']);

const shown = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

export const CLAUDE_SETUP: AgentSetupSpec = {
  agent: 'claude',
  label: 'Claude Code',
  setting: NOTIF_CHANNEL_KEY,
  value: JSON.stringify(BURROW_NOTIF_CHANNEL),
  effect: 'notifies in any terminal',
  because: 'Claude Code sends its notifications as OSC 9 in every terminal, and Burrow can pass them on',
  path: claudeSettingsPath,
  inspect(path, text) {
    const value = parsePlainSettings(path, text ?? '')[NOTIF_CHANNEL_KEY];
    return { before: shown(value), setUp: typeof value === 'string' && CLAUDE_WORDED_CHANNELS.has(value) };
  },
  rewrite: (path, text) => withNotifChannel(parsePlainSettings(path, text ?? '')),
};

export const CODEX_SETUP: AgentSetupSpec = {
  agent: 'codex',
  label: 'Codex CLI',
  setting: `[${CODEX_TABLE}] ${CODEX_KEY}`,
  value: JSON.stringify(CODEX_VALUE),
  effect: 'notifies with words in any terminal',
  because:
    'Codex writes its requests ("Approval requested: …") and turn ends as OSC 9 instead of a bare BEL, and ' +
    'Burrow passes them on word for word',
  path: codexConfigPath,
  inspect(path, text) {
    const config = parseCodexConfig(path, text);
    const value = codexCurrent(config);
    const off = codexNotificationsOff(config);
    return {
      before: shown(value),
      setUp: value === CODEX_VALUE && !off,
      ...(off
        ? {
            note: `[${CODEX_TABLE}] notifications = false in ${path}: Codex sends no notifications at all until it is true (Burrow leaves that choice to you).`,
          }
        : {}),
    };
  },
  rewrite: withCodexNotifications,
};

export const GEMINI_SETUP: AgentSetupSpec = {
  agent: 'gemini',
  label: 'Gemini CLI',
  setting: GEMINI_PATH.join('.'),
  value: 'true',
  effect: 'notifies in any terminal',
  because:
    'Gemini CLI writes its requests ("Approval required | …") as OSC 777 notifications instead of only ' +
    'changing its title, and Burrow passes them on word for word',
  path: geminiSettingsPath,
  inspect(path, text) {
    const value = geminiCurrent(parseGeminiSettings(path, text));
    return {
      before: shown(value),
      setUp: value === true,
      note: "a system settings file (GEMINI_CLI_SYSTEM_SETTINGS_PATH) or a project's .gemini/settings.json can still turn it off.",
    };
  },
  rewrite: withGeminiNotifications,
};

export const AGENT_SETUPS: readonly AgentSetupSpec[] = [CLAUDE_SETUP, CODEX_SETUP, GEMINI_SETUP];

/** Agents Burrow knows; those without a spec need no setup. */
export const KNOWN_AGENTS = ['claude', 'codex', 'gemini', 'opencode'] as const;
export type KnownAgent = (typeof KNOWN_AGENTS)[number];

export function setupFor(agent: string): AgentSetupSpec | null {
  return AGENT_SETUPS.find((s) => s.agent === agent) ?? null;
}

/** The first executable named `program` on `PATH`, or null. */
export function findOnPath(program: string, pathVar: string | undefined): string | null {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, program);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export interface AgentStatus {
  readonly agent: KnownAgent;
  /** Where it is on PATH, or null when not found. */
  readonly found: string | null;
  /** true / false; null when there is nothing to set up (opencode) or its settings cannot be read. */
  readonly setUp: boolean | null;
  /** Its settings file, or null when it has none to set. */
  readonly settings: string | null;
  /** One line: what is the case and what to do. */
  readonly detail: string;
}

/** Whether `agent` is set up here (reads its settings file; never writes). */
export function agentStatus(
  agent: KnownAgent,
  env: Readonly<Record<string, string | undefined>>,
  homedir: string,
): AgentStatus {
  const found = findOnPath(agent, env.PATH);
  const spec = setupFor(agent);
  if (spec === null) {
    return {
      agent,
      found,
      setUp: null,
      settings: null,
      detail: 'nothing to set up: Burrow answers its notification query, so it notifies with words',
    };
  }
  let path: string | null = null;
  try {
    path = spec.path(env, homedir);
    const current = spec.inspect(path, readConfigFile(path).text);
    return {
      agent,
      found,
      setUp: current.setUp,
      settings: path,
      detail: current.setUp
        ? `set up (${spec.setting} = ${current.before} in ${path})`
        : `not set up: \`burrow setup ${agent}\` makes it ${spec.effect.replace(/^notifies/, 'notify')}`,
    };
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    return { agent, found, setUp: null, settings: path, detail: `cannot tell: ${err.message}` };
  }
}

/**
 * The one-line hint `burrow new -- AGENT` prints for an agent that is not set up, or null (set up, unknown,
 * nothing to set up, or its settings unreadable — `burrow setup` says more then).
 */
export function setupHint(
  watchKey: string | null,
  env: Readonly<Record<string, string | undefined>>,
  homedir: string,
): string | null {
  if (watchKey === null || setupFor(watchKey) === null) return null;
  const status = agentStatus(watchKey as KnownAgent, env, homedir);
  if (status.setUp !== false) return null;
  return (
    `hint: ${setupFor(watchKey)!.label} is not set up to notify with words (Burrow still rings, with the ` +
    `screen's words); \`burrow setup ${watchKey}\` makes it say what it needs.`
  );
}
