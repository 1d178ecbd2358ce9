/**
 * AttentionHost: the I/O shell around the pure AttentionEngine (DESIGN §5). It hears every PTY chunk (as an
 * OutputTap, one TerminalParser per PTY generation) and every session activity, drives the engine, performs
 * its effects, keeps ONE timer armed for engine.nextDeadline(), persists what may survive a restart, and is
 * the remote API's AttentionPort. See README.md for the contract with the daemon.
 */
import type { PresenceState, TodoAction } from '@burrow/protocol';
import {
  type AlertSettings,
  type AlertVerb,
  type AttentionEffect,
  AttentionEngine,
  type AwaitCause,
  addWatchRule,
  removeWatchRule,
  type SessionAlertView,
} from '../attention/index.js';
import type { AttentionPort, PublicAttentionState } from '../remote/attention-port.js';
import type { Logger, PtyGeneration, SessionActivity } from '../session/activity.js';
import { SIGNAL_EXIT_BASE } from '../session/session.js';
import type { SessionRegistry } from '../session/session-registry.js';
import { signalName } from '../session/signal-name.js';
import { sessionCommandLine } from '../shell-integration/index.js';
import { TerminalParser } from '../terminal/index.js';
import { AttentionPersistence } from './attention-persistence.js';
import type { PersistedSession } from './attention-store.js';
import { classifyInput } from './input-kind.js';
import { type AwaitResult, newAwaitId, PendingAwaits } from './pending-awaits.js';
import { publicEpisodeId, QUIET_PUBLIC_STATE, toPublicState } from './public-state.js';
import { promptContext, readScreenText } from './screen-detail.js';

/** Longest timer the host arms at once; a later deadline is simply re-armed when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Characters of an unknown verb or id echoed in an error message. */
const ECHO_CHARS = 40;
/**
 * Before reading a ring's words off the screen, wait until output has paused this long (the prompt that rang
 * may still be drawing), but never longer than CONTEXT_MAX_WAIT_MS (an animating TUI never pauses).
 */
export const CONTEXT_QUIET_MS = 150;
export const CONTEXT_MAX_WAIT_MS = 800;
/** A due push waits at most this long for a screen read in flight, so its body has the words. */
export const PUSH_CONTEXT_WAIT_MS = 2_000;

export type PushDueHook = (sessionId: string, episodeId: string, view: SessionAlertView) => void;

export interface AttentionHostOptions {
  readonly registry: SessionRegistry;
  readonly stateDir: string;
  readonly log: Logger;
  readonly onPushDue: PushDueHook;
  /** Wall clock for the engine (epoch ms, so ringingSince is a timestamp). Default Date.now. */
  readonly now?: () => number;
}

export interface AwaitOptions {
  readonly until: 'quiet' | 'exit';
  readonly timeoutMs: number;
  /** Aborting (the requester disconnected) cancels the await; the promise then resolves 'cancelled'. */
  readonly signal?: AbortSignal | undefined;
}

const TODO_VERBS: Readonly<Record<TodoAction, AlertVerb>> = {
  on: 'todo-on',
  off: 'todo-off',
  toggle: 'todo-toggle',
};

export class AttentionHost implements AttentionPort {
  readonly #engine: AttentionEngine;
  readonly #registry: SessionRegistry;
  readonly #log: Logger;
  readonly #onPushDue: PushDueHook;
  readonly #now: () => number;
  readonly #parsers = new Map<string, TerminalParser>();
  /** Viewer ids of local attachments (remote viewers report through the AttentionPort instead). */
  readonly #localViewers = new Map<string, string>();
  readonly #awaits = new PendingAwaits();
  readonly #listeners = new Set<(sessionId: string) => void>();
  /** The latest window title per session (already sanitized and bounded by the parser). */
  readonly #titles = new Map<string, string>();
  /** Per session, the screen read in flight for a ring's words (reads run one at a time, in order). */
  readonly #contextReads = new Map<string, Promise<void>>();
  readonly #persistence: AttentionPersistence;
  /** Drawn once per daemon run; see publicEpisodeId. */
  readonly #bootTag: string;
  readonly #unsubscribe: () => void;
  #timer: NodeJS.Timeout | undefined;
  #disposed = false;

