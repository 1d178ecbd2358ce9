/**
 * The coding-agent CLIs Burrow's tests drive, pinned. They come from npm into a cache outside the clone
 * (install-agents.ts), never into the workspace's dependencies: together they are ~1.1 GB, and `npm ci` for
 * `npm start` must not fetch them. Changing a version here changes the cache directory (its name hashes this
 * list), so the next test run installs the new set; re-check tests/agents/README.md's per-agent facts then.
 */

export interface AgentCli {
  /** The npm package. */
  readonly package: string;
  /** Exact version; checked on the registry when pinned. */
  readonly version: string;
  /** The executable the package puts in node_modules/.bin. */
  readonly bin: string;
  /** What `<bin> --version` prints for this version (the install is verified against it). */
  readonly versionOutput: string;
}

export const AGENT_CLIS = {
  claude: {
    package: '@anthropic-ai/claude-code',
    version: '2.1.197',
    bin: 'claude',
    versionOutput: '2.1.197 (Claude Code)',
  },
  codex: { package: '@openai/codex', version: '0.171.0', bin: 'codex', versionOutput: 'codex-cli 0.171.0' },
  gemini: { package: '@google/gemini-cli', version: '0.61.0', bin: 'gemini', versionOutput: '0.61.0' },
  opencode: { package: 'opencode-ai', version: '1.18.33', bin: 'opencode', versionOutput: '1.18.33' },
} as const satisfies Record<string, AgentCli>;

export type AgentName = keyof typeof AGENT_CLIS;

export const AGENT_NAMES = Object.keys(AGENT_CLIS) as AgentName[];
