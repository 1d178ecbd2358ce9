/**
 * One PTY and everything that watches it. Every output chunk goes through one pipeline, in stream order
 * (DESIGN §6): PTY read → output log → taps (parser → attention engine) → viewers, in events gathered up to
 * each viewer's message size and sent within OUTPUT_FLUSH_MS. The screen model is a cache of the log
 * (lazy-screen.ts): it is handed the log's bytes at checkpoints — every CHECKPOINT_BYTES, after a pause, or when
 * someone needs the screen — and parses elsewhere, so a read never waits for it.
 *
 * The PTY is paused (the program blocks on its next write, as on any terminal) while the screen model is more
 * than MAX_MODEL_BACKLOG_BYTES behind, while a local `burrow attach` is slower than the program (local viewers
 * are lossless), and for at most REMOTE_HOLD_MS while a phone drains a full window (viewer.ts).
 */
import { performance } from 'node:perf_hooks';
import { CHECKPOINT_BYTES, LazyScreen } from '../screen/lazy-screen.js';
import { MAX_HISTORY_PAGE } from '../screen/line-history.js';
import type { HistoryPage, ScreenHostFactory } from '../screen/screen-host.js';
import { checkSize, type ScreenSnapshot } from '../screen/screen-model.js';
import { WorkerScreenHost } from '../screen/worker-screen-host.js';
import {
  createShellNonce,
  type NonceFile,
  OPT_OUT_ENV,
  shellIntegrationLaunch,
  writeNonceFile,
} from '../shell-integration/index.js';
import {
  type Attachment,
  DEFAULT_OUTPUT_EVENT_BYTES,
  LOCAL_VIEWER_HOLD_BYTES,
  MAX_REFILL_CHARS,
  MAX_REFILL_LINES,
  MAX_SIZE_MARKS,
  MAX_VIEWER_BACKLOG_BYTES,
  MAX_VIEWERS_PER_SESSION,
  OUTPUT_FLUSH_MS,
  type Presence,
  REMOTE_HOLD_MS,
  REMOTE_STALL_MS,
  type ViewerCloseReason,
  type ViewerEvent,
  type ViewerSink,
} from '../viewer/viewer.js';
import type { ActivityListener, Logger, OutputTap, SessionActivity } from './activity.js';
import { OutputLog } from './output-log.js';
import { PtyProcess } from './pty-process.js';
import { sessionEnvironment } from './session-env.js';
import { LimitError } from './session-errors.js';
import { RESUME_WINDOW_MS, SizeAuthority, type SizeState } from './size-authority.js';

/** Recent raw output always kept for resume; a viewer further behind than this may get a snapshot instead. */
export const OUTPUT_KEEP_BYTES = 256 * 1024;
/**
 * Most output kept for viewers that are behind (a phone catching up, a snapshot in flight); past it the
 * slowest is resynced. Held only while someone needs it.
 */
export const OUTPUT_MAX_RETAINED_BYTES = 8 * 1024 * 1024;
/** Allocation unit of the output log (the log holds at most two blocks beyond what it must keep). */
export const OUTPUT_BLOCK_BYTES = 32 * 1024;
/**
 * Bytes handed to the screen model and not parsed yet before the PTY is paused (local backpressure, never a
 * viewer's). Below OUTPUT_MAX_RETAINED_BYTES, so the bytes after a snapshot's offset are always still held.
 */
export const MAX_MODEL_BACKLOG_BYTES = 4 * 1024 * 1024;
// The log holds every byte the model has not been handed (its floor), up to OUTPUT_MAX_RETAINED_BYTES whatever
// floors say: a checkpoint (plus one read past it) must always fit.
if (CHECKPOINT_BYTES + 64 * 1024 > OUTPUT_MAX_RETAINED_BYTES)
  throw new RangeError('CHECKPOINT_BYTES must stay below OUTPUT_MAX_RETAINED_BYTES');
/** Longest single input write accepted from a viewer. */
export const MAX_INPUT_BYTES = 64 * 1024;
/** A session nobody watches that has been quiet this long parks its screen model (see ScreenModel.hibernate). */
export const HIBERNATE_AFTER_MS = 30_000;
/** A process killed by signal n exits with status 128 + n in POSIX shells' `$?`. */
export const SIGNAL_EXIT_BASE = 128;
/** Grace between SIGHUP and SIGKILL when a session is killed. */
export const KILL_GRACE_MS = 1500;

