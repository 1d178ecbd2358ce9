/**
 * Agent recovery in the daemon (issue 27; README.md here). While a session runs a recoverable coding agent in
 * its foreground, every CAPTURE_INTERVAL_MS (and once more as the daemon stops, before the PTYs end) Burrow
 * reads which conversation the agent is in from the agent's own store (capture.ts, agents/) and keeps the
 * record the session roster writes to sessions.json. After a restart such a session is listed as resumable;
 * `resume` starts the agent on that conversation in the same directory, under the same id and name, watched
 * as any session; with `resumeAgentsAtStart` set the daemon does that itself for every resumable session.
 */
import type { Logger, SessionActivity } from '../session/activity.js';
import type { SessionInfo } from '../session/session.js';
import { sessionEnvironment } from '../session/session-env.js';
import { ConflictError, NotFoundError, type SessionRegistry } from '../session/session-registry.js';
import { type AgentSpec, agentSpecs } from './agents/index.js';
import { captureSession, PeerCache } from './capture.js';
import { type ProcReader, procReader } from './proc.js';
import type { RecoverableAgent, RecoveryRecord } from './recovery-record.js';
import { prepareResume, RecoveryError } from './resume.js';

/** How often running sessions are looked at. Cheap at a shell prompt (a few small /proc reads per session). */
export const CAPTURE_INTERVAL_MS = 3_000;
/** Distinct problems logged per session (a capture that keeps failing the same way is logged once). */
const MAX_LOGGED_PROBLEMS = 8;

interface LiveCapture {
  readonly pid: number;
  readonly startTicks: number;
  readonly agent: RecoverableAgent;
  record: RecoveryRecord | null;
  readonly problems: Set<string>;
}

export interface AgentRecoveryOptions {
  readonly registry: SessionRegistry;
  /** The environment new sessions get (the daemon's): a record keeps only what differs from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  readonly now: () => number;
  /** Something a roster should write changed. */
  readonly onChange: () => void;
  readonly proc?: ProcReader;
  readonly specs?: Readonly<Record<RecoverableAgent, AgentSpec>>;
  readonly intervalMs?: number;
}

