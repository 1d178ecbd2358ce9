/**
 * Gemini CLI (checked against 0.61.0). Chats are `<gemini>/tmp/<project id>/chats/session-<date>-<id8>.jsonl`
 * (gemini = $GEMINI_CLI_HOME or $HOME, then `.gemini`; the project id for a directory is in
 * `<gemini>/projects.json`, and `<gemini>/tmp/<project id>/.project_root` names the directory back). The first
 * line is `{ sessionId, startTime, kind: "main", … }`; the file is created as the CLI starts (a few seconds
 * after the process) and a new one on `/clear`. Gemini keeps no file open and records no pid, so a chat is
 * attributed by time: it belongs to the Gemini process for the same directory and store that started last
 * before the chat did (every such process on the machine is considered, not only Burrow's). Two Gemini CLIs
 * started in one directory within its start-up time (~5 s) of each other can be confused; anything else is
 * exact. `gemini --resume <sessionId>` continues a chat (a UUID is looked up among the project's chats).
 */
import { join } from 'node:path';
import { type ArgTable, set, splitArgs } from '../agent-args.js';
import { isFile, jsonLines, listDir, mtimeOf, parseJson, readHead, str } from '../store-files.js';
import type { AgentProcess, AgentSpec, CaptureContext, Captured } from './agent-spec.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CHAT_NAME = /^session-.+\.jsonl$/;

/** From `gemini --help` 0.61.0. */
const ARGS: ArgTable = {
  value: set(
    '-m',
    '--model',
    '-p',
    '--prompt',
    '-i',
    '--prompt-interactive',
    '--approval-mode',
    '--session-file',
    '--session-id',
    '--delete-session',
    '-o',
    '--output-format',
    '-r',
    '--resume',
  ),
  optionalValue: set('-w', '--worktree'),
  variadic: set(
    '--policy',
    '--admin-policy',
    '--allowed-mcp-server-names',
    '--allowed-tools',
    '-e',
    '--extensions',
    '--include-directories',
  ),
  drop: set(
    '-p',
    '--prompt',
    '-i',
    '--prompt-interactive',
    '-r',
    '--resume',
    '--session-file',
    '--session-id',
    '-w',
    '--worktree',
  ),
};
const SUBCOMMANDS = set('mcp', 'extensions', 'extension', 'skills', 'skill', 'hooks', 'hook', 'gemma');
/** Flags that make it do something and exit, not hold a conversation. */
const ONE_SHOT = set(
  '-p',
  '--prompt',
  '--acp',
  '--experimental-acp',
  '-l',
  '--list-extensions',
  '--list-sessions',
  '--delete-session',
);

export function geminiDir(env: Readonly<Record<string, string>>): string | null {
  const home = env.GEMINI_CLI_HOME?.startsWith('/') ? env.GEMINI_CLI_HOME : env.HOME;
  return home?.startsWith('/') ? join(home, '.gemini') : null;
}

/** `<gemini>/tmp/<project id>` for `cwd`: projects.json's entry, else the folder whose .project_root is `cwd`. */
export function geminiProjectDir(dir: string, cwd: string): string | null {
  const projects = parseJson(readHead(join(dir, 'projects.json'), 1024 * 1024) ?? '')?.projects;
  const id =
    typeof projects === 'object' && projects !== null
      ? (projects as Record<string, unknown>)[cwd]
      : undefined;
  if (typeof id === 'string' && /^[^/]+$/.test(id) && id !== '..') return join(dir, 'tmp', id);
  for (const name of listDir(join(dir, 'tmp'))) {
    if (readHead(join(dir, 'tmp', name, '.project_root'), 8192)?.trim() === cwd)
      return join(dir, 'tmp', name);
  }
  return null;
}

export interface GeminiChat {
  readonly id: string;
  readonly path: string;
  readonly startTime: number;
  readonly updatedAt: number;
  /** Whether the person has said anything in it (Gemini's own context message does not count). */
  readonly spoken: boolean;
}

/** The main-conversation chats of one project, read from their first lines. */
export function geminiChats(projectDir: string): GeminiChat[] {
  const chats: GeminiChat[] = [];
  const dir = join(projectDir, 'chats');
  for (const name of listDir(dir)) {
    if (!CHAT_NAME.test(name)) continue;
    const path = join(dir, name);
    const lines = jsonLines(readHead(path) ?? '');
    const head = lines[0];
    const id = str(head?.sessionId);
    const start = Date.parse(str(head?.startTime) ?? '');
    if (id === null || !UUID.test(id) || !Number.isFinite(start)) continue;
    if (head?.kind !== undefined && head.kind !== 'main') continue;
    const spoken = lines.slice(1).some((l) => l.type === 'user');
    chats.push({ id, path, startTime: start, updatedAt: mtimeOf(path) ?? start, spoken });
  }
  return chats;
}

/** Which of `peers` a chat started at `startTime` belongs to: the latest started before it (or null). */
export function ownerOf(startTime: number, peers: readonly AgentProcess[]): AgentProcess | null {
  let owner: AgentProcess | null = null;
  for (const p of peers)
    if (p.startedAt <= startTime && (owner === null || p.startedAt > owner.startedAt)) owner = p;
  return owner;
}

function capture(ctx: CaptureContext): Captured | null {
  const dir = geminiDir(ctx.agent.env);
  const cwd = ctx.agent.cwd;
  if (dir === null || cwd === null) return null;
  const project = geminiProjectDir(dir, cwd);
  if (project === null) return null;
  // The same store and directory: the processes that could have started these chats.
  const peers = ctx.peers().filter((p) => p.cwd === cwd && geminiDir(p.env) === dir);
  if (!peers.some((p) => p.pid === ctx.agent.pid)) peers.push(ctx.agent);
  const mine = geminiChats(project).filter(
    (c) => c.spoken && ownerOf(c.startTime, peers)?.pid === ctx.agent.pid,
  );
  const latest = mine.sort((a, b) => b.updatedAt - a.updatedAt)[0];
  return latest === undefined ? null : { conversation: latest.id, transcript: latest.path };
}

export const gemini: AgentSpec = {
  agent: 'gemini',
  programNames: ['gemini'],
  carriedArgs(args) {
    const { kept, positionals } = splitArgs(args, ARGS);
    if (positionals.length > 0 && SUBCOMMANDS.has(positionals[0]!)) return null;
    if (args.some((a) => ONE_SHOT.has(a.split('=')[0]!))) return null;
    return [...kept];
  },
  capture,
  resumeArgs: (carried, id) => [...carried, '--resume', id],
  async checkConversation(record) {
    if (record.transcript !== null && isFile(record.transcript)) return null;
    return `Gemini CLI's conversation ${record.conversation} is gone (its chat file is no longer there)`;
  },
};
