/**
 * AttentionEngine: the facade the daemon drives (DESIGN §5). It routes parser events, PTY output, user input,
 * session lifecycle, viewer reports, verbs, awaits, settings and rule edits to one AlertManager per session,
 * computes engagement across viewers, runs the push delivery scheduler, and returns effects for the caller to
 * perform. No timers inside: the daemon arms one timer for nextDeadline() and calls tick() when it fires.
 */
import type { TerminalEvent } from '../terminal/events.js';
import {
  ALERT_VERBS,
  AlertManager,
  type AlertVerb,
  type ManagerEffect,
  type SessionStatus,
} from './alert-manager.js';
import { type AwaitCause, type AwaitRequest, awaitRequestProblem } from './awaits.js';
import { type Clock, earliest } from './clock.js';
import { DeliveryScheduler } from './delivery.js';
import { checkViewerId, Engagement, type EngagementEdge, type PresenceReport } from './engagement.js';
import { type ActivityNotification, MAX_CONTEXT_CHARS } from './notification.js';
import { type PersistedAlert, restoreAlert, serializeAlert } from './persistence.js';
import {
  type AlertSettings,
  applyAlertSettingsPatch,
  DEFAULT_ALERT_SETTINGS,
  normalizeAlertSettings,
} from './settings.js';
import { normalizeWatchRules, watchRuleFor } from './watch-rules.js';

/** Most sessions tracked at once; a further spawn is a RangeError. */
export const MAX_SESSIONS = 256;
/** Longest session id accepted. */
export const MAX_SESSION_ID_CHARS = 128;
/** Await ids remembered per engine so a realm's repeated id is ignored, never answered twice. */
export const MAX_REMEMBERED_AWAIT_IDS = 4096;
/** Timer passes per tick(); each pass handles everything due, so this only guards a logic error. */
const MAX_TICK_PASSES = 16;

export type AttentionEffect =
  /** Bytes for the session's PTY (focus reports CSI I / CSI O). */
  | { readonly type: 'pty-write'; readonly sessionId: string; readonly data: string }
  /** The session's working directory changed (OSC 7 / OSC 9;9). */
  | { readonly type: 'cwd'; readonly sessionId: string; readonly cwd: string }
  /** A push is due for this session's episode; seal and send it (the label is the daemon's). */
  | { readonly type: 'push-due'; readonly sessionId: string; readonly episodeId: number }
  /**
   * The ring's detail has no words of its own (issue 23): read the prompt-like lines off the screen and hand
   * them back with ringContext(sessionId, episodeId, text). Once per detail; a newer detail asks again.
   */
  | { readonly type: 'context-wanted'; readonly sessionId: string; readonly episodeId: number }
  /** Exactly one per await, to the realm that parked it. */
  | {
      readonly type: 'await-resolved';
      readonly sessionId: string;
      readonly realmId: string;
      readonly awaitId: string;
      readonly cause: AwaitCause;
      /** For `exit` and `died`: the ended command's exit code and line (awaits.ts CommandExit), else null. */
      readonly exitCode: number | null;
      readonly command: string | null;
    }
  /** The session's public view changed; publish it. */
  | { readonly type: 'state'; readonly sessionId: string; readonly view: SessionAlertView };

export interface SessionAlertView {
  readonly sessionId: string;
  readonly status: SessionStatus;
  readonly ringing: boolean;
  readonly ringingSince: number | null;
  readonly episodeId: number | null;
  readonly todo: boolean;
  readonly notification: ActivityNotification | null;
  readonly awaited: boolean;
  readonly watchKey: string | null;
  readonly command: string | null;
  readonly engaged: boolean;
  readonly exited: boolean;
}

/** Input written to a PTY: a human's keystrokes acknowledge; terminal replies and mouse reports do not. */
export type InputKind = 'user' | 'terminal-reply' | 'mouse';
const INPUT_KINDS: readonly InputKind[] = ['user', 'terminal-reply', 'mouse'];

