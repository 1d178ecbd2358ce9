/**
 * The per-session AlertManager (alert-spec Public State, Completion events, Terminal reports, Command-exit
 * Track, Clearing And TODO). It owns one ring latch, the always-on QuiesceDetector, the progress sub-state,
 * the commandExitWatch, held and deferred completions, and the session's awaits. Pure: time is an argument,
 * deadlines are read with nextDeadline(), and every outward act is pushed onto an effect list.
 */
import { capabilityReply } from '../terminal/capability-replies.js';
import type { TerminalEvent } from '../terminal/events.js';
import {
  type AwaitCause,
  AwaitRegistry,
  type AwaitRequest,
  type AwaitResolution,
  type AwaitSignal,
  type CommandExit,
  NO_EXIT,
} from './awaits.js';
import { earliest } from './clock.js';
import { Deferral } from './deferral.js';
import type { DisengageReason } from './engagement.js';
import { HeldCompletions } from './held.js';
import {
  type ActivityNotification,
  BELL_NOTIFICATION,
  commandExitNotification,
  programStatusNotification,
  progressNotification,
  richer,
  titleNotification,
  wantsContext,
  watchingNotification,
  withContext,
} from './notification.js';
import type { PersistedAlert } from './persistence.js';
import { ProgressCycle } from './progress-cycle.js';
import { QuiesceDetector, type QuiesceStatus } from './quiesce-detector.js';
import type { ReportKey } from './report-keys.js';
import { type RaiseOrigin, type Ring, RingLatch, type RingSource } from './ring-latch.js';
import type { AlertSettings } from './settings.js';
import { ALERT_TIMING } from './timing.js';
import { type TitlePhase, titlePhase } from './title-signals.js';
import { commandWatchKey, MAX_COMMAND_LINE_CHARS } from './watch-key.js';

export type SessionStatus =
  | 'ALERT_RINGING'
  | 'OSC_NOTIF_BUSY'
  | QuiesceStatus
  | 'COMMAND_EXIT_ARMED'
  | 'WATCHING_DISABLED';

/** The user verbs (alert-spec Clearing And TODO). */
export type AlertVerb =
  | 'acknowledge'
  | 'acknowledge-with-input'
  | 'dismiss'
  | 'todo-on'
  | 'todo-off'
  | 'todo-toggle'
  | 'clear-todo';

export const ALERT_VERBS: readonly AlertVerb[] = [
  'acknowledge',
  'acknowledge-with-input',
  'dismiss',
  'todo-on',
  'todo-off',
  'todo-toggle',
  'clear-todo',
];

/** What a session's manager asks the world to do. */
export type ManagerEffect =
  | { readonly type: 'pty-write'; readonly data: string }
  | { readonly type: 'cwd'; readonly cwd: string }
  | {
      readonly type: 'await-resolved';
      readonly realmId: string;
      readonly awaitId: string;
      readonly cause: AwaitCause;
      /** For `exit` and `died`: the exit code and command line (awaits.ts CommandExit); else null. */
      readonly exitCode: number | null;
      readonly command: string | null;
    };

/** CSI I / CSI O: focus in / out, written to a program that enabled DECSET 1004. */
export const FOCUS_IN = '\x1b[I';
export const FOCUS_OUT = '\x1b[O';

export interface ManagerDeps {
  /** The WATCHING matcher over the current rule set. */
  readonly ruleFor: (key: string | null) => string | null;
  readonly settings: () => AlertSettings;
  readonly nextEpisodeId: () => number;
}

type Completion =
  | { readonly kind: 'settle' }
  | {
      readonly kind: 'finish';
      readonly command: CommandWatch;
      readonly exitCode: number | null;
      readonly signal: string | null;
    }
  | { readonly kind: 'report'; readonly detail: ActivityNotification; readonly reportId: ReportKey };

