/**
 * One PTY and everything that watches it. Every output chunk goes through one pipeline, in stream order:
 * PTY bytes → output ring → taps (parser → attention engine) → screen model → viewers (DESIGN §6).
 */
import * as pty from 'node-pty';
import { checkSize, ScreenModel, type ScreenSnapshot } from '../screen/screen-model.js';
import { createShellNonce, shellIntegrationLaunch } from '../shell-integration/index.js';
import {
  type Attachment,
  MAX_VIEWER_BACKLOG_BYTES,
  MAX_VIEWERS_PER_SESSION,
  type Presence,
  type ViewerCloseReason,
  type ViewerSink,
} from '../viewer/viewer.js';
import type { ActivityListener, Logger, OutputTap, SessionActivity } from './activity.js';
import { OutputRing } from './output-ring.js';
import { ConflictError } from './session-errors.js';

/** Recent raw output kept for resume; a viewer further behind than this is resynced from a snapshot. */
export const OUTPUT_RING_BYTES = 256 * 1024;
/** Unparsed bytes the screen model may queue before the PTY is paused (local backpressure, never a viewer's). */
export const MAX_MODEL_BACKLOG_BYTES = 4 * 1024 * 1024;
/** Longest single input write accepted from a viewer. */
export const MAX_INPUT_BYTES = 64 * 1024;
/** A session nobody watches that has been quiet this long parks its screen model (see ScreenModel.hibernate). */
export const HIBERNATE_AFTER_MS = 30_000;
/** Grace between SIGHUP and SIGKILL when a session is killed. */
export const KILL_GRACE_MS = 1500;

export interface SessionSpawnOptions {
  readonly id: string;
  readonly name: string;
  readonly command: readonly [string, ...string[]];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cols: number;
  readonly rows: number;
  readonly now: () => number;
  readonly taps: readonly OutputTap[];
  readonly onActivity: ActivityListener;
  readonly log: Logger;
  /** Shell-integration scripts directory; null runs every command exactly as given. */
  readonly integrationDir: string | null;
}

export interface SessionInfo {
  readonly id: string;
  readonly name: string;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly pid: number;
  readonly createdAt: number;
  readonly status: 'running' | 'exited';
  readonly exitCode: number | null;
  readonly signal: number | null;
  readonly cols: number;
  readonly rows: number;
  readonly viewers: number;
  readonly offset: number;
  readonly lastOutputAt: number | null;
  /** Set on an entry restored after a daemon restart: its PTY died with the previous daemon. */
  readonly diedWithDaemon?: boolean;
}

type ViewerState = 'pending' | 'live' | 'behind';

interface ViewerEntry {
  readonly sink: ViewerSink;
  state: ViewerState;
  /** Offset of the next byte this viewer should receive. */
  offset: number;
  exitSent: boolean;
}

export class Session {
  readonly id: string;
  private label: string;
  readonly command: readonly string[];
  /** Starts as the spawn directory; the attention host keeps it current from OSC 7 / OSC 9;9. */
  cwd: string;
  readonly createdAt: number;
  private readonly proc: pty.IPty;
  private readonly ring = new OutputRing(OUTPUT_RING_BYTES);
  private readonly model: ScreenModel;
  private readonly viewers = new Map<string, ViewerEntry>();
  private exit: { code: number | null; signal: number | null } | null = null;
  private lastOutputAt: number | null = null;
  /** True once the model parsed everything before the exit: viewers may now be told. */
  private exitFlushed = false;
  private paused = false;
  private killTimer: NodeJS.Timeout | undefined;
  private readonly exited: Promise<void>;

