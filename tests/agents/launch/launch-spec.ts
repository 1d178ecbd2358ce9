/**
 * What it takes to start one agent against the fake model API: argv, environment, working directory and the
 * config files to write first, plus what its screen shows at each step and which key answers its permission
 * prompt. One builder per agent (claude.ts, codex.ts, gemini.ts, opencode.ts); README.md says what every
 * setting does and the version it was checked against.
 *
 * The environment is built from nothing (never the developer's): a real ANTHROPIC_API_KEY or OPENAI_API_KEY
 * in the test runner's environment must never reach an agent, and a developer's agent config must not change
 * what the tests see.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentName } from '../agent-clis.js';

export interface LaunchOptions {
  /** The agent's executable (from install-agents.ts). */
  readonly bin: string;
  /** The fake model API's base URL (`http://127.0.0.1:<port>`, no path). */
  readonly apiUrl: string;
  /** The model name the fake serves. */
  readonly model: string;
  /** The working directory (trusted where the agent asks), as a real path. */
  readonly workDir: string;
  /** An empty directory that becomes HOME and holds the agent's config; not under the OS temp dir (Codex). */
  readonly home: string;
  /** Turn on the agent's own notification settings (default: the agent's default notification config). */
  readonly notify?: boolean;
}

export interface AgentLaunch {
  readonly agent: AgentName;
  /** argv[0] is the executable. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Absolute path → content, written by {@link writeLaunchFiles} before the start. */
  readonly files: Readonly<Record<string, string>>;
  /** The rendered screen when the agent is ready for the user's first message. */
  readonly readyScreen: RegExp;
  /** The rendered screen while it asks permission to run the command. */
  readonly permissionScreen: RegExp;
  /** The key(s) that allow the command once from that prompt (its default choice). */
  readonly allowKeys: string;
  /**
   * argv that starts the agent again on its most recent conversation in `cwd` (same env and files). Checked
   * against the fake: after a kill and this start, the next model request carried the earlier turns, for all
   * four (README "Resume").
   */
  readonly resumeLatestArgv: readonly string[];
  /** The fake API key the agent sends (what a test asserts was redacted). */
  readonly apiKey: string;
}

/** A fake key in the shape of the real one, from the CSPRNG (tests handle it like any secret). */
export function fakeKey(prefix: string): string {
  return `${prefix}${randomBytes(24).toString('hex')}`;
}

/** The environment every agent starts from: PATH, HOME, a UTF-8 locale, a 256-colour xterm. */
export function baseEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    SHELL: '/bin/bash',
  };
}

export function writeLaunchFiles(launch: AgentLaunch): void {
  for (const [path, content] of Object.entries(launch.files)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content, { mode: 0o600 });
  }
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export { join };