/** commandExitWatch: the foreground command, shared by WATCHING and command-exit (alert-spec). */
interface CommandWatch {
  readonly line: string | null;
  readonly key: string | null;
  seen: boolean;
  /** The session's own command (`burrow new -- CMD`), running from the spawn until the PTY exits. */
  readonly own: boolean;
}

/** Key of an OSC 7501 record in ReportKeys (report-keys.ts). */
const statusKey = (id: string): string => `7501:${id}`;
/** Key of a needs-you title in ReportKeys. */
const TITLE_KEY = 'title:';
/**
 * How long after a submitted line the program's first output still counts as its answer (a model thinking in
 * silence answers within this); later output is not taken as one.
 */
const TURN_REPLY_MS = 60_000;
/** Output this close before a disengage means the session was producing output when its viewer left. */
const PRODUCING_OUTPUT_MS = ALERT_TIMING.busyCandidateGap + ALERT_TIMING.busyConfirmGap;

/**
 * A program's own statement of its state (OSC 7501, an agent's title) is never a keystroke's echo: it is not
 * dropped in the echo window (issue 23: a turn that ends within a second of the typed answer still rings).
 */
function programSaid(detail: ActivityNotification): boolean {
  return detail.source === 'osc7501' || detail.source === 'title';
}

/** Only these reports wait for quiet under deferAlertsUntilQuiet; a text notification rings at once (issue 13). */
function deferrable(detail: ActivityNotification): boolean {
  return detail.source === 'bell' || detail.source === 'progress';
}

/** A deferred report's key: deferral holds only bells and progress ends, which carry no id. */
function deferredKey(detail: ActivityNotification): ReportKey {
  return detail.source === 'bell' ? undefined : null;
}

/** A command watch for `line` (bounded), keyed by commandWatchKey as a shell-integration command is. */
function commandWatch(line: string | null, seen: boolean, own: boolean): CommandWatch {
  const bounded = line === null ? null : line.slice(0, MAX_COMMAND_LINE_CHARS);
  return { line: bounded, key: bounded === null ? null : commandWatchKey(bounded), seen, own };
}

const SIGNAL_OF: Readonly<Record<RingSource, AwaitSignal>> = {
  report: 'bell',
  exit: 'exit',
  watching: 'quiet',
};

export class AlertManager {
  readonly #deps: ManagerDeps;
  readonly #latch = new RingLatch();
  readonly #detector = new QuiesceDetector();
  readonly #awaits = new AwaitRegistry();
  #command: CommandWatch | null = null;
  readonly #held = new HeldCompletions();
  readonly #deferred = new Deferral();
  readonly #progress = new ProgressCycle();
  /** A user verb cleared a ring or dropped a hold, and no output, ring or command start came since. */
  #acknowledged = false;
  #engaged = false;
  #echoUntil = Number.NEGATIVE_INFINITY;
  #resizeUntil = Number.NEGATIVE_INFINITY;
  #focusReporting = false;
  #exited = false;
  /** How the PTY ended (for awaits that arrive after), and whether that ended the session's own command. */
  #exit: CommandExit = NO_EXIT;
  #ownExited = false;
  /** When output last arrived, echo and resize noise included (for "producing output when the viewer left"). */
  #lastRawOutput = Number.NEGATIVE_INFINITY;
  /** When the owner last submitted a line (Enter), until output past its echo window (then it is just output). */
  #submittedAt: number | null = null;
  /** The phase the foreground agent's title last signalled (title-signals.ts), reset at each command start. */
  #titlePhase: TitlePhase | null = null;
  /** The ring detail the screen was last asked to describe (takeContextRequest). */
  #contextAskedFor: ActivityNotification | null = null;

