/**
 * One capture: which recoverable agent a session's terminal is running in the foreground, and the record that
 * would start it again on its current conversation. The agent is the first process of the PTY's foreground
 * process group whose program is a recoverable agent (a shell's job, `env VAR=… claude`, `sh -c codex`, or the
 * session's own command — all the same from /proc); its conversation comes from the agent's store (agents/).
 */

import { accessSync, constants } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { type AgentProcess, type AgentSpec, agentOf } from './agents/index.js';
import { envDelta } from './env-delta.js';
import type { ProcessFacts, ProcReader } from './proc.js';
import {
  isRecoveryRecord,
  MAX_RECOVERY_ARGS,
  MAX_RECOVERY_ARGS_CHARS,
  MAX_RECOVERY_PATH_CHARS,
  type RecoverableAgent,
  type RecoveryRecord,
} from './recovery-record.js';

export interface CaptureResult {
  /** The agent process found in the foreground (null: no recoverable agent runs there). */
  readonly process: {
    readonly pid: number;
    readonly startTicks: number;
    readonly agent: RecoverableAgent;
  } | null;
  /** Its conversation's record; null while it has none yet (nothing said) or it could not be read. */
  readonly record: RecoveryRecord | null;
  /** Why a found agent gave no record, for the log (null when there is nothing to say). */
  readonly problem: string | null;
}

export const NO_AGENT: CaptureResult = { process: null, record: null, problem: null };

/**
 * The running instances of one agent among `processes`: its processes that are an interactive session (not
 * `codex app-server`, not `claude mcp …`), each counted once — its topmost process (Gemini CLI relaunches
 * itself as a child; Codex's npm launcher runs the native binary as one).
 */
export function agentInstances<P extends ProcessFacts>(processes: readonly P[], spec: AgentSpec): P[] {
  const one = { [spec.agent]: spec } as unknown as Readonly<Record<RecoverableAgent, AgentSpec>>;
  const mine = processes.filter((p) => agentOf(p.argv, one) !== null);
  const pids = new Set(mine.map((p) => p.pid));
  return mine.filter((p) => !pids.has(p.ppid) && spec.carriedArgs(agentOf(p.argv, one)!.args) !== null);
}

/**
 * Per capture pass: what /proc says, read once and only if needed — the process groups (one pass over /proc,
 * shared by every session of the pass) and the machine's instances of each agent.
 */
export class PeerCache {
  readonly #byAgent = new Map<RecoverableAgent, AgentProcess[]>();
  #groups: Map<number, number[]> | null = null;
  constructor(
    private readonly proc: ProcReader,
    private readonly specs: Readonly<Record<RecoverableAgent, AgentSpec>>,
  ) {}

