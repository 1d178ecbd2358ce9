/**
 * opencode (checked against 1.18.33). Conversations live in a SQLite database
 * (`$XDG_DATA_HOME/opencode/opencode.db`, default ~/.local/share) that records no process; but every opencode
 * process logs to `<data>/log/opencode.log`, which it holds open, one line per event tagged with its run id:
 * `run=<run> message="creating instance" directory=<dir>` when it starts, `message=created id=ses_…` when a
 * conversation begins (at the first message), `message=loop session.id=ses_…` / `message=process
 * session.id=ses_…` while it works on one. The log names which run talks in which conversation; a run is the
 * process for the same store that started last before the run's first line (every opencode process on the
 * machine is considered). Two opencode processes started within its start-up time of each other, in one
 * store, can be confused; otherwise it is exact. `opencode --session <id>` continues a conversation; whether
 * it still exists is asked of opencode itself (`opencode session list --format json` in that directory).
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { type ArgTable, set, splitArgs } from '../agent-args.js';
import { readRange } from '../store-files.js';
import type { AgentProcess, AgentSpec, CaptureContext, Captured } from './agent-spec.js';

export const OPENCODE_ID = /^ses_[A-Za-z0-9]{10,64}$/;
/** Log bytes read per log file per capture (a busy log is caught up over several passes). */
export const MAX_LOG_READ_BYTES = 4 * 1024 * 1024;
/** On first sight of a log this large, reading starts this far from its end (older runs are long gone). */
export const LOG_TAIL_BYTES = 16 * 1024 * 1024;
/** Runs remembered per log (oldest forgotten first). */
export const MAX_LOG_RUNS = 1024;
/** How long `opencode session list` may take when a resume checks the conversation. */
export const SESSION_LIST_TIMEOUT_MS = 60_000;
const MAX_SESSION_LIST_BYTES = 8 * 1024 * 1024;

/** From `opencode --help` 1.18.33. */
const ARGS: ArgTable = {
  value: set(
    '--log-level',
    '--port',
    '--hostname',
    '--mdns-domain',
    '-m',
    '--model',
    '-s',
    '--session',
    '--prompt',
    '--agent',
    '--replay-limit',
  ),
  optionalValue: set(),
  variadic: set('--cors'),
  drop: set('-c', '--continue', '-s', '--session', '--fork', '--prompt'),
};
const SUBCOMMANDS = set(
  'completion',
  'acp',
  'mcp',
  'attach',
  'run',
  'debug',
  'providers',
  'auth',
  'agent',
  'upgrade',
  'uninstall',
  'serve',
  'web',
  'models',
  'stats',
  'export',
  'import',
  'github',
  'pr',
  'session',
  'plugin',
  'plug',
  'db',
);

export function opencodeDataDir(env: Readonly<Record<string, string>>): string | null {
  if (env.XDG_DATA_HOME?.startsWith('/')) return join(env.XDG_DATA_HOME, 'opencode');
  return env.HOME?.startsWith('/') ? join(env.HOME, '.local', 'share', 'opencode') : null;
}

export interface LogRun {
  /** Time of the run's first line (ms since the epoch). */
  readonly firstAt: number;
  directory: string | null;
  /** The conversation it touched last. */
  session: string | null;
  sessionAt: number;
}

const LINE = /^timestamp=(\S+) level=\S+ run=([A-Za-z0-9]+) message=(.*)$/;

/** Reads one log line into `runs` (pure). */
export function readLogLine(line: string, runs: Map<string, LogRun>): void {
  const m = LINE.exec(line);
  if (m === null) return;
  const at = Date.parse(m[1]!);
  if (!Number.isFinite(at)) return;
  const id = m[2]!;
  let run = runs.get(id);
  if (run === undefined) {
    if (runs.size >= MAX_LOG_RUNS) runs.delete(runs.keys().next().value as string);
    run = { firstAt: at, directory: null, session: null, sessionAt: 0 };
    runs.set(id, run);
  }
  const rest = m[3]!;
  if (run.directory === null && rest.startsWith('"creating instance" directory=')) {
    run.directory = rest.slice('"creating instance" directory='.length);
  }
  const s =
    /^created id=(ses_[A-Za-z0-9]+) /.exec(rest) ??
    /^(?:loop|process) session\.id=(ses_[A-Za-z0-9]+)/.exec(rest);
  if (s !== null && OPENCODE_ID.test(s[1]!) && at >= run.sessionAt) {
    run.session = s[1]!;
    run.sessionAt = at;
  }
}

interface LogCursor {
  ino: number;
  offset: number;
  partial: string;
  readonly runs: Map<string, LogRun>;
}

