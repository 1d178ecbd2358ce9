/**
 * Claude Code (checked against 2.1.197). While it runs, Claude Code keeps `<config>/sessions/<pid>.json`
 * (config = $CLAUDE_CONFIG_DIR, else ~/.claude): `{ pid, sessionId, cwd, procStart, kind, … }` — its own
 * record of which conversation that process is in, updated when it changes (`/clear`, `/resume`) and removed
 * when it exits. `procStart` is /proc's start time of that pid, so a stale file of an earlier process with a
 * reused pid is told apart. The conversation itself is `<config>/projects/<cwd slug>/<sessionId>.jsonl`,
 * written from the first message on; `claude --resume <sessionId>` continues it.
 */
import { basename, join } from 'node:path';
import { type ArgTable, set, splitArgs } from '../agent-args.js';
import { isFile, listDir, parseJson, readHead, str } from '../store-files.js';
import type { AgentSpec, CaptureContext, Captured } from './agent-spec.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** From `claude --help` 2.1.197. */
const ARGS: ArgTable = {
  value: set(
    '--agent',
    '--agents',
    '--append-system-prompt',
    '--debug-file',
    '--effort',
    '--fallback-model',
    '--input-format',
    '--json-schema',
    '--max-budget-usd',
    '--model',
    '-n',
    '--name',
    '--output-format',
    '--permission-mode',
    '--plugin-dir',
    '--plugin-url',
    '--remote-control-session-name-prefix',
    '--session-id',
    '--setting-sources',
    '--settings',
    '--system-prompt',
  ),
  optionalValue: set(
    '-d',
    '--debug',
    '--from-pr',
    '--prompt-suggestions',
    '--remote-control',
    '-r',
    '--resume',
    '-w',
    '--worktree',
  ),
  variadic: set(
    '--add-dir',
    '--allowedTools',
    '--allowed-tools',
    '--betas',
    '--disallowedTools',
    '--disallowed-tools',
    '--file',
    '--mcp-config',
    '--tools',
  ),
  // Which conversation, and one-shot or new-worktree starts: the resume says which conversation itself.
  drop: set(
    '-c',
    '--continue',
    '-r',
    '--resume',
    '--session-id',
    '--fork-session',
    '--from-pr',
    '-p',
    '--print',
    '-w',
    '--worktree',
    '--bg',
    '--background',
  ),
};

/** Words that start a subcommand rather than a conversation (`claude mcp …`, `claude doctor`). */
const SUBCOMMANDS = set(
  'agents',
  'auth',
  'auto-mode',
  'doctor',
  'gateway',
  'install',
  'mcp',
  'plugin',
  'plugins',
  'project',
  'setup-token',
  'ultrareview',
  'update',
  'upgrade',
);

export function claudeConfigDir(env: Readonly<Record<string, string>>): string | null {
  if (env.CLAUDE_CONFIG_DIR?.startsWith('/')) return env.CLAUDE_CONFIG_DIR;
  return env.HOME?.startsWith('/') ? join(env.HOME, '.claude') : null;
}

/** Claude Code's project folder name: every character but ASCII letters and digits becomes `-`. */
export function claudeProjectSlug(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/** `<config>/projects/<slug>/<id>.jsonl`, or another project folder holding `<id>.jsonl` (long paths are hashed). */
export function claudeTranscript(configDir: string, cwd: string, id: string): string | null {
  const projects = join(configDir, 'projects');
  const direct = join(projects, claudeProjectSlug(cwd), `${id}.jsonl`);
  if (isFile(direct)) return direct;
  for (const dir of listDir(projects)) {
    const p = join(projects, dir, `${id}.jsonl`);
    if (isFile(p)) return p;
  }
  return null;
}

function capture(ctx: CaptureContext): Captured | null {
  const config = claudeConfigDir(ctx.agent.env);
  if (config === null) return null;
  for (const p of [ctx.agent, ...ctx.group.filter((g) => g.pid !== ctx.agent.pid)]) {
    const rec = parseJson(readHead(join(config, 'sessions', `${p.pid}.json`), 64 * 1024) ?? '');
    if (rec === null || rec.pid !== p.pid) continue;
    // A file left by an earlier process that had this pid: its start time is another.
    if (rec.procStart !== undefined && String(rec.procStart) !== String(p.startTicks)) continue;
    if (rec.kind !== undefined && rec.kind !== 'interactive') continue;
    const id = str(rec.sessionId);
    if (id === null || !UUID.test(id)) continue;
    const transcript = claudeTranscript(config, str(rec.cwd) ?? p.cwd ?? '', id);
    // No transcript yet: nothing was said, there is nothing to resume.
    return transcript === null ? null : { conversation: id, transcript };
  }
  return null;
}

export const claude: AgentSpec = {
  agent: 'claude',
  programNames: ['claude'],
  carriedArgs(args) {
    const { kept, positionals } = splitArgs(args, ARGS);
    if (positionals.length > 0 && SUBCOMMANDS.has(positionals[0]!)) return null;
    if (args.includes('-p') || args.includes('--print')) return null;
    return [...kept];
  },
  capture,
  resumeArgs: (carried, id) => [...carried, '--resume', id],
  async checkConversation(record) {
    if (record.transcript !== null && isFile(record.transcript)) return null;
    const where = record.transcript === null ? '' : ` (${basename(record.transcript)} is no longer there)`;
    return `Claude Code's conversation ${record.conversation} is gone${where}`;
  },
};