  /** The members of process group `pgrp`, leader first. */
  members(pgrp: number): ProcessFacts[] {
    this.#groups ??= this.proc.groups();
    return this.proc.membersOf(pgrp, this.#groups.get(pgrp) ?? []);
  }

  peers(agent: RecoverableAgent): AgentProcess[] {
    const known = this.#byAgent.get(agent);
    if (known !== undefined) return known;
    const spec = this.specs[agent];
    const one = { [agent]: spec } as unknown as Readonly<Record<RecoverableAgent, AgentSpec>>;
    const all = this.proc.scan((argv) => agentOf(argv, one) !== null);
    const out: AgentProcess[] = [];
    for (const p of agentInstances(all, spec)) {
      const env = this.proc.environ(p.pid);
      if (env !== null) out.push({ ...p, env });
    }
    this.#byAgent.set(agent, out);
    return out;
  }
}

/** Shells whose interactive form Burrow starts sessions in (a session's default command is the user's shell). */
const SHELLS = new Set(['bash', 'zsh', 'fish', 'sh', 'dash', 'ksh', 'mksh', 'tcsh', 'csh']);

/**
 * Whether argv is an interactive shell: a known shell (a login shell's argv[0] starts with "-") given options
 * only — no `-c` command and no script, whose children would share its process group.
 */
export function isInteractiveShell(argv: readonly string[]): boolean {
  const name = basename(argv[0] ?? '').replace(/^-/, '');
  if (!SHELLS.has(name)) return false;
  // Every argument an option (`-l`, `-i`, `--login`, `+o`), none of them a command: `-c`, `-lc`, `--command`.
  return argv.slice(1).every((a) => /^(?:-|\+)./.test(a) && !/^-[A-Za-z]*c/.test(a) && !a.startsWith('--c'));
}

/** The executable a resume runs: the script or binary the process was started as, made absolute. */
export function resolveProgram(
  program: string,
  proc: ProcessFacts,
  env: Readonly<Record<string, string>>,
): string | null {
  if (isAbsolute(program)) return program;
  if (program.includes('/')) return proc.cwd === null ? null : resolve(proc.cwd, program);
  // A bare name was found on the PATH the process was started with.
  for (const dir of (env.PATH ?? '').split(':')) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return proc.exe;
}

/**
 * What runs in the foreground of the terminal whose first process is `sessionPid`, and its record.
 * `baseEnv` is the environment a resumed session would get anyway (the daemon's).
 */
export function captureSession(options: {
  readonly sessionPid: number;
  readonly proc: ProcReader;
  readonly specs: Readonly<Record<RecoverableAgent, AgentSpec>>;
  readonly peers: PeerCache;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly now: number;
}): CaptureResult {
  const { proc, specs } = options;
  const pgrp = proc.foregroundGroup(options.sessionPid);
  if (pgrp === null) return NO_AGENT;
  // The session's interactive shell at its prompt (its jobs get groups of their own): nothing to scan — the
  // common case, read from two small files. A script or `sh -c '…; claude'` keeps its children in its own
  // group, so any other leader is looked at member by member.
  if (pgrp === options.sessionPid) {
    const leader = proc.facts(pgrp);
    if (leader === null) return NO_AGENT;
    if (agentOf(leader.argv, specs) === null && isInteractiveShell(leader.argv)) return NO_AGENT;
  }
  const group = options.peers.members(pgrp);
  const pids = new Set(group.map((g) => g.pid));
  let found: { facts: ProcessFacts; spec: AgentSpec; program: string; args: readonly string[] } | null = null;
  for (const facts of group) {
    const a = agentOf(facts.argv, specs);
    // The topmost process of the agent (its launcher), not a child it started.
    if (
      a !== null &&
      !(
        pids.has(facts.ppid) && agentOf(group.find((g) => g.pid === facts.ppid)!.argv, specs)?.spec === a.spec
      )
    ) {
      found = { facts, ...a };
      break;
    }
  }
  if (found === null) return NO_AGENT;
  const { facts, spec } = found;
  const processId = { pid: facts.pid, startTicks: facts.startTicks, agent: spec.agent };
  const carried = spec.carriedArgs(found.args);
  if (carried === null) return { process: processId, record: null, problem: null };
  const env = proc.environ(facts.pid);
  if (env === null || facts.cwd === null) {
    return { process: processId, record: null, problem: 'its environment or directory cannot be read' };
  }
  const agent: AgentProcess = { ...facts, env };
  const captured = spec.capture({
    agent,
    group,
    openFiles: () => group.flatMap((g) => proc.openFiles(g.pid)),
    peers: () => options.peers.peers(spec.agent),
  });
  if (captured === null) return { process: processId, record: null, problem: null };
  const program = resolveProgram(found.program, facts, env);
  if (program === null || program.length > MAX_RECOVERY_PATH_CHARS) {
    return { process: processId, record: null, problem: `cannot tell which ${found.program} runs` };
  }
  if (carried.length > MAX_RECOVERY_ARGS || carried.join('').length > MAX_RECOVERY_ARGS_CHARS) {
    return { process: processId, record: null, problem: 'its arguments are too long to remember' };
  }
  const delta = envDelta(env, options.baseEnv);
  const record = {
    agent: spec.agent,
    conversation: captured.conversation,
    transcript: captured.transcript,
    program,
    args: carried,
    env: delta.env,
    cwd: facts.cwd,
    capturedAt: Math.max(0, Math.round(options.now)),
  };
  if (!isRecoveryRecord(record)) {
    return {
      process: processId,
      record: null,
      problem: 'what it runs with does not fit what Burrow remembers',
    };
  }
  const problem =
    delta.dropped.length > 0 ? `environment not remembered (too large): ${delta.dropped.join(', ')}` : null;
  return { process: processId, record, problem };
}