/** Follows opencode logs across captures: reads only what was appended since the last pass. */
export class OpencodeLogs {
  readonly #cursors = new Map<string, LogCursor>();

  /** The runs of the log at `path`, brought up to date. */
  runs(path: string): ReadonlyMap<string, LogRun> {
    let st: { ino: number; size: number };
    try {
      st = statSync(path);
    } catch {
      this.#cursors.delete(path);
      return new Map();
    }
    let c = this.#cursors.get(path);
    if (c === undefined || c.ino !== st.ino || st.size < c.offset) {
      const start = st.size > LOG_TAIL_BYTES ? st.size - LOG_TAIL_BYTES : 0;
      c = { ino: st.ino, offset: start, partial: '', runs: new Map() };
      // Started mid-line: the first piece is dropped at the first newline.
      if (start > 0) c.partial = '\0';
      this.#cursors.set(path, c);
    }
    const len = Math.min(MAX_LOG_READ_BYTES, st.size - c.offset);
    if (len > 0) {
      const chunk = readRange(path, c.offset, len);
      if (chunk !== null) {
        c.offset += chunk.length;
        const lines = (c.partial + chunk.toString('utf8')).split('\n');
        c.partial = lines.pop() ?? '';
        if (lines[0]?.startsWith('\0')) lines.shift();
        for (const line of lines) readLogLine(line, c.runs);
      }
    }
    return c.runs;
  }

  /** Forgets logs no longer open by anything (bounded by how many stores are in use). */
  retain(paths: ReadonlySet<string>): void {
    for (const p of this.#cursors.keys()) if (!paths.has(p)) this.#cursors.delete(p);
  }
}

/** The process (of `peers`) that a run starting at `firstAt` is: the latest started before it. */
export function runOwner(firstAt: number, peers: readonly AgentProcess[]): AgentProcess | null {
  let owner: AgentProcess | null = null;
  for (const p of peers)
    if (p.startedAt <= firstAt && (owner === null || p.startedAt > owner.startedAt)) owner = p;
  return owner;
}

export function opencodeSpec(logs = new OpencodeLogs()): AgentSpec {
  const capture = (ctx: CaptureContext): Captured | null => {
    const data = opencodeDataDir(ctx.agent.env);
    if (data === null) return null;
    const logDir = `${join(data, 'log')}/`;
    const open = ctx.openFiles().filter((p) => p.startsWith(logDir) && p.endsWith('.log'));
    const path = open[0] ?? join(logDir, 'opencode.log');
    const peers = ctx.peers().filter((p) => opencodeDataDir(p.env) === data);
    if (!peers.some((p) => p.pid === ctx.agent.pid)) peers.push(ctx.agent);
    let best: LogRun | null = null;
    for (const run of logs.runs(path).values()) {
      if (run.session === null || runOwner(run.firstAt, peers)?.pid !== ctx.agent.pid) continue;
      if (best === null || run.sessionAt > best.sessionAt) best = run;
    }
    return best?.session == null ? null : { conversation: best.session, transcript: null };
  };
  return {
    agent: 'opencode',
    programNames: ['opencode'],
    carriedArgs(args) {
      const { kept, positionals } = splitArgs(args, ARGS);
      if (positionals.length > 0 && SUBCOMMANDS.has(positionals[0]!)) return null;
      // The one positional is the project directory: kept.
      return [...kept, ...positionals.slice(0, 1)];
    },
    capture,
    resumeArgs: (carried, id) => [...carried, '--session', id],
    checkConversation: (record, env) => listHas(record, env),
  };
}

/** Asks opencode itself whether the conversation is still in its database. */
function listHas(
  record: { program: string; conversation: string; cwd: string },
  env: Record<string, string>,
) {
  return new Promise<string | null>((resolve) => {
    execFile(
      record.program,
      ['session', 'list', '--format', 'json'],
      { cwd: record.cwd, env, timeout: SESSION_LIST_TIMEOUT_MS, maxBuffer: MAX_SESSION_LIST_BYTES },
      (err, stdout) => {
        if (err !== null) {
          resolve(
            `could not ask opencode whether conversation ${record.conversation} still exists: ${err.message.split('\n')[0]}`,
          );
          return;
        }
        let list: unknown;
        try {
          list = stdout.trim() === '' ? [] : JSON.parse(stdout);
        } catch {
          resolve(
            `opencode's session list was not JSON; cannot tell whether ${record.conversation} still exists`,
          );
          return;
        }
        const found =
          Array.isArray(list) && list.some((s) => (s as { id?: unknown } | null)?.id === record.conversation);
        resolve(
          found
            ? null
            : `opencode's conversation ${record.conversation} is gone (opencode no longer lists it)`,
        );
      },
    );
  });
}
