/**
 * All sessions of one daemon: create, look up by id or name, rename, kill. An exited session stays listed with
 * its exit code until it is killed (cleared) — the owner should see that the build failed, not a blank.
 */

import { statSync } from 'node:fs';
import type { RecoveryRecord } from '../recovery/recovery-record.js';
import type { ScreenHostFactory } from '../screen/screen-host.js';
import { defaultIntegrationDir } from '../shell-integration/index.js';
import type { ActivityListener, Logger, OutputTap, SessionActivity } from './activity.js';
import { MAX_COMMAND_ARG_BYTES, MAX_COMMAND_ARGS } from './command-bounds.js';
import { type AgentConversation, Session, type SessionInfo } from './session.js';
import { ConflictError, LimitError, NotFoundError } from './session-errors.js';
import { newSessionId, SESSION_ID_PATTERN, sanitizeSessionName } from './session-id.js';

/** Most sessions one daemon holds (running or exited). */
export const MAX_SESSIONS = 256;
/** How often idle sessions are checked for hibernation (one timer for the whole registry). */
export const HIBERNATE_SWEEP_MS = 10_000;
export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;

export { ConflictError, LimitError, NotFoundError } from './session-errors.js';

export interface CreateSessionOptions {
  readonly name?: string | undefined;
  readonly cwd: string;
  /** argv; empty means the default shell. */
  readonly command: readonly string[];
  readonly cols?: number | undefined;
  readonly rows?: number | undefined;
}

export interface RegistryOptions {
  readonly now: () => number;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly defaultShell: string;
  readonly log: Logger;
  /** Shell-integration scripts; undefined uses the shipped ones, null launches every shell unchanged. */
  readonly integrationDir?: string | null | undefined;
  /** Where sessions' screen models run (session.ts); the shared screen worker when absent. */
  readonly screen?: ScreenHostFactory | undefined;
  /** How long a phone that lost its connection keeps a session's size (ms; size-authority.ts). */
  readonly resumeWindowMs?: number | undefined;
  /** Quiet time (ms) after which an unwatched session parks its screen model; HIBERNATE_AFTER_MS by default. */
  readonly parkAfterMs?: number | undefined;
}

/** Most list-change listeners at once (the daemon's session roster; tests add a few). */
export const MAX_LIST_LISTENERS = 16;

/**
 * A session of the previous daemon (one that held a TODO, alert-spec Public State, or one the daemon's
 * session roster remembers, src/daemon/session-roster.ts): listed as exited until it is cleared, never
 * attachable (no PTY, no screen survives). Without an exit code or signal it died with the daemon.
 */
export interface RestoredSessionEntry {
  readonly id: string;
  readonly name: string;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly createdAt: number;
  /** How it had ended before the daemon went, if it had. */
  readonly exitCode?: number | null | undefined;
  readonly signal?: number | null | undefined;
  /** The coding-agent conversation it was in when it died with the daemon (src/recovery/). */
  readonly recovery?: RestoredRecovery | undefined;
}

/** What the registry keeps for a resumable restored entry (src/recovery/ reads and writes it). */
export type RestoredRecovery = RecoveryRecord;