  constructor(private readonly opts: SessionSpawnOptions) {
    checkSize(opts.cols, opts.rows);
    this.id = opts.id;
    this.label = opts.name;
    this.command = opts.command;
    this.cwd = opts.cwd;
    this.createdAt = opts.now();
    this.model = new ScreenModel(opts.cols, opts.rows);
    const env: Record<string, string> = {};
    for (const [k, val] of Object.entries(opts.env)) if (val !== undefined) env[k] = val;
    env.TERM = 'xterm-256color';
    env.COLORTERM = 'truecolor';
    env.BURROW_SESSION = opts.id;
    const launch = integratedLaunch(opts.command, env, opts.integrationDir);
    // encoding: null → node-pty hands us Buffers of raw bytes, so offsets count bytes exactly.
    this.proc = pty.spawn(launch.file, [...launch.args], {
      name: 'xterm-256color',
      cols: opts.cols,
      rows: opts.rows,
      cwd: opts.cwd,
      env: launch.env,
      encoding: null,
    } as pty.IPtyForkOptions);
    const generation = { nonce: launch.nonce };
    for (const tap of opts.taps) this.guard(() => tap.spawn?.(this.id, generation));
    this.exited = new Promise((resolve) => {
      this.proc.onExit(({ exitCode, signal }) => {
        this.onExit(exitCode, signal ?? null);
        resolve();
      });
    });
    this.proc.onData((data: string | Buffer) =>
      this.onOutput(typeof data === 'string' ? Buffer.from(data) : data),
    );
    this.emit({
      type: 'spawn',
      sessionId: this.id,
      pid: this.proc.pid,
      command: this.command,
      cols: opts.cols,
      rows: opts.rows,
      at: this.createdAt,
    });
  }

  get name(): string {
    return this.label;
  }

  set name(value: string) {
    this.label = value;
  }

  get running(): boolean {
    return this.exit === null;
  }

  info(): SessionInfo {
    return {
      id: this.id,
      name: this.label,
      command: this.command,
      cwd: this.cwd,
      pid: this.proc.pid,
      createdAt: this.createdAt,
      status: this.exit === null ? 'running' : 'exited',
      exitCode: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
      cols: this.model.cols,
      rows: this.model.rows,
      viewers: this.viewers.size,
      offset: this.ring.endOffset,
      lastOutputAt: this.lastOutputAt,
    };
  }

  /** The current screen (exact at its offset). */
  snapshot(): Promise<ScreenSnapshot> {
    return this.model.snapshot();
  }

  /** Older plain-text history lines (see LineHistory). */
  history(before: number, count: number): { first: number; lines: string[] } {
    return this.model.history.read(before, count);
  }

  /**
   * Attaches a viewer. With `resumeFrom` still in the ring, it gets exactly the bytes from there on; otherwise
   * a fresh snapshot, then live output. With `size`, the PTY takes that size (last attach wins).
   */
  attach(
    sink: ViewerSink,
    opts: { resumeFrom?: number; size?: { cols: number; rows: number } } = {},
  ): Attachment {
    if (this.viewers.has(sink.id)) throw new RangeError(`viewer ${sink.id} is already attached`);
    if (this.viewers.size >= MAX_VIEWERS_PER_SESSION) {
      throw new ConflictError(`session ${this.id} already has ${MAX_VIEWERS_PER_SESSION} viewers`);
    }
    if (opts.size !== undefined) checkSize(opts.size.cols, opts.size.rows);
    const entry: ViewerEntry = { sink, state: 'pending', offset: 0, exitSent: false };
    this.viewers.set(sink.id, entry);
    this.emit({
      type: 'attach',
      sessionId: this.id,
      viewerId: sink.id,
      kind: sink.kind,
      at: this.opts.now(),
    });
    if (opts.size !== undefined) this.resize(opts.size.cols, opts.size.rows, sink.id);
    const resume = opts.resumeFrom;
    if (resume !== undefined && resume <= this.ring.endOffset && resume >= this.ring.startOffset) {
      entry.state = 'live';
      entry.offset = resume;
      this.catchUp(entry);
    } else {
      this.resync(entry, 'attach');
    }
    return {
      viewerId: sink.id,
      input: (data) => this.input(sink.id, data),
      resize: (cols, rows) => this.resize(cols, rows, sink.id),
      presence: (p) => this.presence(sink.id, p),
      drained: () => this.drained(sink.id),
      detach: () => this.detach(sink.id, 'detached'),
    };
  }