export class AgentRecovery {
  readonly #o: AgentRecoveryOptions;
  readonly #proc: ProcReader;
  readonly #sessionBaseEnv: Readonly<Record<string, string>>;
  readonly #specs: Readonly<Record<RecoverableAgent, AgentSpec>>;
  readonly #live = new Map<string, LiveCapture>();
  readonly #resuming = new Set<string>();
  readonly #unsubscribe: () => void;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: AgentRecoveryOptions) {
    this.#o = options;
    this.#sessionBaseEnv = sessionEnvironment(options.env);
    this.#proc = options.proc ?? procReader();
    this.#specs = options.specs ?? agentSpecs();
    this.#unsubscribe = options.registry.subscribe((a) => this.#activity(a));
  }

  /** Starts the periodic capture. */
  start(): void {
    if (this.#closed || this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.captureAll(), this.#o.intervalMs ?? CAPTURE_INTERVAL_MS);
    this.#timer.unref();
  }

  /** One capture pass over every running session, now (synchronous: the daemon calls it as it stops). */
  captureAll(): void {
    if (this.#closed) return;
    const peers = new PeerCache(this.#proc, this.#specs);
    let changed = false;
    const running = new Set<string>();
    for (const info of this.#o.registry.list()) {
      if (info.status !== 'running' || info.pid <= 0) continue;
      running.add(info.id);
      try {
        changed = this.#captureOne(info, peers) || changed;
      } catch (err) {
        this.#o.log('error', `recovery: capturing ${info.id} failed: ${(err as Error).message}`);
      }
    }
    for (const id of this.#live.keys()) {
      if (!running.has(id)) changed = this.#live.delete(id) || changed;
    }
    if (changed) this.#o.onChange();
  }

  /** The last captured record of a running session, or null. */
  recordOf(sessionId: string): RecoveryRecord | null {
    return this.#live.get(sessionId)?.record ?? null;
  }

  /** For the sessions roster: a live session's capture, else a restored entry's record. */
  readonly lookup = (sessionId: string): RecoveryRecord | null =>
    this.recordOf(sessionId) ?? this.#o.registry.recoveryOf(sessionId);

  /**
   * Starts a resumable session's agent on its conversation again. NotFoundError for no such session;
   * ConflictError when it runs, or was not running an agent Burrow can resume, or is being resumed already;
   * RecoveryError (nothing started, the entry as it was) when the directory, the program or the conversation
   * is gone.
   */
  async resume(ref: string): Promise<SessionInfo> {
    const registry = this.#o.registry;
    const entry = registry.restored(ref);
    if (entry === null) {
      registry.get(ref); // NotFoundError for an unknown name
      throw new ConflictError(`session "${ref}" is running; there is nothing to resume`);
    }
    const record = registry.recoveryOf(entry.id);
    if (record === null) {
      const what =
        entry.diedWithDaemon === true
          ? 'was not running a coding agent Burrow can resume'
          : 'had ended before the daemon stopped';
      throw new ConflictError(
        `session "${entry.name}" ${what} (Claude Code, Codex, Gemini CLI and opencode conversations come back); clear it with \`burrow kill ${entry.name}\``,
      );
    }
    if (this.#resuming.has(entry.id))
      throw new ConflictError(`session "${entry.name}" is being resumed already`);
    this.#resuming.add(entry.id);
    try {
      const launch = await prepareResume(record, this.#specs[record.agent], this.#o.env, entry.name);
      if (this.#closed) throw new RecoveryError('the daemon is stopping');
      // The entry may have been cleared while the conversation was checked.
      if (registry.recoveryOf(entry.id) !== record) throw new NotFoundError(`session "${ref}" is gone`);
      const session = registry.resumeRestored(entry.id, launch);
      this.#o.log(
        'info',
        `recovery: resumed ${record.agent} conversation ${record.conversation} as ${entry.id}`,
      );
      // Until the next capture sees the agent, the session keeps its record (a stop now loses nothing).
      this.#live.set(entry.id, {
        pid: -1,
        startTicks: -1,
        agent: record.agent,
        record,
        problems: new Set(),
      });
      return session.info();
    } finally {
      this.#resuming.delete(entry.id);
    }
  }

  /**
   * Resumes every resumable session (the `resumeAgentsAtStart` setting), one after another; a failure is
   * logged and leaves that entry listed. Resolves with how many came back.
   */
  async resumeAll(): Promise<number> {
    let n = 0;
    for (const info of this.#o.registry.list()) {
      if (this.#closed) break;
      if (info.resumable === undefined) continue;
      try {
        await this.resume(info.id);
        n++;
      } catch (err) {
        this.#o.log(
          'warn',
          `recovery: session ${info.id} (${info.name}) not resumed: ${(err as Error).message}`,
        );
      }
    }
    return n;
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#unsubscribe();
  }

  #activity(a: SessionActivity): void {
    // An agent that ended on its own is not to be resumed; neither is a killed session.
    if ((a.type === 'exit' || a.type === 'remove') && this.#live.delete(a.sessionId)) this.#o.onChange();
  }

  /** True when what would be remembered changed. */
  #captureOne(info: SessionInfo, peers: PeerCache): boolean {
    const result = captureSession({
      sessionPid: info.pid,
      proc: this.#proc,
      specs: this.#specs,
      peers,
      // What a new session gets (the daemon's, cleaned: session-env.ts), so a variable the clean-up would
      // drop but the agent had (a BURROW_-named key, say) is remembered.
      baseEnv: this.#sessionBaseEnv,
      now: this.#o.now(),
    });
    const old = this.#live.get(info.id);
    if (result.process === null) {
      // Nothing recoverable in the foreground — unless this is a resume whose agent has not been seen yet.
      if (old?.pid === -1) return false;
      return this.#live.delete(info.id);
    }
    const p = result.process;
    const same = old !== undefined && old.pid === p.pid && old.startTicks === p.startTicks;
    const entry: LiveCapture =
      same && old !== undefined
        ? old
        : {
            pid: p.pid,
            startTicks: p.startTicks,
            agent: p.agent,
            // A resumed session's agent keeps the record it was resumed with until it names its own.
            record: old?.pid === -1 && old.agent === p.agent ? old.record : null,
            problems: new Set(),
          };
    if (
      result.problem !== null &&
      !entry.problems.has(result.problem) &&
      entry.problems.size < MAX_LOGGED_PROBLEMS
    ) {
      entry.problems.add(result.problem);
      this.#o.log('warn', `recovery: session ${info.id} runs ${p.agent}, but ${result.problem}`);
    }
    const before = entry.record === null ? null : JSON.stringify({ ...entry.record, capturedAt: 0 });
    // The same process with nothing readable this time keeps what it had; a new one starts from nothing.
    if (result.record !== null) entry.record = result.record;
    this.#live.set(info.id, entry);
    const after = entry.record === null ? null : JSON.stringify({ ...entry.record, capturedAt: 0 });
    return !same || before !== after;
  }
}

export { RecoveryError };