export interface AttentionEngineOptions {
  readonly clock: Clock;
  /** Saved settings (validated here); absent fields take the defaults. */
  readonly settings?: unknown;
  /** Saved WATCHING rules; undefined seeds DEFAULT_WATCHED_COMMANDS. */
  readonly watchRules?: unknown;
}

/** A report that rings with words of its own: a notification with text, an OSC 7501 blocked / done / error. */
function textBearing(e: TerminalEvent): boolean {
  if (e.type === 'notify') return e.title.trim() !== '' || e.body.trim() !== '';
  return e.type === 'program-status' && (e.state === 'blocked' || e.state === 'done' || e.state === 'error');
}

/** For each run of events between printable output, whether it holds a text-bearing notification. */
function runsWithText(events: readonly TerminalEvent[]): boolean[] {
  const runs: boolean[] = [];
  let text = false;
  for (const e of events) {
    if (e.type === 'output' && e.bytes > 0) {
      runs.push(text);
      text = false;
    } else if (textBearing(e)) text = true;
  }
  runs.push(text);
  return runs;
}

function checkSessionId(sessionId: string): void {
  if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_CHARS) {
    throw new TypeError('session id must be a non-empty string of at most 128 characters');
  }
}

/** Command keys whose watch rule is remembered (keys come from what runs in sessions: bounded). */
const RULE_CACHE_MAX = 256;

/**
 * Whether two views publish the same thing: what `JSON.stringify` of each would say, without serializing
 * (this runs on every PTY read). Scalars compare with ===; an object field (the notification) compares by
 * reference first and by its JSON only when it was rebuilt.
 */
function sameView(a: SessionAlertView, b: SessionAlertView): boolean {
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  for (const key in ra) {
    const x = ra[key];
    const y = rb[key];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (JSON.stringify(x) !== JSON.stringify(y)) return false;
  }
  return true;
}

export class AttentionEngine {
  readonly #clock: Clock;
  readonly #sessions = new Map<string, AlertManager>();
  readonly #engagement: Engagement;
  readonly #delivery = new DeliveryScheduler();
  readonly #rememberedAwaits = new Set<string>();
  #settings: AlertSettings;
  #rules: readonly string[];
  /** watchRuleFor per command key, for the current rules (cleared when they change; at most RULE_CACHE_MAX). */
  readonly #ruleCache = new Map<string, string | null>();
  #episodeCounter = 0;

  constructor(options: AttentionEngineOptions) {
    this.#clock = options.clock;
    this.#settings = normalizeAlertSettings(options.settings ?? DEFAULT_ALERT_SETTINGS);
    this.#rules = normalizeWatchRules(options.watchRules);
    this.#engagement = new Engagement(this.#settings.inactivityTimeoutMs);
  }

  get settings(): AlertSettings {
    return this.#settings;
  }

  get watchRules(): readonly string[] {
    return this.#rules;
  }