  /**
   * `ownCommand`: the session runs this command line itself (`burrow new -- CMD`), so it is the foreground
   * command from the spawn — WATCHING, command-exit and awaits treat it as a command typed into an integrated
   * shell, and the PTY's exit is its finish (issue 13). Null for a shell session. The person who started it
   * has seen it (issue 23): its exit rings by the command-exit rules when nobody looks.
   */
  constructor(deps: ManagerDeps, seed: PersistedAlert | null = null, ownCommand: string | null = null) {
    this.#deps = deps;
    // A cold restore seeds only todo and its notification: never a ring, a progress cycle or an exit arm —
    // except a ring still owed its push (restoreOwed).
    if (seed?.todo) this.#latch.setTodo(true, seed.notification);
    if (ownCommand !== null) this.#command = commandWatch(ownCommand, true, true);
  }

  /**
   * A ring that was open when the daemon stopped, its push not yet sent (issue 23: restart keeps what was
   * owed): it rings again as a new episode with its detail, so the push it owed goes out. A ring already
   * pushed comes back as the TODO a look would leave (alert-spec Public State), never re-rung.
   */
  restoreOwed(notification: ActivityNotification, now: number): void {
    const source: RingSource =
      notification.source === 'exit' ? 'exit' : notification.source === 'watching' ? 'watching' : 'report';
    this.#latch.setTodo(false, null);
    this.#raise(source, notification, now, null, source === 'report' ? { reportId: null } : {});
    this.#contextAskedFor = notification; // what the screen said then is kept; there is no screen now
  }