  input(viewerId: string, data: Uint8Array): void {
    if (data.byteLength > MAX_INPUT_BYTES) throw new RangeError(`input over ${MAX_INPUT_BYTES} bytes`);
    if (this.exit !== null || data.byteLength === 0) return;
    // Listeners hear the input before the PTY does (alert-spec: a keystroke acknowledges before its echo).
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    this.emit({
      type: 'input',
      sessionId: this.id,
      viewerId,
      bytes: data.byteLength,
      data: bytes,
      at: this.opts.now(),
    });
    this.proc.write(bytes as unknown as string);
  }

  /**
   * Bytes the terminal itself sends the program (focus reports CSI I / CSI O for a program that enabled them),
   * not any viewer's input: no input activity, so they never acknowledge anything.
   */
  terminalReply(data: string): void {
    if (this.exit !== null || data.length === 0) return;
    if (data.length > MAX_INPUT_BYTES) throw new RangeError(`terminal reply over ${MAX_INPUT_BYTES} bytes`);
    this.proc.write(data);
  }

  resize(cols: number, rows: number, viewerId: string | null): void {
    checkSize(cols, rows);
    if (cols === this.model.cols && rows === this.model.rows) return;
    // Before the PTY resizes, so the attention engine reads the redraw that follows as noise.
    this.emit({ type: 'resize', sessionId: this.id, viewerId, cols, rows, at: this.opts.now() });
    if (this.exit === null) this.proc.resize(cols, rows);
    this.model.resize(cols, rows);
    for (const v of this.viewers.values()) this.safeDeliver(v, { type: 'resize', cols, rows });
  }

  presence(viewerId: string, presence: Presence): void {
    if (!this.viewers.has(viewerId)) return;
    this.emit({ type: 'presence', sessionId: this.id, viewerId, presence, at: this.opts.now() });
  }

  detach(viewerId: string, reason: ViewerCloseReason): void {
    const v = this.viewers.get(viewerId);
    if (v === undefined) return;
    this.viewers.delete(viewerId);
    this.guard(() => v.sink.close(reason));
    this.emit({ type: 'detach', sessionId: this.id, viewerId, kind: v.sink.kind, at: this.opts.now() });
  }

  /**
   * Parks the screen model when no viewer is attached and the program has been quiet for HIBERNATE_AFTER_MS,
   * so idle sessions cost a serialized string instead of a terminal's cell buffers. Any output or attach
   * wakes it. `now` comes from the caller's clock.
   */
  maybeHibernate(now: number): Promise<boolean> {
    const last = this.lastOutputAt ?? this.createdAt;
    if (this.viewers.size > 0 || this.model.hibernated || now - last < HIBERNATE_AFTER_MS) {
      return Promise.resolve(false);
    }
    return this.model.hibernate();
  }

  /** SIGHUP, then SIGKILL after KILL_GRACE_MS; resolves when the process has exited. */
  terminate(): Promise<void> {
    if (this.exit === null && this.killTimer === undefined) {
      this.signal('SIGHUP');
      this.killTimer = setTimeout(() => this.signal('SIGKILL'), KILL_GRACE_MS);
      this.killTimer.unref();
    }
    return this.exited;
  }

  /** Detaches every viewer and frees the screen model; call after the process exited. */
  dispose(reason: ViewerCloseReason): void {
    for (const id of [...this.viewers.keys()]) this.detach(id, reason);
    clearTimeout(this.killTimer);
    this.model.dispose();
  }

  private signal(sig: 'SIGHUP' | 'SIGKILL'): void {
    if (this.exit !== null) return;
    try {
      this.proc.kill(sig);
    } catch (err) {
      this.opts.log('warn', `session ${this.id}: ${sig} failed: ${(err as Error).message}`);
    }
  }

  private onOutput(chunk: Buffer): void {
    const offset = this.ring.endOffset;
    this.ring.append(chunk);
    this.lastOutputAt = this.opts.now();
    for (const tap of this.opts.taps) this.guard(() => tap.output(this.id, chunk, offset));
    this.model.write(chunk);
    if (!this.paused && this.model.backlog > MAX_MODEL_BACKLOG_BYTES) {
      // Local backpressure only: the model must see every byte, so the PTY waits for it. Viewers never cause
      // this — a slow viewer is marked behind instead.
      this.paused = true;
      this.proc.pause();
      void this.model.whenParsed(() => {
        this.paused = false;
        if (this.exit === null) this.proc.resume();
      });
    }
    for (const v of this.viewers.values()) this.catchUp(v);
  }