  constructor(options: AttentionHostOptions) {
    this.#registry = options.registry;
    this.#log = options.log;
    this.#onPushDue = options.onPushDue;
    this.#now = options.now ?? Date.now;
    this.#bootTag = bootTag();
    this.#persistence = new AttentionPersistence(options.stateDir, options.log);
    // Both files are read before anything is wired, so an untrusted one fails the constructor cleanly.
    const saved = this.#persistence.loadSettings();
    const restored = this.#persistence.loadSessions();
    this.#engine = new AttentionEngine({
      clock: { now: this.#now },
      settings: saved.alert,
      watchRules: saved.watchRules,
    });
    this.#registry.addTap({
      spawn: (id, generation) => this.#tapSpawn(id, generation),
      output: (id, chunk) => this.#tapOutput(id, chunk),
      // No `exit` handler: a PTY's last chunk can arrive after its exit, and must still be parsed. The parser
      // goes when the session is removed (or replaced at the next spawn).
    });
    this.#unsubscribe = this.#registry.subscribe((a) => this.#activity(a));
    this.#restore(restored);
  }

  // ---- views ----

  view(sessionId: string): SessionAlertView | null {
    return this.#engine.view(sessionId);
  }

  views(): SessionAlertView[] {
    return this.#engine.views();
  }

  publicState(sessionId: string): PublicAttentionState {
    const view = this.#engine.view(sessionId);
    return view === null
      ? QUIET_PUBLIC_STATE
      : toPublicState(view, this.#bootTag, this.#titles.get(sessionId) ?? '');
  }

  onChange(listener: (sessionId: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // ---- verbs ----

  verb(sessionId: string, verb: AlertVerb): void {
    this.#apply(this.#engine.verb(sessionId, verb));
  }

  acknowledge(sessionId: string, _viewerId: string, withInput: boolean): void {
    this.verb(sessionId, withInput ? 'acknowledge-with-input' : 'acknowledge');
  }

  todo(sessionId: string, action: TodoAction): void {
    const verb = TODO_VERBS[action];
    if (verb === undefined)
      throw new TypeError(`unknown todo action: ${String(action).slice(0, ECHO_CHARS)}`);
    this.verb(sessionId, verb);
  }

  dismiss(sessionId: string): void {
    this.verb(sessionId, 'dismiss');
  }

  // ---- viewers (remote, through the port) ----

  presence(viewerId: string, report: { state: PresenceState; focused: boolean; visible: boolean }): void {
    this.#apply(
      this.#engine.viewerPresence(viewerId, {
        presence: report.state,
        focused: report.focused,
        visible: report.visible,
      }),
    );
  }

  focus(viewerId: string, sessionId: string | null): void {
    this.#apply(this.#engine.viewerLooking(viewerId, sessionId));
  }

  viewerGone(viewerId: string): void {
    this.#apply(this.#engine.viewerGone(viewerId));
  }

  activity(viewerId: string): void {
    this.#apply(this.#engine.viewerActivity(viewerId));
  }

  /** A local client went away: its awaits resolve cancelled, any presence it reported is forgotten. */
  realmGone(realmId: string): void {
    this.viewerGone(realmId);
  }

  // ---- awaits ----

  /**
   * Parks an await and resolves with its cause, exactly once. A malformed request or unknown session
   * resolves 'cancelled' at once (the engine's rule); so does an aborted `signal`.
   */
  await(realmId: string, sessionId: string, opts: AwaitOptions): Promise<AwaitCause> {
    return this.awaitResult(realmId, sessionId, opts).then((r) => r.cause);
  }

  /** `await`, with the exit code and command line of the command an `exit` / `died` is about. */
  awaitResult(realmId: string, sessionId: string, opts: AwaitOptions): Promise<AwaitResult> {
    const cancelled: AwaitResult = { cause: 'cancelled', exitCode: null, command: null };
    if (this.#disposed) return Promise.resolve(cancelled);
    const awaitId = newAwaitId();
    const pending = this.#awaits.add(realmId, awaitId);
    if (pending === null) return Promise.resolve(cancelled);
    const signal = opts.signal;
    const onAbort = () => this.#apply(this.#engine.awaitCancel(realmId, awaitId));
    try {
      this.#apply(
        this.#engine.awaitRequest(realmId, sessionId, {
          awaitId,
          until: opts.until,
          timeoutMs: opts.timeoutMs,
        }),
      );
    } catch (err) {
      this.#awaits.resolve(realmId, awaitId, cancelled);
      throw err;
    }
    if (signal !== undefined) {
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      void pending.then(() => signal.removeEventListener('abort', onAbort));
    }
    return pending;
  }

  // ---- settings and rules ----

  settings(): AlertSettings {
    return this.#engine.settings;
  }

  updateSettings(patch: unknown): AlertSettings {
    this.#apply(this.#engine.updateSettings(patch));
    this.#saveSettings();
    return this.#engine.settings;
  }

  watchRules(): readonly string[] {
    return this.#engine.watchRules;
  }

  addWatchRule(rule: string): readonly string[] {
    this.#apply(this.#engine.setWatchRules(addWatchRule(this.#engine.watchRules, rule)));
    this.#saveSettings();
    return this.#engine.watchRules;
  }

  /**
   * Replaces the whole rule set (Pocket sends the full list): all or nothing — one invalid rule is a
   * RangeError before anything changes — then one persisted write.
   */
  setWatchRules(rules: readonly string[]): readonly string[] {
    if (!Array.isArray(rules)) throw new TypeError('watch rules must be an array of strings');
    let next: readonly string[] = [];
    for (const rule of rules) next = addWatchRule(next, rule);
    this.#apply(this.#engine.setWatchRules(next));
    this.#saveSettings();
    return this.#engine.watchRules;
  }

  removeWatchRule(rule: string): readonly string[] {
    this.#apply(this.#engine.setWatchRules(removeWatchRule(this.#engine.watchRules, rule)));
    this.#saveSettings();
    return this.#engine.watchRules;
  }

  /** Flushes persistence, stops the timer and answers every pending await 'cancelled'. Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#persistence.flush(this.#snapshotForDisk());
    this.#disposed = true;
    this.#unsubscribe();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#engine.dispose();
    this.#awaits.resolveAll('cancelled');
    this.#parsers.clear();
    this.#persistence.dispose();
  }

  // ---- inputs from the registry ----

  #tapSpawn(sessionId: string, generation: PtyGeneration): void {
    if (this.#disposed) return;
    // One parser per PTY generation: a half-read sequence must never splice across generations.
    this.#parsers.set(
      sessionId,
      new TerminalParser({ nonce: generation.nonce, now: () => performance.now() }),
    );
  }

  #tapOutput(sessionId: string, chunk: Uint8Array): void {
    const parser = this.#parsers.get(sessionId);
    if (this.#disposed || parser === undefined) return;
    // The parser's `output` events carry the printable byte count; a raw chunk count (engine.onOutput) would
    // make escape-only chunks — prompt marks, focus reports — look like program output, so it is not fed.
    const events = parser.feed(chunk);
    this.#apply(this.#engine.onTerminalEvents(sessionId, events));
    // The engine ignores titles; the directory shows the window title (OSC 0 / 2), not the icon title.
    for (const ev of events) {
      if (ev.type !== 'title' || ev.which === 'icon' || this.#titles.get(sessionId) === ev.title) continue;
      this.#titles.set(sessionId, ev.title);
      this.#changed(sessionId);
    }
  }

  #activity(a: SessionActivity): void {
    if (this.#disposed) return;
    switch (a.type) {
      case 'spawn':
        // A session started on a command (not a shell) runs that command from the start (issue 13).
        this.#apply(this.#engine.sessionSpawned(a.sessionId, undefined, sessionCommandLine(a.command)));
        return;
      case 'input':
        if (this.#localViewers.has(a.viewerId)) this.#apply(this.#engine.viewerActivity(a.viewerId));
        // A line ended (Enter): what the program writes next answers it (a turn; attention README "Choices").
        this.#apply(
          this.#engine.onInput(
            a.sessionId,
            classifyInput(a.data),
            a.data.includes(0x0d) || a.data.includes(0x0a),
          ),
        );
        return;
      case 'resize':
        this.#apply(this.#engine.sessionResized(a.sessionId));
        return;
      case 'attach':
        if (a.kind !== 'local') return;
        this.#localViewers.set(a.viewerId, a.sessionId);
        // Someone just ran `burrow attach` in a terminal: present and looking until its terminal says not.
        this.#apply(this.#engine.viewerLooking(a.viewerId, a.sessionId));
        this.#apply(
          this.#engine.viewerPresence(a.viewerId, { presence: 'present', focused: true, visible: true }),
        );
        return;
      case 'presence':
        if (!this.#localViewers.has(a.viewerId)) return;
        if ('typing' in a.presence) this.#apply(this.#engine.viewerActivity(a.viewerId));
        else {
          const report = { presence: 'present', focused: a.presence.focused, visible: true } as const;
          this.#apply(this.#engine.viewerPresence(a.viewerId, report));
        }
        return;
      case 'detach':
        if (!this.#localViewers.delete(a.viewerId)) return;
        this.#apply(this.#engine.viewerGone(a.viewerId));
        return;
      case 'exit': {
        // A signal reads as 128 + its number, as a shell reports a killed command's status (so an await on
        // a killed `burrow new -- CMD` is a failure, never an unknown), with the signal named (issue 23).
        const code = a.exitCode ?? (a.signal === null ? null : SIGNAL_EXIT_BASE + a.signal);
        this.#apply(this.#engine.sessionExited(a.sessionId, code, signalName(a.signal)));
        return;
      }
      case 'remove':
        this.#parsers.delete(a.sessionId);
        this.#titles.delete(a.sessionId);
        this.#apply(this.#engine.sessionRemoved(a.sessionId));
        this.#persistence.schedule(() => this.#snapshotForDisk());
        return;
    }
  }

  // ---- effects and the one timer ----

  #apply(effects: readonly AttentionEffect[]): void {
    for (const e of effects) {
      try {
        this.#perform(e);
      } catch (err) {
        this.#log('error', `attention: ${e.type} effect failed: ${(err as Error).message}`);
      }
    }
    this.#arm();
  }

  #perform(e: AttentionEffect): void {
    switch (e.type) {
      case 'pty-write':
        this.#liveSession(e.sessionId)?.terminalReply(e.data);
        return;
      case 'cwd': {
        // OSC 7 and 633;P;Cwd= often both follow a `cd`: only a change is news.
        const s = this.#liveSession(e.sessionId);
        if (s === undefined || s.cwd === e.cwd) return;
        s.cwd = e.cwd;
        this.#changed(e.sessionId);
        return;
      }
      case 'state':
        this.#changed(e.sessionId);
        this.#persistence.schedule(() => this.#snapshotForDisk());
        return;
      case 'push-due': {
        // The ring is no longer owed its push: the state on disk must say so, or a restart rings it again.
        this.#persistence.schedule(() => this.#snapshotForDisk());
        // A screen read in flight for this ring finishes first (bounded), so the push carries its words.
        const fire = () => {
          const view = this.#engine.view(e.sessionId);
          if (view !== null && !this.#disposed)
            this.#onPushDue(e.sessionId, publicEpisodeId(this.#bootTag, e.episodeId), view);
        };
        const reading = this.#contextReads.get(e.sessionId);
        if (reading === undefined) fire();
        else {
          const late = new Promise<void>((r) => setTimeout(r, PUSH_CONTEXT_WAIT_MS).unref());
          void Promise.race([reading, late]).then(fire);
        }
        return;
      }
      case 'context-wanted':
        this.#readContext(e.sessionId, e.episodeId);
        return;
      case 'await-resolved':
        this.#awaits.resolve(e.realmId, e.awaitId, {
          cause: e.cause,
          exitCode: e.exitCode,
          command: e.command,
        });
        return;
    }
  }

  /**
   * Reads the prompt-like lines around the cursor for a ring without words (issue 23; screen-detail.ts) and
   * hands them to the engine. Reads of one session run in order, so the last describes the latest detail.
   */
  #readContext(sessionId: string, episodeId: number): void {
    const previous = this.#contextReads.get(sessionId) ?? Promise.resolve();
    const read = previous
      .then(async () => {
        const started = this.#now();
        for (;;) {
          const s = this.#liveSession(sessionId);
          if (s === undefined || this.#disposed) return;
          const last = s.info().lastOutputAt;
          const quietFor = last === null ? CONTEXT_QUIET_MS : this.#now() - last;
          if (quietFor >= CONTEXT_QUIET_MS || this.#now() - started >= CONTEXT_MAX_WAIT_MS) break;
          await new Promise((r) => setTimeout(r, Math.max(10, CONTEXT_QUIET_MS - quietFor)));
        }
        const s = this.#liveSession(sessionId);
        if (s === undefined || this.#disposed) return;
        const text = promptContext(await readScreenText(await s.snapshot()));
        if (text !== null && !this.#disposed)
          this.#apply(this.#engine.ringContext(sessionId, episodeId, text));
      })
      .catch((err: unknown) => {
        this.#log('warn', `attention: reading the screen of ${sessionId} failed: ${(err as Error).message}`);
      });
    this.#contextReads.set(sessionId, read);
    void read.then(() => {
      if (this.#contextReads.get(sessionId) === read) this.#contextReads.delete(sessionId);
    });
  }

  #changed(sessionId: string): void {
    for (const l of this.#listeners) {
      try {
        l(sessionId);
      } catch (err) {
        this.#log('error', `attention change listener threw: ${(err as Error).message}`);
      }
    }
  }

  #arm(): void {
    if (this.#disposed) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const deadline = this.#engine.nextDeadline();
    if (deadline === null) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(deadline - this.#now())));
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#disposed) this.#apply(this.#engine.tick());
    }, delay);
    // The daemon's sockets keep the process alive; this timer alone never should.
    this.#timer.unref();
  }

  #liveSession(sessionId: string) {
    try {
      return this.#registry.get(sessionId);
    } catch {
      return undefined; // killed meanwhile, or a restored entry without a PTY
    }
  }

  // ---- persistence ----

  #restore(entries: readonly PersistedSession[]): void {
    for (const entry of entries) {
      try {
        this.#registry.restoreExited(entry);
      } catch (err) {
        this.#log('warn', `attention: restored session ${entry.id} skipped: ${(err as Error).message}`);
        continue;
      }
      // Seeded before any output and then exited: todo + notification only, so nothing re-rings — but a ring
      // still owed its push (issue 23), which rings again as a new episode.
      this.#apply(this.#engine.sessionSpawned(entry.id, entry.alert));
      this.#apply(
        this.#engine.sessionExited(entry.id, entry.exitCode ?? null, signalName(entry.signal ?? null)),
      );
    }
  }

  #saveSettings(): void {
    this.#persistence.saveSettings(this.#engine.settings, this.#engine.watchRules);
  }

  /** Every session holding a TODO, with what the list needs to show it after a restart. */
  #snapshotForDisk() {
    const out = [];
    for (const info of this.#registry.list()) {
      const alert = this.#engine.serialize(info.id);
      if (alert === null || !alert.todo) continue;
      // Ended before the daemon went: its exit stays with it (a running one dies with the daemon).
      const ended = info.status === 'exited' && info.diedWithDaemon !== true;
      out.push({
        id: info.id,
        name: info.name,
        command: [...info.command],
        cwd: info.cwd,
        createdAt: Math.max(0, Math.round(info.createdAt)),
        ...(ended ? { exitCode: info.exitCode, signal: info.signal } : {}),
        alert,
      });
    }
    return out;
  }
}

/** A signal's name (SIGTERM) from its number on this platform, or null. */
/** 8 random base-36 characters for episode ids (not a secret; unique per daemon run). */
function bootTag(): string {
  let tag = '';
  for (const b of crypto.getRandomValues(new Uint8Array(8))) tag += (b % 36).toString(36);
  return tag;
}