export interface SessionSpawnOptions {
  readonly id: string;
  readonly name: string;
  readonly command: readonly [string, ...string[]];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Set after `env` is cleaned (session-env.ts): a resumed agent's own variables (ResumeLaunch.agentEnv). */
  readonly extraEnv?: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
  readonly now: () => number;
  readonly taps: readonly OutputTap[];
  readonly onActivity: ActivityListener;
  readonly log: Logger;
  /** Shell-integration scripts directory; null runs every command exactly as given. */
  readonly integrationDir: string | null;
  /** Where the screen model runs; the screen worker by default. */
  readonly screen?: ScreenHostFactory;
  /** How long a phone that lost its connection keeps the size (ms); RESUME_WINDOW_MS by default. */
  readonly resumeWindowMs?: number;
  /** Quiet time before an unwatched session parks its screen model; HIBERNATE_AFTER_MS by default. */
  readonly parkAfterMs?: number;
  /**
   * A line Burrow itself writes into the terminal before the program's first output (a resumed agent says
   * which conversation it resumed: src/recovery/). Plain text; the session ends it with CR LF.
   */
  readonly banner?: string;
  /** The coding-agent conversation this session was started on by a resume (src/recovery/); kept for its life. */
  readonly resumed?: AgentConversation;
}

/** A coding agent (`claude`, `codex`, `gemini`, `opencode`) and its own id for one conversation. */
export interface AgentConversation {
  readonly agent: string;
  readonly conversation: string;
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
  /** On such an entry: the coding-agent conversation `burrow resume` would start again (src/recovery/). */
  readonly resumable?: AgentConversation;
  /**
   * On a session `burrow resume` started: the conversation it resumed (running or ended). Every viewer says it
   * where a person looks — `burrow attach`'s first line, `burrow ls`, the phone's header — since most agents
   * clear the screen as they start and the in-terminal banner is gone with it.
   */
  readonly resumed?: AgentConversation;
}

/**
 * pending: waiting for its snapshot (output from `offset` is held for it); live: fed as output arrives;
 * waiting: a remote viewer over its backlog bound since `since` (opts.now; held for until REMOTE_STALL_MS); behind: a
 * remote viewer that stayed stuck, no longer held for — it catches up if it can, else is resynced.
 */
type ViewerState = 'pending' | 'live' | 'waiting' | 'behind';

interface ViewerEntry {
  readonly sink: ViewerSink;
  /** Its size-authority identity (sink.identity, else its id). */
  readonly identity: string;
  /** The sink's maxOutputBytes. */
  readonly maxOutput: number;
  state: ViewerState;
  /** Offset of the next byte this viewer should receive. */
  offset: number;
  since: number;
  /** While a waiting remote viewer holds the PTY: ends the hold after REMOTE_HOLD_MS. */
  holdTimer: NodeJS.Timeout | undefined;
  exitSent: boolean;
  /** `seq` of the last size state this viewer was told (or its snapshot reflects). */
  sizeSeq: number;
  /** The oldest absolute line this viewer keeps in its scrollback (R-ATTACH-8), or null: no refill. */
  refillFrom: number | null;
}

/** A size change at a point of the stream: viewers behind it are told when they reach `offset`. */
interface SizeMark {
  readonly offset: number;
  readonly state: SizeState;
}

export class Session {
  readonly id: string;
  private label: string;
  readonly command: readonly string[];
  /** Starts as the spawn directory; the attention host keeps it current from OSC 7 / OSC 9;9. */
  cwd: string;
  readonly createdAt: number;
  private readonly pty: PtyProcess;
  private readonly log: OutputLog;
  private readonly screen: LazyScreen;
  private readonly viewers = new Map<string, ViewerEntry>();
  private exit: { code: number | null; signal: number | null } | null = null;
  private lastOutputAt: number | null = null;
  /** Why the PTY is paused: 'model', or the id of a viewer whose transport is full (viewer.ts). */
  private readonly holds = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private lastReadAt = Number.NEGATIVE_INFINITY;
  /** A viewer typed since the last flush: what the PTY says next is (likely) its echo, sent at once. */
  private typed = false;
  private killTimer: NodeJS.Timeout | undefined;
  /** The shell's one-time nonce file, removed at the latest when the PTY exits (nonce-file.ts). */
  private readonly nonceFile: NonceFile | null;
  private readonly exited: Promise<void>;
  private disposed = false;
  /** Who decides the PTY size (size-authority.ts); its deadline runs on `authorityTimer`. */
  private readonly authority: SizeAuthority;
  private authorityTimer: NodeJS.Timeout | undefined;
  /** Size changes some viewer has not been told yet, oldest first (at most MAX_SIZE_MARKS). */
  private readonly sizeMarks: SizeMark[] = [];

