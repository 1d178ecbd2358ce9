/**
 * A scripted driver for the engine: one manual clock, one session, and helpers named for what a terminal or
 * a viewer does. Used by this folder's tests and available to the daemon's integration tests.
 */
import type { TerminalEvent } from '../terminal/events.js';
import { ManualClock } from './clock.js';
import { type AttentionEffect, AttentionEngine, type SessionAlertView } from './engine.js';

export interface Harness {
  readonly clock: ManualClock;
  readonly engine: AttentionEngine;
  readonly sessionId: string;
  /** Every effect returned so far, in order. */
  readonly effects: AttentionEffect[];
  view(): SessionAlertView;
  event(e: TerminalEvent): AttentionEffect[];
  output(bytes?: number): AttentionEffect[];
  /** Moves time and runs the engine's tick. */
  advance(ms: number): AttentionEffect[];
  start(commandLine: string | null): AttentionEffect[];
  finish(exitCode?: number | null): AttentionEffect[];
  notify(body: string, title?: string): AttentionEffect[];
  bell(): AttentionEffect[];
  /** Drives the detector to BUSY: steady output for busyCandidateGap + busyConfirmGap. */
  busy(): void;
  /** A present, focused, visible viewer looking at the session. */
  look(viewerId?: string): AttentionEffect[];
  /** The viewer leaves (blur / hide). */
  leave(viewerId?: string): AttentionEffect[];
  pushes(): Array<Extract<AttentionEffect, { type: 'push-due' }>>;
  awaitResults(): Array<Extract<AttentionEffect, { type: 'await-resolved' }>>;
}

export function createHarness(
  options: { settings?: unknown; watchRules?: unknown; start?: number } = {},
): Harness {
  const clock = new ManualClock(options.start ?? 1_000_000);
  const engine = new AttentionEngine({ clock, settings: options.settings, watchRules: options.watchRules });
  const sessionId = 's1';
  const effects: AttentionEffect[] = [];
  const keep = (e: AttentionEffect[]): AttentionEffect[] => {
    effects.push(...e);
    return e;
  };
  keep(engine.sessionSpawned(sessionId));
  const h: Harness = {
    clock,
    engine,
    sessionId,
    effects,
    view: () => {
      const v = engine.view(sessionId);
      if (v === null) throw new Error('session is gone');
      return v;
    },
    event: (e) => keep(engine.onTerminalEvent(sessionId, e)),
    output: (bytes = 32) => h.event({ type: 'output', bytes }),
    advance: (ms) => {
      clock.advance(ms);
      return keep(engine.tick());
    },
    start: (commandLine) => h.event({ type: 'command-start', commandLine }),
    finish: (exitCode = 0) => h.event({ type: 'command-end', exitCode }),
    notify: (body, title = '') => h.event({ type: 'notify', source: 'osc9', title, body }),
    bell: () => h.event({ type: 'bell' }),
    busy: () => {
      for (let i = 0; i < 5; i++) {
        h.output();
        h.advance(500);
      }
      h.output();
    },
    look: (viewerId = 'phone') => [
      ...keep(engine.viewerPresence(viewerId, { presence: 'present', focused: true, visible: true })),
      ...keep(engine.viewerLooking(viewerId, sessionId)),
    ],
    leave: (viewerId = 'phone') =>
      keep(engine.viewerPresence(viewerId, { presence: 'away', focused: false, visible: false })),
    pushes: () =>
      effects.filter((e): e is Extract<AttentionEffect, { type: 'push-due' }> => e.type === 'push-due'),
    awaitResults: () =>
      effects.filter(
        (e): e is Extract<AttentionEffect, { type: 'await-resolved' }> => e.type === 'await-resolved',
      ),
  };
  return h;
}