  private onExit(exitCode: number, signal: number | null): void {
    clearTimeout(this.killTimer);
    // node-pty reports signal 0 for a normal exit; a signalled exit has no meaningful code.
    this.exit = signal ? { code: null, signal } : { code: exitCode, signal: null };
    for (const tap of this.opts.taps) this.guard(() => tap.exit?.(this.id));
    this.emit({
      type: 'exit',
      sessionId: this.id,
      exitCode: this.exit.code,
      signal: this.exit.signal,
      at: this.opts.now(),
    });
    // The exit follows the last bytes on every viewer: wait until the model has parsed them.
    void this.model.whenParsed(() => {
      this.exitFlushed = true;
      for (const v of this.viewers.values()) this.catchUp(v);
    });
  }

  /**
   * Sends a live viewer everything from its offset, or marks it behind if its transport is full; once the
   * program has exited and its last bytes are delivered, sends the exit (once).
   */
  private catchUp(v: ViewerEntry): void {
    if (v.state !== 'live') return;
    if (v.offset < this.ring.endOffset) {
      if (v.sink.backlog() > MAX_VIEWER_BACKLOG_BYTES) {
        v.state = 'behind';
        return;
      }
      const data = this.ring.readFrom(v.offset);
      if (data === null) {
        this.resync(v, 'resync');
        return;
      }
      const offset = v.offset;
      v.offset = this.ring.endOffset;
      this.safeDeliver(v, { type: 'output', offset, data });
    }
    if (this.exitFlushed && this.exit !== null && !v.exitSent) {
      v.exitSent = true;
      this.safeDeliver(v, { type: 'exit', exitCode: this.exit.code, signal: this.exit.signal });
    }
  }

  private drained(viewerId: string): void {
    const v = this.viewers.get(viewerId);
    if (v === undefined || v.state !== 'behind' || v.sink.backlog() > MAX_VIEWER_BACKLOG_BYTES) return;
    if (v.offset >= this.ring.startOffset) {
      v.state = 'live';
      this.catchUp(v);
    } else {
      this.resync(v, 'resync');
    }
  }

  private resync(v: ViewerEntry, reason: 'attach' | 'resync'): void {
    v.state = 'pending';
    this.model
      .snapshot()
      .then((snapshot) => {
        if (this.viewers.get(v.sink.id) !== v) return;
        this.safeDeliver(v, { type: 'snapshot', snapshot, reason });
        v.state = 'live';
        v.offset = snapshot.offset;
        this.catchUp(v);
      })
      .catch((err: unknown) => {
        this.opts.log('error', `session ${this.id}: snapshot failed: ${(err as Error).message}`);
        this.detach(v.sink.id, 'protocol-error');
      });
  }

  private safeDeliver(v: ViewerEntry, event: Parameters<ViewerSink['deliver']>[0]): void {
    this.guard(() => v.sink.deliver(event));
  }

  private emit(activity: SessionActivity): void {
    this.guard(() => this.opts.onActivity(activity));
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.opts.log('error', `session ${this.id}: a pipeline stage threw: ${(err as Error).message}`);
    }
  }
}

/**
 * How the command starts: a bare interactive bash / zsh / fish gets Burrow's shell integration with a fresh
 * nonce for this PTY (DESIGN §5 "Shell integration"); anything else runs exactly as given, with no nonce.
 */
function integratedLaunch(
  command: readonly [string, ...string[]],
  env: Record<string, string>,
  integrationDir: string | null,
): { file: string; args: readonly string[]; env: Record<string, string>; nonce: string | null } {
  const [file, ...args] = command;
  if (integrationDir === null) return { file, args, env, nonce: null };
  const nonce = createShellNonce();
  const launch = shellIntegrationLaunch({ shellPath: file, args, env, nonce, integrationDir });
  return launch.integrated
    ? { file: launch.file, args: launch.args, env: launch.env, nonce }
    : { file, args, env, nonce: null };
}