  sessionIds(): string[] {
    return [...this.#sessions.keys()];
  }

  view(sessionId: string): SessionAlertView | null {
    const m = this.#sessions.get(sessionId);
    return m ? this.#view(sessionId, m) : null;
  }

  /** Every session's view, e.g. for Pocket's session list (see computeUnion). */
  views(): SessionAlertView[] {
    return [...this.#sessions].map(([id, m]) => this.#view(id, m));
  }

  /**
   * Persisted form (todo + notification + status) for the daemon's store; `owed` when a ring's push is still
   * pending, so a restart brings it back ringing (issue 23; AlertManager.restoreOwed).
   */
  serialize(sessionId: string): PersistedAlert | null {
    const m = this.#sessions.get(sessionId);
    if (!m) return null;
    const episode = m.ring?.episodeId;
    return serializeAlert(m.persisted(episode !== undefined && this.#delivery.pending(sessionId, episode)));
  }

  /**
   * What the screen said for a ring that asked (`context-wanted`): sanitized, bounded text (screen-detail.ts).
   * Ignored when that episode is over or its detail changed since.
   */
  ringContext(sessionId: string, episodeId: number, context: string): AttentionEffect[] {
    if (typeof context !== 'string') throw new TypeError('context must be a string');
    const text = context.trim().slice(0, MAX_CONTEXT_CHARS);
    if (text === '') return [];
    return this.#withSession(sessionId, (m) => m.setContext(episodeId, text));
  }

  /** The earliest time tick() has work, or null. */
  nextDeadline(): number | null {
    const now = this.#clock.now();
    let best = earliest(this.#engagement.nextDeadline(now), this.#delivery.nextDeadline());
    for (const m of this.#sessions.values()) best = earliest(best, m.nextDeadline());
    return best;
  }

  // ---- session lifecycle ----

  /**
   * A PTY spawned under `sessionId`. Every spawn starts the id's alert state over; a cold restore passes what
   * was persisted (todo + notification), seeded before any output, which never recreates a ring.
   * `ownCommand` is the command line of a session that runs a command rather than a shell (`burrow new --
   * CMD`): it is the foreground command from now until the PTY exits, keyed and watched like a command typed
   * into an integrated shell, its exit a command exit (issue 13).
   */
  sessionSpawned(
    sessionId: string,
    persisted?: unknown,
    ownCommand: string | null = null,
  ): AttentionEffect[] {
    checkSessionId(sessionId);
    if (ownCommand !== null && typeof ownCommand !== 'string')
      throw new TypeError('ownCommand must be a string or null');
    return this.#run(() => {
      const out: ManagerEffect[] = [];
      const old = this.#sessions.get(sessionId);
      if (old) old.dispose(out);
      else if (this.#sessions.size >= MAX_SESSIONS) throw new RangeError(`at most ${MAX_SESSIONS} sessions`);
      const seed = persisted === undefined ? null : restoreAlert(persisted);
      const now = this.#clock.now();
      const m = new AlertManager(
        {
          ruleFor: (key) => this.#ruleFor(key),
          settings: () => this.#settings,
          nextEpisodeId: () => ++this.#episodeCounter,
        },
        seed,
        ownCommand,
      );
      this.#sessions.set(sessionId, m);
      this.#delivery.sessionRemoved(sessionId);
      if (seed?.owed === true && seed.notification !== null) m.restoreOwed(seed.notification, now);
      // A spawn is not an acknowledgement; the session merely learns whether it is looked at.
      m.setEngaged(this.#engagement.isEngaged(sessionId), 'other', now, out);
      return this.#tag(sessionId, out);
    }, sessionId);
  }

  /**
   * The PTY exited with `exitCode` (128 + n for signal n, as a shell reports it, with `signal` its name); the
   * session keeps ringing until dealt with or removed.
   */
  sessionExited(sessionId: string, exitCode: number | null, signal: string | null = null): AttentionEffect[] {
    return this.#withSession(sessionId, (m, out) => m.ptyExited(exitCode, this.#clock.now(), out, signal));
  }

  /** The session is gone (killed, reaped): all its alert state is cleared and its awaits die. */
  sessionRemoved(sessionId: string): AttentionEffect[] {
    const m = this.#sessions.get(sessionId);
    if (!m) return [];
    const out: ManagerEffect[] = [];
    m.dispose(out);
    this.#sessions.delete(sessionId);
    this.#delivery.sessionRemoved(sessionId);
    this.#engagement.forgetSession(sessionId);
    return this.#tag(sessionId, out);
  }

  /** Call before resizing the PTY: the redraw that follows is noise, and a resize never acknowledges. */
  sessionResized(sessionId: string): AttentionEffect[] {
    return this.#withSession(sessionId, (m) => m.resized(this.#clock.now()));
  }

  // ---- terminal input ----

  onTerminalEvent(sessionId: string, event: TerminalEvent): AttentionEffect[] {
    return this.onTerminalEvents(sessionId, [event]);
  }

  /**
   * One parse batch, applied in stream (byte) order. Generic bells beside a text-bearing notification are
   * dropped, and several bells collapse to one (alert-spec Terminal reports → BEL). "Beside" is positional:
   * within a run of events no printable output separates (the parser reports output where it occurs), so a
   * bell after "more output" is its own summons however the reads were cut (issue 13).
   */
  onTerminalEvents(sessionId: string, events: readonly TerminalEvent[]): AttentionEffect[] {
    return this.#withSession(sessionId, (m, out) => {
      const now = this.#clock.now();
      const textRuns = runsWithText(events);
      let run = 0;
      let bellKept = textRuns[0]!;
      for (const ev of events) {
        if (ev.type === 'output' && ev.bytes > 0) bellKept = textRuns[++run]!;
        else if (ev.type === 'bell') {
          if (bellKept) continue;
          bellKept = true;
        }
        m.terminalEvent(ev, now, out);
      }
    });
  }

  /** PTY output activity outside the parser's `output` events (e.g. a raw chunk count). */
  onOutput(sessionId: string, bytes: number): AttentionEffect[] {
    return this.#withSession(sessionId, (m) => {
      if (bytes > 0) m.output(this.#clock.now());
    });
  }

  /**
   * Bytes about to be written to the PTY. Only a human's input acknowledges (and opens the echo window);
   * `submitted`: it ended a line (Enter), so what the program writes next is its answer to it.
   */
  onInput(sessionId: string, kind: InputKind, submitted = false): AttentionEffect[] {
    if (!INPUT_KINDS.includes(kind)) throw new TypeError(`unknown input kind: ${String(kind).slice(0, 40)}`);
    return this.#withSession(sessionId, (m) => {
      if (kind === 'user') m.userInput(this.#clock.now(), submitted === true);
    });
  }

  // ---- viewers ----

  viewerPresence(viewerId: string, report: PresenceReport): AttentionEffect[] {
    return this.#run(() => this.#applyEdges(this.#engagement.report(viewerId, report, this.#clock.now())));
  }

  /** Input anywhere in the viewer (typing, pointer, wheel, composition) keeps its presence alive. */
  viewerActivity(viewerId: string): AttentionEffect[] {
    return this.#run(() => this.#applyEdges(this.#engagement.input(viewerId, this.#clock.now())));
  }

  /** Which session the viewer shows (null: none, e.g. Pocket's session list). */
  viewerLooking(viewerId: string, sessionId: string | null): AttentionEffect[] {
    return this.#run(() => this.#applyEdges(this.#engagement.look(viewerId, sessionId, this.#clock.now())));
  }

  /** The viewer is gone; everything it parked is cancelled and answered. */
  viewerGone(viewerId: string): AttentionEffect[] {
    return this.#run(() => {
      const out = this.#applyEdges(this.#engagement.remove(viewerId, this.#clock.now()));
      for (const [id, m] of this.#sessions) {
        const o: ManagerEffect[] = [];
        m.cancelRealm(viewerId, o);
        out.push(...this.#tag(id, o));
      }
      return out;
    });
  }

  // ---- verbs, awaits, settings, rules ----

  verb(sessionId: string, verb: AlertVerb): AttentionEffect[] {
    if (!ALERT_VERBS.includes(verb)) throw new TypeError(`unknown alert verb: ${String(verb).slice(0, 40)}`);
    return this.#withSession(sessionId, (m) => m.verb(verb));
  }

  /**
   * Parks an await from `realmId` (a viewer or a local client). A malformed request, an unknown session or
   * a full session is answered cancelled at once; a repeated awaitId from the realm is ignored.
   */
  awaitRequest(realmId: string, sessionId: string, request: unknown): AttentionEffect[] {
    checkViewerId(realmId);
    const id = (request as { awaitId?: unknown } | null)?.awaitId;
    const key = typeof id === 'string' ? `${realmId.length}:${realmId}:${id}` : null;
    if (key !== null && this.#rememberedAwaits.has(key)) return [];
    if (key !== null) this.#remember(key);
    const m = this.#sessions.get(sessionId);
    const problem = awaitRequestProblem(request);
    if (problem !== null || !m) {
      return [
        {
          type: 'await-resolved',
          sessionId,
          realmId,
          awaitId: typeof id === 'string' ? id : '',
          cause: 'cancelled',
          exitCode: null,
          command: null,
        },
      ];
    }
    return this.#withSession(sessionId, (mm, out) =>
      mm.park(realmId, request as AwaitRequest, this.#clock.now(), out),
    );
  }

  awaitCancel(realmId: string, awaitId: string): AttentionEffect[] {
    return this.#run(() => {
      const out: AttentionEffect[] = [];
      for (const [id, m] of this.#sessions) {
        if (!m.hasAwait(realmId, awaitId)) continue;
        const o: ManagerEffect[] = [];
        m.cancelAwait(realmId, awaitId, o);
        out.push(...this.#tag(id, o));
      }
      return out; // claiming is delivery: a cancel after the claim is a no-op
    });
  }

  /** A settings write: fields validated and clamped, unknown keys dropped. Returns the effects. */
  updateSettings(patch: unknown): AttentionEffect[] {
    return this.#run(() => {
      const before = this.#settings;
      this.#settings = applyAlertSettingsPatch(before, patch);
      this.#engagement.inactivityTimeoutMs = this.#settings.inactivityTimeoutMs;
      this.#delivery.setPushEnabled(this.#settings.pushEnabled);
      const now = this.#clock.now();
      for (const m of this.#sessions.values()) m.settingsChanged(now);
      return this.#applyEdges(this.#engagement.recompute(now, 'idle'));
    });
  }

