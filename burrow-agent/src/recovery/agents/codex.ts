/**
 * Codex CLI (checked against 0.171.0). A running Codex holds its conversation's rollout open for writing:
 * `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl` (CODEX_HOME defaults to ~/.codex), whose
 * first line is `session_meta` with the same id and the cwd. So the rollout among the files the session's
 * foreground processes hold open names the conversation exactly (`codex --no-daemon`: the TUI process holds
 * it). By default Codex runs the conversation in a background app-server, which holds the rollouts of every
 * TUI it serves; then the rollout is attributed by time, as for Gemini CLI: the newest rollout for the same
 * CODEX_HOME and directory in which a turn started, whose thread began after this TUI started and before any
 * later Codex TUI for the same store and directory did. `codex resume <thread id>` continues it (options
 * before the subcommand).
 */
import { basename, join } from 'node:path';
import { type ArgTable, set, splitArgs } from '../agent-args.js';
import { isDirectory, isFile, jsonLines, listDir, mtimeOf, readHead, str } from '../store-files.js';
import type { AgentProcess, AgentSpec, CaptureContext, Captured } from './agent-spec.js';

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
  /** A person's conversation (`session_meta.payload.thread_source` "user"), not a sub-agent's. */
  readonly fromPerson: boolean;
  /** `session_meta.payload.cwd` and `.timestamp` (ms), when the header could be read. */
  readonly cwd: string | null;
  readonly startedAt: number | null;
  /** A turn started in it (`event_msg` `task_started`): the person said something. */
  readonly spoken: boolean;
}

/** A rollout file's id and what its header says; null if not a rollout (or its header names another thread). */
export function readRollout(path: string): Rollout | null {
  const m = ROLLOUT_NAME.exec(basename(path));
  if (m === null) return null;
  const lines = jsonLines(readHead(path) ?? '');
  const meta = lines[0];
  const payload =
    meta?.type === 'session_meta' ? (meta.payload as Record<string, unknown> | undefined) : undefined;
  // A header still being written is read next time; the file name alone already names the thread.
  if (payload !== undefined && str(payload.id) !== null && payload.id !== m[1]) return null;
  // `thread_source: "user"` in 0.171 for a person's conversation, run in the TUI (`source: "cli"`) or through
  // the background app-server (`source: "vscode"`); a sub-agent's thread says otherwise.
  const thread = payload?.thread_source;
  const started = Date.parse(str(payload?.timestamp) ?? '');
  return {
    id: m[1]!,
    path,
    fromPerson: (thread === undefined || thread === 'user') && typeof payload?.source !== 'object',
    cwd: str(payload?.cwd),
    startedAt: Number.isFinite(started) ? started : null,
    spoken: lines.some(
      (l) => l.type === 'event_msg' && (l.payload as { type?: unknown } | null)?.type === 'task_started',
    ),
  };
}

/** Most day folders looked at (sessions/YYYY/MM/DD from the TUI's start date to today, a day either side). */
const MAX_DAYS = 32;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The rollouts under `sessions/` in the day folders from `from` to `to` (ms), a day either side. */
function rolloutsBetween(sessions: string, from: number, to: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let t = from - DAY_MS, n = 0; t <= to + DAY_MS && n < MAX_DAYS; t += DAY_MS, n++) {
    const d = new Date(t);
    // Codex files rollouts by local date; the UTC date's folder is looked at too.
    for (const [y, mo, da] of [
      [d.getFullYear(), d.getMonth() + 1, d.getDate()],
      [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()],
    ] as const) {
      const dir = join(sessions, String(y), String(mo).padStart(2, '0'), String(da).padStart(2, '0'));
      if (seen.has(dir) || !isDirectory(dir)) continue;
      seen.add(dir);
      for (const name of listDir(dir)) if (ROLLOUT_NAME.test(name)) out.push(join(dir, name));
    }
  }
  return out;
}

/** The latest-started of `peers` that started at or before `at` (ms), or null. */
function ownerAt(at: number, peers: readonly AgentProcess[]): AgentProcess | null {
  let owner: AgentProcess | null = null;
  for (const p of peers)
    if (p.startedAt <= at && (owner === null || p.startedAt > owner.startedAt)) owner = p;
  return owner;
}

/** Codex's background app-server holds the rollout, not the TUI: the newest rollout this TUI started. */
function byTime(ctx: CaptureContext, home: string): Rollout | null {
  const cwd = ctx.agent.cwd;
  if (cwd === null) return null;
  const peers = ctx.peers().filter((p) => p.cwd === cwd && codexHome(p.env) === home);
  if (!peers.some((p) => p.pid === ctx.agent.pid)) peers.push(ctx.agent);
  let best: Rollout | null = null;
  let bestAt = 0;
  for (const path of rolloutsBetween(join(home, 'sessions'), ctx.agent.startedAt, Date.now())) {
    const r = readRollout(path);
    if (r === null || !r.fromPerson || !r.spoken || r.cwd !== cwd || r.startedAt === null) continue;
    if (ownerAt(r.startedAt, peers)?.pid !== ctx.agent.pid) continue;
    const at = mtimeOf(path) ?? r.startedAt;
    if (best === null || at > bestAt) {
      best = r;
      bestAt = at;
    }
  }
  return best;
}

function capture(ctx: CaptureContext): Captured | null {
  const home = codexHome(ctx.agent.env);
  if (home === null) return null;
  const sessions = `${join(home, 'sessions')}/`;
  const open = [...new Set(ctx.openFiles())].filter((p) => p.startsWith(sessions));
  const rollouts = open.map(readRollout).filter((r): r is Rollout => r !== null);
  // A person's conversation before a sub-agent's; the one written last if several.
  const held = rollouts.sort(
    (a, b) => Number(b.fromPerson) - Number(a.fromPerson) || (mtimeOf(b.path) ?? 0) - (mtimeOf(a.path) ?? 0),
  )[0];
  const best = held ?? byTime(ctx, home);
  return best == null ? null : { conversation: best.id, transcript: best.path };
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