  /**
   * The ring's detail wants words from the screen (notification.ts wantsContext) and has not been asked for
   * yet: returns its episode once per detail, for the host to read the screen (issue 23). Else null.
   */
  takeContextRequest(): number | null {
    const ring = this.#latch.ring;
    if (ring === null || ring.detail === this.#contextAskedFor) return null;
    this.#contextAskedFor = ring.detail;
    return wantsContext(ring.detail) && !ring.detail.context ? ring.episodeId : null;
  }

  /** What the screen said for episode `episodeId` (host, screen-detail.ts); ignored once the ring moved on. */
  setContext(episodeId: number, context: string): void {
    const ring = this.#latch.ring;
    if (ring === null || ring.episodeId !== episodeId || !wantsContext(ring.detail)) return;
    if (ring.detail !== this.#contextAskedFor) return; // a newer detail replaced it: its own read follows
    ring.detail = withContext(ring.detail, context);
    this.#contextAskedFor = ring.detail;
  }

  // ---- public view ----

  get status(): SessionStatus {
    if (this.#latch.ring) return 'ALERT_RINGING';
    if (this.#progress.active) return 'OSC_NOTIF_BUSY';
    if (this.watching) return this.#detector.status;
    if (this.armed) return 'COMMAND_EXIT_ARMED';
    return 'WATCHING_DISABLED';
  }

  get ring(): Readonly<Ring> | null {
    return this.#latch.ring;
  }

  get todo(): boolean {
    return this.#latch.todo;
  }

  get notification(): ActivityNotification | null {
    return this.#latch.notification;
  }

  get awaited(): boolean {
    return this.#awaits.size > 0;
  }

  get watchKey(): string | null {
    return this.#command?.key ?? null;
  }

  get command(): string | null {
    return this.#command?.line ?? null;
  }

  /** A rule covers the foreground command's key. */
  get watching(): boolean {
    return this.#command !== null && this.#deps.ruleFor(this.#command.key) !== null;
  }

  /** Derived, never stored: a seen command running while the session is not engaged. */
  get armed(): boolean {
    return this.#command?.seen === true && !this.#engaged;
  }

  get exited(): boolean {
    return this.#exited;
  }

  /**
   * What survives a restart: an unacknowledged ring persists as the TODO a look would leave; `owed` (its push
   * not yet sent, the engine knows) brings it back ringing (restoreOwed).
   */
  persisted(owed = false): PersistedAlert {
    const ring = this.#latch.ring;
    if (ring)
      return { todo: true, notification: ring.detail, status: this.status, ...(owed ? { owed } : {}) };
    return {
      todo: this.#latch.todo,
      notification: this.#latch.todo ? this.#latch.todoNotification : null,
      status: this.status,
    };
  }

  // ---- inputs ----

  terminalEvent(ev: TerminalEvent, now: number, out: ManagerEffect[]): void {
    switch (ev.type) {
      case 'bell':
        this.#dispatch({ kind: 'report', detail: BELL_NOTIFICATION, reportId: undefined }, now, out);
        return;
      case 'notify': {
        const title = ev.title.trim() === '' ? null : ev.title;
        const body = ev.body.trim() === '' ? null : ev.body;
        if (title === null && body === null) return; // empty sanitized reports are ignored
        const reportId = ev.source === 'osc99' ? (ev.id ?? '') : null;
        this.#dispatch({ kind: 'report', detail: { source: ev.source, title, body }, reportId }, now, out);
        return;
      }
      case 'notify-close':
        this.#closeReports((id) => id === ev.id);
        return;
      case 'program-status':
        this.#programStatus(ev, now, out);
        return;
      case 'capability-query':
        // Burrow is the terminal that notifies: it answers for itself (capability-replies.ts, issue 23).
        out.push({ type: 'pty-write', data: capabilityReply(ev.protocol, ev.id) });
        return;
      case 'progress': {
        const end = this.#progress.apply(ev.state, ev.value);
        if (end) {
          // The cycle is already over, so it ends whether or not the completion is claimed.
          const name = this.#command?.key ?? this.#command?.line ?? null;
          this.#dispatch(
            { kind: 'report', detail: progressNotification(name, end.outcome, end.percent), reportId: null },
            now,
            out,
          );
        }
        return;
      }
      case 'cwd':
        out.push({ type: 'cwd', cwd: ev.cwd });
        return;
      case 'prompt-start':
      case 'command-input-start':
        this.#boundary();
        return;
      case 'command-start':
        this.#boundary();
        // A different command start clears the previous watch without ringing.
        this.#command = commandWatch(ev.commandLine, this.#engaged, false);
        this.#acknowledged = false;
        this.#titlePhase = null;
        this.#awaits.commandStarted();
        return;
      case 'command-end':
        this.#boundary();
        this.#finishCommand(ev.exitCode, now, out);
        return;
      case 'focus-reporting':
        this.#focusReporting = ev.enabled;
        // Tell the program where it stands right away (Codex assumes focus until told otherwise).
        if (ev.enabled) out.push({ type: 'pty-write', data: this.#engaged ? FOCUS_IN : FOCUS_OUT });
        return;
      case 'output':
        if (ev.bytes > 0) this.output(now);
        return;
      case 'title':
        if (ev.which !== 'icon') this.#title(ev.title, now, out);
        return;
      case 'property':
        return;
    }
  }

  /** Meaningful output, unless it falls in the echo window or is resize redraw noise. */
  output(now: number): void {
    this.#lastRawOutput = now;
    const submitted = this.#submittedAt;
    if (submitted !== null && now >= this.#echoUntil) this.#submittedAt = null; // from here output is output
    // After a submitted line, what a watched program writes is its answer — a turn, BUSY until it goes quiet —
    // even inside the echo window: an agent's reply or permission prompt can come within a second of the
    // Enter, and its end must still settle (issue 23; attention README "Choices").
    if (submitted !== null && now - submitted <= TURN_REPLY_MS && this.watching) this.#detector.markBusy(now);
    if (now < this.#echoUntil || now < this.#resizeUntil) return;
    this.#acknowledged = false;
    const ring = this.#latch.ring;
    if (ring?.sources.has('watching')) ring.outputSinceWatching = true;
    this.#deferred.output(now);
    this.#awaits.output();
    if (this.#detector.output(now) === 'busy' && this.#deps.settings().deferAlertsUntilQuiet) {
      // Watched work resumed: withdraw the watching source, ringing or held; a short redraw never gets here.
      this.#latch.withdraw('watching');
      this.#held.dropSource('watching');
    }
  }

  /** Human input written to the PTY: acknowledges with input and opens the echo window. */
  userInput(now: number, submitted = false): void {
    this.verb('acknowledge-with-input');
    this.#echoUntil = now + ALERT_TIMING.echoWindow;
    if (submitted) this.#submittedAt = now;
  }

  /** The host is about to resize the PTY: the redraw that follows is not output. */
  resized(now: number): void {
    this.#resizeUntil = now + ALERT_TIMING.resizeDebounce;
  }

  /**
   * The PTY exited: a running command finishes, then every await still parked dies. `signal` names the
   * signal that killed it, if one did (`exitCode` is then 128 + n).
   */
  ptyExited(exitCode: number | null, now: number, out: ManagerEffect[], signal: string | null = null): void {
    this.#boundary();
    const own = this.#command?.own === true;
    this.#exit = { exitCode, command: own ? this.#command!.line : null };
    this.#ownExited = own;
    this.#finishCommand(exitCode, now, out, signal);
    this.#exited = true;
    this.#focusReporting = false; // the program that asked is gone
    this.#resolve(this.#awaits.resolveAll('died', this.#exit), out);
  }

  /** Session removal or respawn: awaits die, held and deferred work goes, nothing rings. */
  dispose(out: ManagerEffect[], cause: 'died' | 'cancelled' = 'died'): void {
    this.#held.take();
    this.#deferred.take();
    this.#resolve(this.#awaits.resolveAll(cause), out);
  }

  setEngaged(engaged: boolean, reason: DisengageReason, now: number, out: ManagerEffect[]): void {
    if (engaged === this.#engaged) return;
    this.#engaged = engaged;
    if (this.#focusReporting) out.push({ type: 'pty-write', data: engaged ? FOCUS_IN : FOCUS_OUT });
    if (engaged) {
      if (this.#command) this.#command.seen = true;
      return;
    }
    // A watched command producing output when its last viewer left counts as busy, so its settle rings even
    // when the work ends before output alone would confirm BUSY (issue 23: turn ends are not missed).
    if (this.watching && now - this.#lastRawOutput <= PRODUCING_OUTPUT_MS)
      this.#detector.markBusy(this.#lastRawOutput);
    const held = this.#held.take();
    if (held === null) return;
    // Presence lapsing idle with focus unchanged rings what was held, each source by its unengaged path.
    if (reason === 'idle') {
      for (const source of held.sources) {
        this.#raise(source, held.detail, now, held.watchKey, { reports: held.reports, exit: held.exit });
      }
      return;
    }
    // Any other end (detach, focus moving away, leaving) drops the hold — except a report nobody answered with
    // input: the program asked for something while the viewer looked on, so it stays a TODO with its detail,
    // never a ring (issue 13; attention README "Choices"). Typing would have dropped the hold already.
    if (held.sources.has('report') && held.reportDetail !== null) {
      this.#latch.setTodo(
        true,
        this.#latch.todo ? richer(this.#latch.todoNotification, held.reportDetail) : held.reportDetail,
      );
    }
  }

  verb(verb: AlertVerb): void {
    const ring = this.#latch.ring;
    if (verb === 'dismiss' && ring === null) return; // nothing ringing: no change, a deferral kept
    const cleared = this.#latch.clear();
    const dropped = this.#held.take() !== null;
    this.#deferred.take();
    const detail = cleared?.detail ?? null;
    switch (verb) {
      case 'acknowledge':
      case 'dismiss':
        if (cleared) this.#latch.setTodo(true, detail);
        break;
      case 'acknowledge-with-input':
      case 'clear-todo':
      case 'todo-off':
        this.#latch.setTodo(false, null);
        break;
      case 'todo-on':
        this.#latch.setTodo(true, detail ?? this.#latch.todoNotification);
        break;
      case 'todo-toggle':
        if (this.#latch.todo) this.#latch.setTodo(false, null);
        else this.#latch.setTodo(true, detail);
        break;
    }
    if (this.#command) this.#command.seen = true;
    if (cleared || dropped) this.#acknowledged = true;
    // Its output tail must not settle again into a second summons — for any ring, not only a watching one:
    // an agent's turn-end report followed by its settle is one phase (issue 23; attention README "Choices").
    if (cleared) this.#detector.reset();
  }

  /** The rule set changed: a watching source no rule covers any more is withdrawn, ringing or held. */
  rulesChanged(): void {
    const ring = this.#latch.ring;
    if (ring?.sources.has('watching') && this.#deps.ruleFor(ring.watchKey) === null)
      this.#latch.withdraw('watching');
    const held = this.#held.current;
    if (held?.sources.has('watching') && this.#deps.ruleFor(held.watchKey) === null) {
      this.#held.dropSource('watching');
    }
  }

  /** Settings changed: turning deferral off releases a pending deferral immediately. */
  settingsChanged(now: number): void {
    if (!this.#deps.settings().deferAlertsUntilQuiet) this.#flushDeferred(now);
  }

  /** Parks an already-validated await; an await arriving mid-ring may resolve at once. */
  park(realmId: string, req: AwaitRequest, now: number, out: ManagerEffect[]): void {
    const ring = this.#latch.ring;
    if (this.#exited && ring === null) {
      // Nothing can finish any more. A session that ran its own command answers for that command: it has
      // exited, with this code. A shell session died before this await could park.
      const cause = this.#ownExited ? 'exit' : 'died';
      out.push({ type: 'await-resolved', realmId, awaitId: req.awaitId, cause, ...this.#exit });
      return;
    }
    if (ring) {
      const running = this.#command !== null;
      const order: RingSource[] = req.until === 'exit' ? ['exit'] : ['report', 'exit', 'watching'];
      for (const source of order) {
        if (!ring.sources.has(source)) continue;
        if (source === 'exit' && running) continue; // a foreground command is running
        if (source === 'watching' && ring.outputSinceWatching) continue;
        // Consuming withdraws that one source and never acknowledges; a consumed settle's tail must not
        // settle again, so the detector starts over as it does for a user verb.
        const exit = source === 'exit' ? (ring.exit ?? NO_EXIT) : NO_EXIT;
        this.#latch.withdraw(source);
        if (source === 'watching') this.#detector.reset();
        out.push({
          type: 'await-resolved',
          realmId,
          awaitId: req.awaitId,
          cause: SIGNAL_OF[source],
          ...exit,
        });
        return;
      }
    }
    if (!this.#awaits.park(realmId, req, now, this.#command !== null)) {
      out.push({ type: 'await-resolved', realmId, awaitId: req.awaitId, cause: 'cancelled', ...NO_EXIT });
    }
  }

  hasAwait(realmId: string, awaitId: string): boolean {
    return this.#awaits.has(realmId, awaitId);
  }

  cancelAwait(realmId: string, awaitId: string, out: ManagerEffect[]): void {
    this.#resolve(this.#awaits.cancel(realmId, awaitId), out);
  }

  cancelRealm(realmId: string, out: ManagerEffect[]): void {
    this.#resolve(this.#awaits.cancelRealm(realmId), out);
  }

  nextDeadline(): number | null {
    return earliest(this.#detector.nextDeadline(), this.#deferred.deadline(), this.#awaits.nextDeadline());
  }

  tick(now: number, out: ManagerEffect[]): void {
    const settled = this.#detector.tick(now) === 'settled';
    const due = this.#deferred.deadline();
    if (due !== null && (settled || now >= due)) this.#flushDeferred(now);
    if (settled) this.#dispatch({ kind: 'settle' }, now, out);
    this.#resolve(this.#awaits.tick(now), out);
  }

  // ---- internals ----

  /** Every command boundary resets the detector and silently ends a progress cycle. */
  #boundary(): void {
    this.#detector.reset();
    this.#progress.abandon();
  }

  #finishCommand(
    exitCode: number | null,
    now: number,
    out: ManagerEffect[],
    signal: string | null = null,
  ): void {
    const command = this.#command;
    if (command === null) return;
    this.#command = null; // watching switches off; a watching ring keeps its own key
    // Dispatched for every watch that existed, unseen and engaged ones included.
    this.#dispatch({ kind: 'finish', command, exitCode, signal }, now, out);
  }

  /**
   * OSC 7501 (issue 23): `blocked`, `done` and `error` are reports with a kind; `working` and `idle` say the
   * program moved on, so a `blocked` record they replace withdraws what it raised (answered elsewhere) and the
   * acknowledged state is over; `clear` withdraws the record and its descendants (all records without an id).
   */
  #programStatus(
    ev: Extract<TerminalEvent, { type: 'program-status' }>,
    now: number,
    out: ManagerEffect[],
  ): void {
    const key = statusKey(ev.id);
    switch (ev.state) {
      case 'blocked':
      case 'done':
      case 'error':
        // A turn end after a prompt joins the open ring (one ring per phase); `working` withdraws the prompt.
        this.#dispatch(
          {
            kind: 'report',
            detail: programStatusNotification(ev),
            reportId: ev.state === 'blocked' ? key : null,
          },
          now,
          out,
        );
        return;
      case 'working':
      case 'idle':
        this.#acknowledged = false;
        this.#closeReports((id) => id === key);
        return;
      case 'clear':
        this.#closeReports(
          ev.id === '' ? (id) => id.startsWith('7501:') : (id) => id === key || id.startsWith(`${key}/`),
        );
        return;
    }
  }

  /**
   * A window title, read as a signal only in the forms the foreground agent documents (title-signals.ts):
   * entering needs-you is a report, ready after working is the turn's end, and leaving needs-you withdraws it.
   */
  #title(title: string, now: number, out: ManagerEffect[]): void {
    const phase = titlePhase(this.#command?.key ?? null, title);
    if (phase === null || phase === this.#titlePhase) return;
    const before = this.#titlePhase;
    this.#titlePhase = phase;
    if (before === 'blocked') this.#closeReports((id) => id === TITLE_KEY);
    if (phase === 'working') this.#acknowledged = false;
    if (phase === 'blocked') {
      this.#dispatch(
        { kind: 'report', detail: titleNotification(title, 'blocked'), reportId: TITLE_KEY },
        now,
        out,
      );
    } else if (phase === 'ready' && before === 'working') {
      this.#dispatch({ kind: 'report', detail: titleNotification(title, 'done'), reportId: null }, now, out);
    }
  }

  /** The single seam every completion passes (alert-spec Completion events). */
  #dispatch(c: Completion, now: number, out: ManagerEffect[]): void {
    const exit: CommandExit | null =
      c.kind === 'finish' ? { exitCode: c.exitCode, command: c.command.line } : null;
    // Claimants first: a claimed event never rings, never sets TODO, never stores a notification.
    const signal: AwaitSignal = c.kind === 'settle' ? 'quiet' : c.kind === 'finish' ? 'exit' : 'bell';
    const claimed = this.#awaits.offer(signal, exit ?? NO_EXIT);
    if (claimed.length > 0) {
      this.#resolve(claimed, out);
      return;
    }
    // A completion inside the echo window neither rings nor is held — unless the program itself said so
    // (OSC 7501, a title signal), which no keystroke echoes (issue 23).
    if (now < this.#echoUntil && !(c.kind === 'report' && programSaid(c.detail))) return;
    let source: RingSource;
    let detail: ActivityNotification;
    let watchKey: string | null = null;
    let reportId: ReportKey;
    switch (c.kind) {
      case 'settle': {
        const rule = this.#command ? this.#deps.ruleFor(this.#command.key) : null;
        if (rule === null) return; // a settle rings only if a rule matches the foreground command
        source = 'watching';
        watchKey = this.#command!.key;
        detail = watchingNotification(watchKey!);
        break;
      }
      case 'finish':
        if (!c.command.seen) return;
        source = 'exit';
        detail = commandExitNotification(c.command.line, c.exitCode, c.signal);
        break;
      case 'report':
        source = 'report';
        detail = c.detail;
        reportId = c.reportId;
        if (this.#acknowledged) {
          // Never summon twice for an acknowledged state: the report updates the TODO instead.
          this.#latch.setTodo(true, this.#latch.todo ? richer(this.#latch.todoNotification, detail) : detail);
          return;
        }
        break;
    }
    if (this.#engaged) {
      this.#held.add(source, detail, { watchKey, reportId, exit });
      return;
    }
    if (c.kind === 'report') {
      // Only a bare BEL or a progress end waits for an animating TUI to go quiet; an explicit notification
      // (OSC 9 / 777 / 99) is the program asking for the owner, and rings at once (issue 13, deviating from
      // alert-spec's "defer an eligible terminal-notification ring"; attention README "Choices").
      if (deferrable(detail) && this.#deps.settings().deferAlertsUntilQuiet && this.#detector.fullyArmed) {
        this.#deferred.add(detail, now, this.#detector.quietAt);
        return;
      }
      // A deferred bell or progress end beside it is the same summons: it joins now instead of later.
      const pending = this.#deferred.take();
      this.#raise('report', pending === null ? detail : richer(pending, detail), now, null, { reportId });
      if (pending !== null) this.#latch.ring?.reports.add(deferredKey(pending));
      return;
    }
    if (c.kind === 'finish' && this.#deferred.pending) {
      // Protocol detail enriches the authoritative command-finish ring instead of publishing stale later.
      const pending = this.#deferred.take()!;
      this.#raise('exit', detail, now, null, { exit });
      this.#raise('report', pending, now, null, { reportId: deferredKey(pending) });
      return;
    }
    this.#raise(source, detail, now, watchKey, { exit });
  }

  #raise(
    source: RingSource,
    detail: ActivityNotification,
    now: number,
    watchKey: string | null,
    origin: RaiseOrigin = {},
  ): void {
    if (this.#latch.raise(source, detail, now, this.#deps.nextEpisodeId, watchKey, origin))
      this.#acknowledged = false;
  }

  /**
   * OSC 99 `p=close` (and an OSC 7501 record or a title leaving needs-you): the program withdrew the reports
   * `match` accepts. A ringing or held report source raised only by withdrawn reports is withdrawn (never
   * acknowledged: a TODO stays as it stood, and a ring left with other sources keeps its detail).
   */
  #closeReports(match: (id: string) => boolean): void {
    const ring = this.#latch.ring;
    if (ring?.sources.has('report') && ring.reports.closeWhere(match)) this.#latch.withdraw('report');
    this.#held.closeReport(match);
  }

  /** A deferral coming due rings fresh — or is held if engaged, and is never deferred again. */
  #flushDeferred(now: number): void {
    const d = this.#deferred.take();
    if (d === null) return;
    if (this.#engaged) this.#held.add('report', d, { watchKey: null, reportId: deferredKey(d), exit: null });
    else this.#raise('report', d, now, null, { reportId: deferredKey(d) });
  }

  #resolve(list: ReadonlyArray<AwaitResolution>, out: ManagerEffect[]): void {
    for (const r of list) {
      out.push({
        type: 'await-resolved',
        realmId: r.realmId,
        awaitId: r.awaitId,
        cause: r.cause,
        exitCode: r.exitCode,
        command: r.command,
      });
    }
  }
}