  constructor(private readonly opts: SessionSpawnOptions) {
    checkSize(opts.cols, opts.rows);
    this.id = opts.id;
    this.label = opts.name;
    this.command = opts.command;
    this.cwd = opts.cwd;
    this.createdAt = opts.now();
    this.log = new OutputLog({
      blockBytes: OUTPUT_BLOCK_BYTES,
      keepBytes: OUTPUT_KEEP_BYTES,
      maxBytes: OUTPUT_MAX_RETAINED_BYTES,
      floor: () => this.retainFloor(),
    });
    this.authority = new SizeAuthority({
      size: { cols: opts.cols, rows: opts.rows },
      now: opts.now,
      resumeWindowMs: opts.resumeWindowMs ?? RESUME_WINDOW_MS,
    });
    const host = (opts.screen ?? ((o) => new WorkerScreenHost(o)))({
      cols: opts.cols,
      rows: opts.rows,
      onProgress: () => this.modelProgress(),
    });
    this.screen = new LazyScreen(this.log, host);
    // The daemon's environment minus its own and its launcher's variables (session-env.ts, issue 24.3).
    const env = Object.assign(sessionEnvironment(opts.env), opts.extraEnv);
    env.TERM = 'xterm-256color';
    env.COLORTERM = 'truecolor';
    env.BURROW_SESSION = opts.id;
    // The user's opt-out is read from the daemon's environment: BURROW_* never reaches the session's.
    const optedOut = opts.env[OPT_OUT_ENV] === '0';
    const launch = integratedLaunch(opts.command, env, optedOut ? null : opts.integrationDir);
    this.nonceFile = launch.nonceFile;
    let resolveExited!: () => void;
    this.exited = new Promise((resolve) => {
      resolveExited = resolve;
    });
    this.pty = new PtyProcess(
      {
        file: launch.file,
        args: launch.args,
        cwd: opts.cwd,
        env: launch.env,
        cols: opts.cols,
        rows: opts.rows,
      },
      {
        data: (chunk) => this.onOutput(chunk),
        exit: (code, signal) => {
          this.nonceFile?.dispose();
          this.onExit(code, signal);
          resolveExited();
        },
      },
    );
    const generation = { nonce: launch.nonce };
    for (const tap of opts.taps) this.guard(() => tap.spawn?.(this.id, generation));
    this.emit({
      type: 'spawn',
      sessionId: this.id,
      pid: this.pty.pid,
      command: this.command,
      cols: opts.cols,
      rows: opts.rows,
      at: this.createdAt,
    });
    // The PTY's first read comes on a later turn of the event loop: this line is the session's first output.
    if (opts.banner !== undefined) this.onOutput(Buffer.from(`${opts.banner.replace(/[\r\n]+/g, ' ')}\r\n`));
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
      pid: this.pty.pid,
      createdAt: this.createdAt,
      status: this.exit === null ? 'running' : 'exited',
      exitCode: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
      cols: this.screen.cols,
      rows: this.screen.rows,
      viewers: this.viewers.size,
      offset: this.log.endOffset,
      lastOutputAt: this.lastOutputAt,
      ...(this.opts.resumed !== undefined ? { resumed: this.opts.resumed } : {}),
    };
  }

  /** The current screen (exact at its offset). */
  snapshot(): Promise<ScreenSnapshot> {
    return this.screen.snapshot();
  }

  /** Older plain-text history lines (see LineHistory). */
  history(before: number, count: number): Promise<HistoryPage> {
    return this.screen.history(before, count);
  }

  /**
   * Attaches a viewer. With `resumeFrom` still in the log, it gets exactly the bytes from there on; otherwise
   * a fresh snapshot, then live output. `size` is the viewer's screen (the PTY's current size if absent).
   * `claim`: whether this attach takes the size (R-SIZE-1); by default an attach does and a resume
   * (`resumeFrom` given: the same viewer going on) does not take it from another viewer (R-SIZE-6).
   * `refillFrom`: the oldest line the viewer keeps, so its snapshots bring the lines from there (R-ATTACH-8).
   */
  attach(
    sink: ViewerSink,
    opts: {
      resumeFrom?: number;
      size?: { cols: number; rows: number };
      refillFrom?: number;
      claim?: boolean;
    } = {},
  ): Attachment {
    if (this.viewers.has(sink.id)) throw new RangeError(`viewer ${sink.id} is already attached`);
    if (this.viewers.size >= MAX_VIEWERS_PER_SESSION) {
      throw new LimitError(
        `session ${this.id} already has ${MAX_VIEWERS_PER_SESSION} viewers, Burrow's limit (MAX_VIEWERS_PER_SESSION)`,
      );
    }
    const maxOutput = sink.maxOutputBytes ?? DEFAULT_OUTPUT_EVENT_BYTES;
    if (!Number.isSafeInteger(maxOutput) || maxOutput < 1) {
      throw new RangeError('sink.maxOutputBytes must be a positive integer');
    }
    if (opts.size !== undefined) checkSize(opts.size.cols, opts.size.rows);
    const refillFrom = opts.refillFrom ?? null;
    if (refillFrom !== null && (!Number.isSafeInteger(refillFrom) || refillFrom < 0))
      throw new RangeError('refillFrom must be a non-negative integer');
    const entry: ViewerEntry = {
      sink,
      identity: sink.identity ?? sink.id,
      maxOutput,
      state: 'pending',
      offset: this.log.endOffset,
      since: 0,
      holdTimer: undefined,
      exitSent: false,
      sizeSeq: this.authority.state().seq,
      refillFrom,
    };
    this.viewers.set(sink.id, entry);
    this.emit({
      type: 'attach',
      sessionId: this.id,
      viewerId: sink.id,
      kind: sink.kind,
      at: this.opts.now(),
    });
    const resume = opts.resumeFrom;
    const size = opts.size ?? { cols: this.screen.cols, rows: this.screen.rows };
    const viewer = { id: sink.id, identity: entry.identity, kind: sink.kind };
    // The new viewer is pending: the change reaches it with its snapshot (or below, for a resume).
    const claim = opts.claim ?? resume === undefined;
    if (this.authority.attach(viewer, size, !claim)) this.sizeChanged(sink.id);
    if (resume !== undefined && resume <= this.log.endOffset && resume >= this.log.startOffset) {
      entry.state = 'live';
      entry.offset = resume;
      // Who holds the size, now (the bytes it resumes into were drawn at whatever size they were).
      entry.sizeSeq = this.authority.state().seq;
      this.safeDeliver(entry, this.sizeEvent(entry, this.authority.state()));
      this.catchUp(entry);
    } else {
      this.resync(entry, 'attach');
    }
    return {
      viewerId: sink.id,
      input: (data) => this.input(sink.id, data),
      resize: (cols, rows) => this.viewerSize(sink.id, cols, rows, false),
      fit: (cols, rows) => this.viewerSize(sink.id, cols, rows, true),
      presence: (p) => this.presence(sink.id, p),
      drained: () => this.drained(sink.id),
      resync: () => {
        const v = this.viewers.get(sink.id);
        if (v?.state === 'live') this.resync(v, 'resync');
      },
      detach: (how = 'detached') => this.detach(sink.id, 'detached', how),
    };
  }

  input(viewerId: string, data: Uint8Array): void {
    if (data.byteLength > MAX_INPUT_BYTES) throw new RangeError(`input over ${MAX_INPUT_BYTES} bytes`);
    if (this.exit !== null || data.byteLength === 0) return;
    // Typing ends an away holder's wait (R-SIZE-7), before the keystrokes reach the program: it reads them at
    // the size they were typed at. (After the write, a daemon preempted between the two calls on a loaded
    // machine let a quick `stty size` see the old size, 1 run in 8.)
    if (this.viewers.has(viewerId) && this.authority.used(viewerId)) this.sizeChanged(viewerId);
    // The PTY, then the listeners (issue 26: the attention engine's and the directory's work on a keystroke runs
    // while the program echoes it, not before). They still hear the input before its echo (alert-spec: a
    // keystroke acknowledges before its echo): the echo is a PTY read, a later turn of the event loop, and this
    // emit is synchronous.
    this.pty.write(data);
    this.typed = true;
    this.emit({
      type: 'input',
      sessionId: this.id,
      viewerId,
      bytes: data.byteLength,
      data,
      at: this.opts.now(),
    });
  }

  /** Input given to the PTY that its program has not read yet (R-FLOW-2 waits for it to drain). */
  pendingInputBytes(): number {
    return this.exit === null ? this.pty.pendingInputBytes : 0;
  }

  /**
   * Bytes the terminal itself sends the program (focus reports CSI I / CSI O for a program that enabled them),
   * not any viewer's input: no input activity, so they never acknowledge anything.
   */
  terminalReply(data: string): void {
    if (this.exit !== null || data.length === 0) return;
    if (data.length > MAX_INPUT_BYTES) throw new RangeError(`terminal reply over ${MAX_INPUT_BYTES} bytes`);
    this.pty.write(data);
  }

  /** A viewer's screen size (R-SIZE-3), or its take-back (`fit`, R-SIZE-2). */
  private viewerSize(viewerId: string, cols: number, rows: number, fit: boolean): void {
    checkSize(cols, rows);
    if (!this.viewers.has(viewerId)) return;
    const size = { cols, rows };
    const changed = fit ? this.authority.fit(viewerId, size) : this.authority.resize(viewerId, size);
    if (changed) this.sizeChanged(viewerId);
  }

  /**
   * The authority's answer changed: the PTY and the model take its size, and every viewer is told at this
   * point of the stream (output read before the change reaches each viewer before it does).
   */
  private sizeChanged(viewerId: string | null): void {
    if (this.disposed) return;
    const state = this.authority.state();
    const { cols, rows } = state.size;
    const resized = cols !== this.screen.cols || rows !== this.screen.rows;
    // Before the PTY resizes, so the attention engine reads the redraw that follows as noise.
    if (resized) this.emit({ type: 'resize', sessionId: this.id, viewerId, cols, rows, at: this.opts.now() });
    // The change sits here in the stream: live viewers get the output read so far, then the change.
    this.sizeMarks.push({ offset: this.log.endOffset, state });
    if (this.sizeMarks.length > MAX_SIZE_MARKS) this.sizeMarks.shift();
    this.flush();
    if (resized) {
      if (this.exit === null) this.pty.resize(cols, rows);
      // Queued after every byte written so far: the model resizes at the same point of the stream.
      this.screen.resize(cols, rows);
    }
    this.pruneSizeMarks();
    this.armAuthority();
  }

  /** Runs the authority's next deadline (a lost holder's resume window, R-SIZE-5). */
  private armAuthority(): void {
    clearTimeout(this.authorityTimer);
    this.authorityTimer = undefined;
    const due = this.authority.deadline();
    if (due === null || this.disposed) return;
    this.authorityTimer = setTimeout(
      () => {
        this.authorityTimer = undefined;
        if (this.authority.tick()) this.sizeChanged(null);
        else this.armAuthority();
      },
      Math.max(0, due - this.opts.now()),
    );
    this.authorityTimer.unref();
  }

  /** Forgets size marks every viewer has been told. */
  private pruneSizeMarks(): void {
    let seen = Number.POSITIVE_INFINITY;
    for (const v of this.viewers.values()) seen = Math.min(seen, v.sizeSeq);
    while (this.sizeMarks.length > 0 && this.sizeMarks[0]!.state.seq <= seen) this.sizeMarks.shift();
  }

  /** The size event for one viewer (viewer.ts): who holds, from that viewer's point of view. */
  private sizeEvent(v: ViewerEntry, state: SizeState): ViewerEvent {
    return {
      type: 'size',
      cols: state.size.cols,
      rows: state.size.rows,
      cause: state.cause,
      holder: state.holder === null ? null : state.holder === v.identity ? 'you' : state.holderKind,
      holderAway: state.holderAway,
    };
  }

  presence(viewerId: string, presence: Presence): void {
    if (!this.viewers.has(viewerId)) return;
    this.emit({ type: 'presence', sessionId: this.id, viewerId, presence, at: this.opts.now() });
  }

  /** `how`: a deliberate detach, or a lost connection (a phone keeps the size a while, R-SIZE-5). */
  detach(viewerId: string, reason: ViewerCloseReason, how: 'detached' | 'lost' = 'detached'): void {
    const v = this.viewers.get(viewerId);
    if (v === undefined) return;
    this.viewers.delete(viewerId);
    clearTimeout(v.holdTimer);
    this.release(viewerId);
    this.log.trim();
    this.guard(() => v.sink.close(reason));
    this.emit({ type: 'detach', sessionId: this.id, viewerId, kind: v.sink.kind, at: this.opts.now() });
    if (this.authority.detach(viewerId, how)) this.sizeChanged(null);
    else this.pruneSizeMarks();
  }

  /**
   * Parks the screen model when no viewer is attached and the program has been quiet for HIBERNATE_AFTER_MS,
   * so idle sessions cost a serialized string instead of a terminal's cell buffers. Any output or attach
   * wakes it. `now` comes from the caller's clock.
   */
  async maybeHibernate(now: number): Promise<boolean> {
    const last = this.lastOutputAt ?? this.createdAt;
    const after = this.opts.parkAfterMs ?? HIBERNATE_AFTER_MS;
    if (this.viewers.size > 0 || this.screen.hibernated || now - last < after) return false;
    const parked = await this.screen.hibernate();
    // Said once per park, so a screen that looks wrong after a quiet spell can be traced to it.
    if (parked) {
      this.opts.log(
        'info',
        `session ${this.id}: screen model parked (quiet ${Math.round((now - last) / 1000)} s, no viewer); the next output or attach wakes it`,
      );
    }
    return parked;
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
    // First: viewers leaving a disposed session move no size.
    this.disposed = true;
    for (const id of [...this.viewers.keys()]) this.detach(id, reason);
    clearTimeout(this.killTimer);
    clearTimeout(this.flushTimer);
    clearTimeout(this.authorityTimer);
    this.screen.dispose();
  }

  private signal(sig: 'SIGHUP' | 'SIGKILL'): void {
    if (this.exit !== null) return;
    try {
      this.pty.kill(sig);
    } catch (err) {
      this.opts.log('warn', `session ${this.id}: ${sig} failed: ${(err as Error).message}`);
    }
  }

  /** `chunk` is the PTY reader's buffer: everything here copies what it keeps. */
  private onOutput(chunk: Uint8Array): void {
    if (this.disposed) return;
    const offset = this.log.endOffset;
    this.log.append(chunk);
    this.lastOutputAt = this.opts.now();
    for (const tap of this.opts.taps) this.guard(() => tap.output(this.id, chunk, offset));
    this.screen.advance();
    if (this.screen.backlog > MAX_MODEL_BACKLOG_BYTES) this.hold('model');
    this.scheduleFlush();
  }

  private modelProgress(): void {
    if (this.screen.backlog <= MAX_MODEL_BACKLOG_BYTES / 2) this.release('model');
  }

  private onExit(exitCode: number, signal: number | null): void {
    clearTimeout(this.killTimer);
    // One exit-code convention everywhere (`ls`, `await`, rings, the phone): a signal death is 128 + n, as a
    // shell reports it, with the signal kept beside it so it can be named (issue 23).
    this.exit = signal ? { code: SIGNAL_EXIT_BASE + signal, signal } : { code: exitCode, signal: null };
    this.holds.clear();
    for (const tap of this.opts.taps) this.guard(() => tap.exit?.(this.id));
    this.emit({
      type: 'exit',
      sessionId: this.id,
      exitCode: this.exit.code,
      signal: this.exit.signal,
      at: this.opts.now(),
    });
    // The PTY delivered every byte before its exit: send them all, then the exit, to every live viewer.
    this.flush();
  }

  /**
   * Output goes out at once when it follows a keystroke (the echo) or a quiet spell of OUTPUT_FLUSH_MS; while
   * the program streams, reads are gathered for up to OUTPUT_FLUSH_MS, or until a viewer has a whole
   * message's worth.
   */
  private scheduleFlush(): void {
    if (this.viewers.size === 0) return;
    const now = performance.now();
    const quiet = now - this.lastReadAt >= OUTPUT_FLUSH_MS;
    this.lastReadAt = now;
    if (quiet || this.typed || this.someViewerHasFullMessage()) {
      this.flush();
      return;
    }
    this.flushTimer ??= setTimeout(() => this.flush(), Math.max(0, this.lastFlushAt + OUTPUT_FLUSH_MS - now));
  }

  private someViewerHasFullMessage(): boolean {
    const end = this.log.endOffset;
    for (const v of this.viewers.values()) {
      if (v.state === 'live' && end - v.offset >= v.maxOutput) return true;
    }
    return false;
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.typed = false;
    this.lastFlushAt = performance.now();
    for (const v of this.viewers.values()) this.catchUp(v);
  }

  /**
   * Sends a live viewer everything from its offset, in events of at most its message size. A remote viewer
   * whose transport is over its bound waits instead; a local one is sent everything and, if its transport is
   * over LOCAL_VIEWER_HOLD_BYTES, pauses the PTY until it drains. Once the program has exited and its last bytes
   * are delivered, sends the exit (once).
   */
  private catchUp(v: ViewerEntry): void {
    if (v.state !== 'live') return;
    const remote = v.sink.kind === 'remote';
    for (;;) {
      // Size changes are part of the stream: each reaches the viewer exactly where it happened.
      const mark = this.nextSizeMark(v);
      if (mark === null) {
        // It missed more changes than are remembered: start it over from a snapshot.
        this.resync(v, 'resync');
        return;
      }
      if (mark !== undefined && mark.offset <= v.offset) {
        v.sizeSeq = mark.state.seq;
        this.safeDeliver(v, this.sizeEvent(v, mark.state));
        if (this.viewers.get(v.sink.id) !== v || v.state !== 'live') return;
        continue;
      }
      const end = mark?.offset ?? this.log.endOffset;
      if (v.offset >= end) break;
      if (remote && v.sink.backlog() > MAX_VIEWER_BACKLOG_BYTES) {
        v.state = 'waiting';
        v.since = this.opts.now();
        // Give it REMOTE_HOLD_MS to drain with the program paused (viewer.ts): a phone that keeps up loses
        // nothing; one that does not holds the program no longer.
        this.hold(v.sink.id);
        v.holdTimer = setTimeout(() => this.release(v.sink.id), REMOTE_HOLD_MS);
        v.holdTimer.unref();
        return;
      }
      const data = this.log.read(v.offset, Math.min(v.maxOutput, end - v.offset));
      if (data === null) {
        this.resync(v, 'resync');
        return;
      }
      const offset = v.offset;
      v.offset += data.byteLength;
      this.safeDeliver(v, { type: 'output', offset, data });
      if (this.viewers.get(v.sink.id) !== v || v.state !== 'live') return;
    }
    if (!remote && this.exit === null && v.sink.backlog() > LOCAL_VIEWER_HOLD_BYTES) this.hold(v.sink.id);
    if (this.exit !== null && !v.exitSent) {
      v.exitSent = true;
      this.safeDeliver(v, { type: 'exit', exitCode: this.exit.code, signal: this.exit.signal });
    }
  }

  /**
   * The next size change `v` has not been told: undefined if none, null if it was forgotten (the viewer
   * missed more than MAX_SIZE_MARKS).
   */
  private nextSizeMark(v: ViewerEntry): SizeMark | undefined | null {
    if (v.sizeSeq >= this.authority.state().seq) return undefined;
    for (const m of this.sizeMarks)
      if (m.state.seq > v.sizeSeq) return m.state.seq === v.sizeSeq + 1 ? m : null;
    return null;
  }

  private drained(viewerId: string): void {
    const v = this.viewers.get(viewerId);
    if (v === undefined) return;
    if (v.sink.kind === 'local') {
      if (v.sink.backlog() > LOCAL_VIEWER_HOLD_BYTES) return;
      this.release(viewerId);
      this.catchUp(v);
      return;
    }
    if ((v.state !== 'waiting' && v.state !== 'behind') || v.sink.backlog() > MAX_VIEWER_BACKLOG_BYTES)
      return;
    clearTimeout(v.holdTimer);
    this.release(v.sink.id);
    // A viewer stuck past REMOTE_STALL_MS gave up its claim: it gets a snapshot unless the keep window still
    // reaches back to it (the same answer whether or not output arrived since).
    this.log.trim();
    if (v.offset >= this.log.startOffset) {
      v.state = 'live';
      this.catchUp(v);
      this.log.trim();
    } else {
      this.resync(v, 'resync');
    }
  }

  /**
   * The oldest offset someone still needs kept: the screen model's next checkpoint starts there, and every
   * viewer's next byte; a remote viewer stuck past REMOTE_STALL_MS gives up its claim.
   */
  private retainFloor(): number {
    let floor = this.screen.floor;
    const now = this.opts.now();
    for (const v of this.viewers.values()) {
      if (v.state === 'waiting' && now - v.since >= REMOTE_STALL_MS) v.state = 'behind';
      if (v.state !== 'behind') floor = Math.min(floor, v.offset);
    }
    return floor;
  }

  private hold(reason: string): void {
    if (this.holds.has(reason) || this.exit !== null) return;
    this.holds.add(reason);
    if (this.holds.size === 1) this.pty.pause();
  }

  private release(reason: string): void {
    if (!this.holds.delete(reason)) return;
    if (this.holds.size === 0) this.pty.resume();
  }

  private resync(v: ViewerEntry, reason: 'attach' | 'resync'): void {
    v.state = 'pending';
    // The snapshot is exact at this offset (the model has been handed every byte read so far): keep what
    // follows in the log until the viewer has caught up from it. Its size is the authority's now (every size
    // change so far is queued in the model before the snapshot); later ones follow it in stream order.
    v.offset = this.log.endOffset;
    const sizeAtSnapshot = this.authority.state();
    v.sizeSeq = sizeAtSnapshot.seq;
    this.screen
      .snapshot()
      .then(async (snapshot) => ({ snapshot, refill: await this.refill(v, snapshot.historyEnd) }))
      .then(({ snapshot, refill }) => {
        if (this.viewers.get(v.sink.id) !== v) return;
        this.safeDeliver(v, { type: 'snapshot', snapshot, reason, refill });
        if (v.refillFrom !== null) v.refillFrom = refill?.first ?? snapshot.historyEnd;
        this.safeDeliver(v, this.sizeEvent(v, sizeAtSnapshot));
        v.state = 'live';
        v.offset = snapshot.offset;
        this.catchUp(v);
        this.pruneSizeMarks();
      })
      .catch((err: unknown) => {
        this.opts.log('error', `session ${this.id}: snapshot failed: ${(err as Error).message}`);
        this.detach(v.sink.id, 'protocol-error');
      });
  }

  /**
   * The lines a viewer that keeps its scrollback had before `end` (R-ATTACH-8): from its `refillFrom`, at
   * most MAX_REFILL_LINES and MAX_REFILL_CHARS (the oldest are left out), as far as history still holds them.
   */
  private async refill(v: ViewerEntry, end: number): Promise<HistoryPage | null> {
    if (v.refillFrom === null || v.refillFrom >= end) return null;
    const from = Math.max(v.refillFrom, end - MAX_REFILL_LINES);
    const pages: string[][] = [];
    let first = end;
    let chars = 0;
    while (first > from && chars < MAX_REFILL_CHARS) {
      const page = await this.screen.history(first, Math.min(MAX_HISTORY_PAGE, first - from));
      if (page.lines.length === 0) break;
      pages.unshift(page.lines);
      first = page.first;
      for (const l of page.lines) chars += l.length;
    }
    const lines = pages.flat();
    // Over the character bound: the oldest lines go.
    let drop = 0;
    while (chars > MAX_REFILL_CHARS && drop < lines.length) chars -= lines[drop++]!.length;
    if (lines.length - drop === 0) return null;
    return { first: first + drop, lines: drop === 0 ? lines : lines.slice(drop) };
  }

  private safeDeliver(v: ViewerEntry, event: ViewerEvent): void {
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
): {
  file: string;
  args: readonly string[];
  env: Record<string, string>;
  nonce: string | null;
  nonceFile: NonceFile | null;
} {
  const [file, ...args] = command;
  const plain = { file, args, env, nonce: null, nonceFile: null };
  if (integrationDir === null) return plain;
  const nonce = createShellNonce();
  const nonceFile = writeNonceFile(nonce);
  const launch = shellIntegrationLaunch({
    shellPath: file,
    args,
    env,
    nonceFile: nonceFile.path,
    integrationDir,
  });
  if (launch.integrated) return { file: launch.file, args: launch.args, env: launch.env, nonce, nonceFile };
  nonceFile.dispose();
  return plain;
}