/** How a resumed session starts (src/recovery/resume.ts builds it). */
export interface ResumeLaunch {
  readonly command: readonly [string, ...string[]];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /**
   * The agent's own variables from before the restart (recovery/env-delta.ts), set over the session's clean
   * environment: the user gave them to the agent, so they come back even where a new session's clean-up
   * (session-env.ts, which drops BURROW_* and launcher variables) would leave them out.
   */
  readonly agentEnv: Readonly<Record<string, string>>;
  /** Its first line of output, written by Burrow before the program's (kept in scrollback, session.ts). */
  readonly banner: string;
  /** The conversation it resumes, as the session's info says it from then on (SessionInfo.resumed). */
  readonly resumed: AgentConversation;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private readonly restoredEntries = new Map<string, SessionInfo>();
  /** The recovery records of restored entries that can be resumed (src/recovery/), by id. */
  private readonly restoredRecovery = new Map<string, RestoredRecovery>();
  private readonly taps: OutputTap[] = [];
  private readonly listeners = new Set<ActivityListener>();
  private readonly listListeners = new Set<() => void>();

  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly opts: RegistryOptions) {
    if (opts.parkAfterMs !== undefined && (!Number.isSafeInteger(opts.parkAfterMs) || opts.parkAfterMs < 0)) {
      throw new RangeError('parkAfterMs must be a non-negative integer');
    }
    // A shorter park delay is swept for at least three times per delay.
    const sweepMs = Math.max(
      50,
      Math.min(HIBERNATE_SWEEP_MS, Math.floor((opts.parkAfterMs ?? Infinity) / 3)),
    );
    this.sweeper = setInterval(() => void this.sweep(), sweepMs);
    // Never keeps the process alive on its own.
    this.sweeper.unref();
  }

  /** Parks the screen models of idle, unwatched sessions; resolves to how many were parked. */
  async sweep(now = this.opts.now()): Promise<number> {
    const parked = await Promise.all([...this.sessions.values()].map((s) => s.maybeHibernate(now)));
    return parked.filter(Boolean).length;
  }

  /** Adds a pipeline stage for sessions created from now on (the parser, before any session exists). */
  addTap(tap: OutputTap): void {
    this.taps.push(tap);
  }

  /** Subscribes to every session's activity; returns the unsubscribe. */
  subscribe(listener: ActivityListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Hears that the list itself changed — a session created, renamed, exited, restored or removed — not the
   * traffic inside one. Returns the unsubscribe.
   */
  onListChange(listener: () => void): () => void {
    if (this.listListeners.size >= MAX_LIST_LISTENERS) {
      throw new RangeError(`over ${MAX_LIST_LISTENERS} list listeners`);
    }
    this.listListeners.add(listener);
    return () => this.listListeners.delete(listener);
  }

  create(req: CreateSessionOptions): Session {
    if (this.sessions.size + this.restoredEntries.size >= MAX_SESSIONS) {
      throw new LimitError(
        `already ${MAX_SESSIONS} sessions, Burrow's limit (MAX_SESSIONS); end one first (\`burrow kill\`, or Remove in Pocket)`,
      );
    }
    if (req.command.length > MAX_COMMAND_ARGS)
      throw new RangeError(`command has over ${MAX_COMMAND_ARGS} arguments`);
    for (const a of req.command) {
      if (typeof a !== 'string') throw new TypeError('command arguments must be strings');
      if (Buffer.byteLength(a) > MAX_COMMAND_ARG_BYTES || a.includes('\0')) {
        throw new RangeError('command argument too long or contains NUL');
      }
    }
    let isDir = false;
    try {
      isDir = statSync(req.cwd).isDirectory();
    } catch {
      // reported below
    }
    if (!isDir) throw new RangeError(`working directory ${req.cwd} does not exist or is not a directory`);
    let id = newSessionId();
    while (this.sessions.has(id) || this.restoredEntries.has(id)) id = newSessionId();
    const command = (req.command.length > 0 ? req.command : [this.opts.defaultShell]) as [
      string,
      ...string[],
    ];
    let name: string;
    if (req.name !== undefined) {
      name = sanitizeSessionName(req.name);
      this.checkNameFree(name, null);
    } else {
      name = this.uniqueName(sanitizeSessionName(defaultName(command)));
    }
    const session = new Session({
      id,
      name,
      command,
      cwd: req.cwd,
      env: this.opts.env,
      cols: req.cols ?? DEFAULT_COLS,
      rows: req.rows ?? DEFAULT_ROWS,
      now: this.opts.now,
      taps: [...this.taps],
      onActivity: (a) => this.emit(a),
      log: this.opts.log,
      integrationDir:
        this.opts.integrationDir === undefined ? defaultIntegrationDir() : this.opts.integrationDir,
      ...(this.opts.screen !== undefined ? { screen: this.opts.screen } : {}),
      ...(this.opts.resumeWindowMs !== undefined ? { resumeWindowMs: this.opts.resumeWindowMs } : {}),
      ...(this.opts.parkAfterMs !== undefined ? { parkAfterMs: this.opts.parkAfterMs } : {}),
    });
    this.sessions.set(id, session);
    this.listChanged();
    return session;
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()]
      .map((s) => s.info())
      .concat([...this.restoredEntries.values()])
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * Lists a session that died with the previous daemon (see RestoredSessionEntry). The name is sanitized and
   * made unique; an id already in use is a ConflictError; a full registry is a ConflictError.
   */
  restoreExited(entry: RestoredSessionEntry): SessionInfo {
    if (this.sessions.size + this.restoredEntries.size >= MAX_SESSIONS) {
      throw new ConflictError(`already ${MAX_SESSIONS} sessions`);
    }
    if (!SESSION_ID_PATTERN.test(entry.id)) throw new TypeError('restored session id is malformed');
    if (this.sessions.has(entry.id) || this.restoredEntries.has(entry.id)) {
      throw new ConflictError(`session id ${entry.id} is already in use`);
    }
    const command = entry.command
      .slice(0, MAX_COMMAND_ARGS)
      .map((a) => String(a).slice(0, MAX_COMMAND_ARG_BYTES));
    const exitCode = Number.isInteger(entry.exitCode) ? (entry.exitCode as number) : null;
    const signal = Number.isInteger(entry.signal) ? (entry.signal as number) : null;
    const info: SessionInfo = {
      id: entry.id,
      name: this.uniqueName(sanitizeSessionName(entry.name)),
      command,
      cwd: entry.cwd,
      pid: 0,
      createdAt: entry.createdAt,
      status: 'exited',
      exitCode,
      signal,
      cols: DEFAULT_COLS,
      rows: DEFAULT_ROWS,
      viewers: 0,
      offset: 0,
      lastOutputAt: null,
      diedWithDaemon: exitCode === null && signal === null,
    };
    this.restoredEntries.set(entry.id, info);
    if (entry.recovery !== undefined && info.diedWithDaemon) this.setRecovery(entry.id, entry.recovery);
    this.listChanged();
    return info;
  }

  /**
   * Marks a restored entry that died with the previous daemon as resumable with `recovery` (the roster adds it
   * to an entry the attention host restored first). False when there is no such entry.
   */
  setRestoredRecovery(id: string, recovery: RestoredRecovery): boolean {
    const info = this.restoredEntries.get(id);
    if (info === undefined || info.diedWithDaemon !== true) return false;
    this.setRecovery(id, recovery);
    this.listChanged();
    return true;
  }

  /** A restored entry's recovery record, or null. */
  recoveryOf(id: string): RestoredRecovery | null {
    return this.restoredRecovery.get(id) ?? null;
  }

  /**
   * Starts a restored entry's program again (a coding agent on its conversation: src/recovery/): the entry
   * becomes a live session with the same id and name. All or nothing — if the PTY cannot be started, the
   * entry is listed exactly as before and the error is thrown.
   */
  resumeRestored(id: string, launch: ResumeLaunch): Session {
    const info = this.restoredEntries.get(id);
    if (info === undefined) throw new NotFoundError(`no restored session "${id}"`);
    const recovery = this.restoredRecovery.get(id);
    this.restoredEntries.delete(id);
    this.restoredRecovery.delete(id);
    let session: Session;
    try {
      session = new Session({
        id,
        name: info.name,
        command: launch.command,
        cwd: launch.cwd,
        env: launch.env,
        extraEnv: launch.agentEnv,
        cols: DEFAULT_COLS,
        rows: DEFAULT_ROWS,
        now: this.opts.now,
        taps: [...this.taps],
        onActivity: (a) => this.emit(a),
        log: this.opts.log,
        integrationDir: null,
        banner: launch.banner,
        resumed: launch.resumed,
        ...(this.opts.screen !== undefined ? { screen: this.opts.screen } : {}),
        ...(this.opts.parkAfterMs !== undefined ? { parkAfterMs: this.opts.parkAfterMs } : {}),
      });
    } catch (err) {
      this.restoredEntries.set(id, info);
      if (recovery !== undefined) this.restoredRecovery.set(id, recovery);
      throw err;
    }
    this.sessions.set(id, session);
    this.listChanged();
    return session;
  }

  private setRecovery(id: string, recovery: RestoredRecovery): void {
    this.restoredRecovery.set(id, recovery);
    const info = this.restoredEntries.get(id)!;
    this.restoredEntries.set(id, {
      ...info,
      resumable: { agent: recovery.agent, conversation: recovery.conversation },
    });
  }

  /** A restored entry by exact id, else by exact name, or null. */
  restored(ref: string): SessionInfo | null {
    const byId = this.restoredEntries.get(ref);
    if (byId !== undefined) return byId;
    for (const r of this.restoredEntries.values()) if (r.name === ref) return r;
    return null;
  }

  /** By exact id, else by exact name. NotFoundError otherwise. */
  get(ref: string): Session {
    const live = this.findLive(ref);
    if (live !== undefined) return live;
    const restored = this.restored(ref);
    if (restored !== null) {
      const how = restored.diedWithDaemon === true ? 'died with' : 'had ended before';
      const resume = restored.resumable === undefined ? '' : `resume it with \`burrow resume ${ref}\` or `;
      throw new NotFoundError(
        `session "${ref}" ${how} the previous daemon; ${resume}clear it with \`burrow kill\``,
      );
    }
    throw new NotFoundError(`no session "${ref}"; list them with \`burrow ls\``);
  }

  rename(ref: string, rawName: string): Session {
    const s = this.get(ref);
    const name = sanitizeSessionName(rawName);
    this.checkNameFree(name, s);
    s.name = name;
    this.listChanged();
    return s;
  }

  /** Ends the process (if running), detaches viewers and removes the session. */
  async kill(ref: string): Promise<SessionInfo> {
    const restored = this.restored(ref);
    if (restored !== null && this.findLive(ref) === undefined) {
      this.restoredEntries.delete(restored.id);
      this.restoredRecovery.delete(restored.id);
      this.emit({ type: 'remove', sessionId: restored.id, at: this.opts.now() });
      return restored;
    }
    const s = this.get(ref);
    this.sessions.delete(s.id);
    await s.terminate();
    const info = s.info();
    s.dispose('session-killed');
    this.emit({ type: 'remove', sessionId: s.id, at: this.opts.now() });
    return info;
  }

  /** Kills everything (daemon shutdown). */
  async killAll(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.terminate()));
    for (const s of all) s.dispose('shutdown');
  }

  get size(): number {
    return this.sessions.size;
  }

  private findLive(ref: string): Session | undefined {
    const byId = this.sessions.get(ref);
    if (byId !== undefined) return byId;
    for (const s of this.sessions.values()) if (s.name === ref) return s;
    return undefined;
  }

  private emit(activity: SessionActivity): void {
    for (const l of this.listeners) {
      try {
        l(activity);
      } catch (err) {
        this.opts.log('error', `activity listener threw: ${(err as Error).message}`);
      }
    }
    if (activity.type === 'exit' || activity.type === 'remove') this.listChanged();
  }

  private listChanged(): void {
    for (const l of this.listListeners) {
      try {
        l();
      } catch (err) {
        this.opts.log('error', `list listener threw: ${(err as Error).message}`);
      }
    }
  }

  private uniqueName(base: string): string {
    const taken = new Set([...this.sessions.values(), ...this.restoredEntries.values()].map((s) => s.name));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  }

  private checkNameFree(name: string, self: Session | null): void {
    for (const s of [...this.sessions.values(), ...this.restoredEntries.values()]) {
      if (s !== self && (s.name === name || s.id === name)) {
        throw new ConflictError(`a session is already called "${name}"; pick another name`);
      }
    }
  }
}

function defaultName(command: readonly string[]): string {
  const base = command[0]!.split('/').pop() ?? 'session';
  return base === '' ? 'session' : base;
}
