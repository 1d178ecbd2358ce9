/**
 * Codex CLI (checked against 0.171.0). A running Codex holds its conversation's rollout open for writing:
 * `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl` (CODEX_HOME defaults to ~/.codex), whose
 * first line is `session_meta` with the same id and the cwd. So the rollout among the files the session's
 * foreground processes hold open names the conversation exactly — with `--no-daemon` the TUI process holds it;
 * with the default background app-server, see codexDaemonCapture. `codex resume <thread id>` continues it
 * (options before the subcommand).
 */
import { basename, join } from 'node:path';
import { type ArgTable, set, splitArgs } from '../agent-args.js';
import { isFile, mtimeOf, parseJson, readHead, str } from '../store-files.js';
import type { AgentSpec, CaptureContext, Captured } from './agent-spec.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
export const ROLLOUT_NAME = new RegExp(
  `^rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-(${UUID})\\.jsonl$`,
);

/** From `codex --help` / `codex resume --help` 0.171.0. */
const ARGS: ArgTable = {
  value: set(
    '-c',
    '--config',
    '--enable',
    '--disable',
    '--remote',
    '--remote-auth-token-env',
    '-m',
    '--model',
    '--local-provider',
    '-p',
    '--profile',
    '-s',
    '--sandbox',
    '-C',
    '--cd',
    '--add-dir',
    '-a',
    '--ask-for-approval',
  ),
  optionalValue: set(),
  variadic: set('-i', '--image'),
  // --last / --all pick a conversation (resume's picker); the resume names one itself.
  drop: set('--last', '--all', '-i', '--image'),
};

/** The subcommands that continue an interactive conversation; every other one is not a conversation. */
const RESUMING = set('resume', 'fork');
/** `codex --help` 0.171.0: subcommands (a first positional that is none of these is a prompt). */
const SUBCOMMANDS = set(
  'agents',
  'exec',
  'e',
  'review',
  'login',
  'logout',
  'mcp',
  'plugin',
  'app-server',
  'remote-control',
  'completion',
  'update',
  'doctor',
  'sandbox',
  'debug',
  'apply',
  'a',
  'queue',
  'archive',
  'delete',
  'migrate-rollouts',
  'migrate-nfs-db',
  'unarchive',
  'cloud',
  'exec-server',
  'features',
  'help',
  'mcp-server',
);

export function codexHome(env: Readonly<Record<string, string>>): string | null {
  if (env.CODEX_HOME?.startsWith('/')) return env.CODEX_HOME;
  return env.HOME?.startsWith('/') ? join(env.HOME, '.codex') : null;
}

interface Rollout {
  readonly id: string;
  readonly path: string;
  /** `session_meta.payload.source`: "cli" for a person's conversation; sub-agents carry an object. */
  readonly fromPerson: boolean;
}

/** A rollout file's id and whether its header says it is a person's conversation; null if not a rollout. */
export function readRollout(path: string): Rollout | null {
  const m = ROLLOUT_NAME.exec(basename(path));
  if (m === null) return null;
  const head = readHead(path) ?? '';
  const nl = head.indexOf('\n');
  const meta = parseJson(nl < 0 ? head : head.slice(0, nl));
  const payload =
    meta?.type === 'session_meta' ? (meta.payload as Record<string, unknown> | undefined) : undefined;
  // A header still being written is read next time; the file name alone already names the thread.
  if (payload !== undefined && str(payload.id) !== null && payload.id !== m[1]) return null;
  const source = payload?.source;
  return { id: m[1]!, path, fromPerson: source === undefined || source === 'cli' };
}

function capture(ctx: CaptureContext): Captured | null {
  const home = codexHome(ctx.agent.env);
  if (home === null) return null;
  const sessions = `${join(home, 'sessions')}/`;
  const open = [...new Set(ctx.openFiles())].filter((p) => p.startsWith(sessions));
  const rollouts = open.map(readRollout).filter((r): r is Rollout => r !== null);
  // A person's conversation before a sub-agent's; the one written last if several.
  const best = rollouts.sort(
    (a, b) => Number(b.fromPerson) - Number(a.fromPerson) || (mtimeOf(b.path) ?? 0) - (mtimeOf(a.path) ?? 0),
  )[0];
  return best === undefined ? null : { conversation: best.id, transcript: best.path };
}

export const codex: AgentSpec = {
  agent: 'codex',
  programNames: ['codex'],
  carriedArgs(args) {
    const { kept, positionals } = splitArgs(args, ARGS);
    const first = positionals[0];
    if (first !== undefined && SUBCOMMANDS.has(first) && !RESUMING.has(first)) return null;
    return [...kept];
  },
  capture,
  resumeArgs: (carried, id) => [...carried, 'resume', id],
  async checkConversation(record) {
    if (record.transcript !== null && isFile(record.transcript)) return null;
    return `Codex's conversation ${record.conversation} is gone (its rollout file is no longer there)`;
  },
};