  /** Replaces the WATCHING rule set (validated); WATCHING is re-derived live, detectors keep running. */
  setWatchRules(rules: unknown): AttentionEffect[] {
    return this.#run(() => {
      this.#rules = normalizeWatchRules(Array.isArray(rules) ? rules : []);
      this.#ruleCache.clear();
      for (const m of this.#sessions.values()) m.rulesChanged();
      return [];
    });
  }

  /** Runs everything due by now: presence lapses, detector windows, deferrals, awaits, push deadlines. */
  tick(): AttentionEffect[] {
    return this.#run(
      () => {
        const out: AttentionEffect[] = [];
        const now = this.#clock.now();
        for (let pass = 0; pass < MAX_TICK_PASSES; pass++) {
          out.push(...this.#applyEdges(this.#engagement.tick(now)));
          for (const [id, m] of this.#sessions) {
            const o: ManagerEffect[] = [];
            m.tick(now, o);
            out.push(...this.#tag(id, o));
          }
          const next = this.#managersDeadline();
          if (next === null || next > now) break;
        }
        return out;
      },
      undefined,
      true,
    );
  }

  /** Manager disposal: every waiter resolves cancelled. */
  dispose(): AttentionEffect[] {
    const out: AttentionEffect[] = [];
    for (const [id, m] of this.#sessions) {
      const o: ManagerEffect[] = [];
      m.dispose(o, 'cancelled');
      out.push(...this.#tag(id, o));
    }
    this.#sessions.clear();
    this.#delivery.setPushEnabled(false);
    return out;
  }

  // ---- internals ----

  #managersDeadline(): number | null {
    let best: number | null = null;
    for (const m of this.#sessions.values()) best = earliest(best, m.nextDeadline());
    return best;
  }

  #remember(key: string): void {
    if (this.#rememberedAwaits.size >= MAX_REMEMBERED_AWAIT_IDS) {
      const oldest = this.#rememberedAwaits.values().next().value;
      if (oldest !== undefined) this.#rememberedAwaits.delete(oldest);
    }
    this.#rememberedAwaits.add(key);
  }

  /**
   * watchRuleFor, remembered per key: a session's status asks it on every PTY read (twice, for the view diff),
   * and a scan of every rule each time was a large part of the per-read cost.
   */
  #ruleFor(key: string | null): string | null {
    if (key === null) return null;
    let rule = this.#ruleCache.get(key);
    if (rule === undefined) {
      rule = watchRuleFor(this.#rules, key);
      if (this.#ruleCache.size >= RULE_CACHE_MAX) this.#ruleCache.clear();
      this.#ruleCache.set(key, rule);
    }
    return rule;
  }

  #view(sessionId: string, m: AlertManager): SessionAlertView {
    const ring = m.ring;
    return {
      sessionId,
      status: m.status,
      ringing: ring !== null,
      ringingSince: ring?.since ?? null,
      episodeId: ring?.episodeId ?? null,
      todo: m.todo,
      notification: m.notification,
      awaited: m.awaited,
      watchKey: m.watchKey,
      command: m.command,
      engaged: this.#engagement.isEngaged(sessionId),
      exited: m.exited,
    };
  }

  #tag(sessionId: string, effects: readonly ManagerEffect[]): AttentionEffect[] {
    return effects.map((e) => ({ ...e, sessionId }));
  }

  #applyEdges(edges: readonly EngagementEdge[]): AttentionEffect[] {
    const out: AttentionEffect[] = [];
    const now = this.#clock.now();
    for (const edge of edges) {
      const m = this.#sessions.get(edge.sessionId);
      if (!m) continue;
      const o: ManagerEffect[] = [];
      m.setEngaged(edge.engaged, edge.reason, now, o);
      out.push(...this.#tag(edge.sessionId, o));
    }
    return out;
  }

  #withSession(sessionId: string, fn: (m: AlertManager, out: ManagerEffect[]) => void): AttentionEffect[] {
    const m = this.#sessions.get(sessionId);
    if (!m) return []; // a retired id stays retired: raw output and late events never revive it
    return this.#run(() => {
      const out: ManagerEffect[] = [];
      fn(m, out);
      return this.#tag(sessionId, out);
    }, sessionId);
  }

  /**
   * Runs one input, then diffs episodes to drive delivery and publishes changed views. `only` limits the
   * diff to one session; `deliver` also consumes push deadlines (only tick() passes time).
   */
  #run(fn: () => AttentionEffect[], only?: string, deliver = false): AttentionEffect[] {
    // The per-read path (every PTY read is one call with `only`) allocates no maps, and the views before are
    // kept as objects and compared field by field (sameView), not serialized: most reads change nothing.
    let out: AttentionEffect[];
    if (only !== undefined) {
      const m = this.#sessions.get(only);
      const before = m === undefined ? undefined : this.#view(only, m);
      const episode = m?.ring?.episodeId ?? null;
      out = fn();
      this.#settle(only, before, episode, out);
    } else {
      const before = new Map<string, SessionAlertView>();
      const episodes = new Map<string, number | null>();
      for (const [id, m] of this.#sessions) {
        before.set(id, this.#view(id, m));
        episodes.set(id, m.ring?.episodeId ?? null);
      }
      out = fn();
      for (const id of [...this.#sessions.keys()]) {
        this.#settle(id, before.get(id), episodes.get(id) ?? null, out);
      }
    }
    if (deliver) {
      const now = this.#clock.now();
      for (const p of this.#delivery.due(now, this.#engagement.anyPresent(now)))
        out.push({ type: 'push-due', ...p });
    }
    return out;
  }

  /** After an input: drives delivery on an episode change and publishes the session's view if it changed. */
  #settle(
    id: string,
    before: SessionAlertView | undefined,
    prevEpisode: number | null,
    out: AttentionEffect[],
  ): void {
    const m = this.#sessions.get(id);
    if (!m) return;
    const ring = m.ring;
    if (prevEpisode !== null && prevEpisode !== ring?.episodeId) this.#delivery.episodeEnded(id, prevEpisode);
    if (ring && ring.episodeId !== prevEpisode) {
      this.#delivery.episodeOpened(
        id,
        ring.episodeId,
        ring.since,
        this.#settings.pushEnabled,
        this.#settings.pushDelayMs,
      );
    }
    const view = this.#view(id, m);
    if (before === undefined || !sameView(before, view)) out.push({ type: 'state', sessionId: id, view });
    const wanted = m.takeContextRequest();
    if (wanted !== null) out.push({ type: 'context-wanted', sessionId: id, episodeId: wanted });
  }
}
