import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TerminalEvent } from '../terminal/events.js';
import { ALERT_VERBS } from './alert-manager.js';
import type { AttentionEffect } from './engine.js';
import { createHarness } from './harness.js';

/** One random thing that can happen to a session or its viewers. */
const step = fc.oneof(
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 8_000 }) }),
  fc.record({ kind: fc.constant('output' as const) }),
  fc.record({
    kind: fc.constant('event' as const),
    event: fc.constantFrom<TerminalEvent>(
      { type: 'bell' },
      { type: 'notify', source: 'osc9', title: '', body: 'needs you' },
      { type: 'notify', source: 'osc777', title: 't', body: '' },
      { type: 'progress', state: 'normal', value: 50 },
      { type: 'progress', state: 'normal', value: 100 },
      { type: 'progress', state: 'error', value: null },
      { type: 'progress', state: 'clear', value: null },
      { type: 'command-start', commandLine: 'claude' },
      { type: 'command-start', commandLine: 'make test' },
      { type: 'command-end', exitCode: 0 },
      { type: 'prompt-start' },
      { type: 'focus-reporting', enabled: true },
    ),
  }),
  fc.record({
    kind: fc.constant('input' as const),
    what: fc.constantFrom('user', 'terminal-reply', 'mouse'),
  }),
  fc.record({ kind: fc.constant('verb' as const), verb: fc.constantFrom(...ALERT_VERBS) }),
  fc.record({ kind: fc.constant('look' as const), viewer: fc.constantFrom('phone', 'attach') }),
  fc.record({ kind: fc.constant('lookAway' as const), viewer: fc.constantFrom('phone', 'attach') }),
  fc.record({ kind: fc.constant('leave' as const), viewer: fc.constantFrom('phone', 'attach') }),
  fc.record({ kind: fc.constant('idle' as const), viewer: fc.constantFrom('phone', 'attach') }),
  fc.record({ kind: fc.constant('await' as const), until: fc.constantFrom('quiet', 'exit') }),
  fc.record({
    kind: fc.constant('rules' as const),
    rules: fc.constantFrom([], ['claude'], ['make', 'claude']),
  }),
  fc.record({ kind: fc.constant('settings' as const), defer: fc.boolean(), push: fc.boolean() }),
  fc.record({ kind: fc.constant('resize' as const) }),
  fc.record({ kind: fc.constant('exit' as const) }),
);

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function play(
  steps: readonly Step[],
  check: (effects: AttentionEffect[], h: ReturnType<typeof createHarness>) => void,
) {
  const h = createHarness({ settings: { pushDelayMs: 3_000, inactivityTimeoutMs: 10_000 } });
  let awaitN = 0;
  for (const s of steps) {
    const before = h.effects.length;
    switch (s.kind) {
      case 'advance':
        h.advance(s.ms);
        break;
      case 'output':
        h.output();
        break;
      case 'event':
        h.event(s.event);
        break;
      case 'input':
        h.effects.push(...h.engine.onInput(h.sessionId, s.what));
        break;
      case 'verb':
        h.effects.push(...h.engine.verb(h.sessionId, s.verb));
        break;
      case 'look':
        h.look(s.viewer);
        break;
      case 'lookAway':
        h.effects.push(...h.engine.viewerLooking(s.viewer, null));
        break;
      case 'leave':
        h.leave(s.viewer);
        break;
      case 'idle':
        h.effects.push(
          ...h.engine.viewerPresence(s.viewer, { presence: 'idle', focused: true, visible: true }),
        );
        break;
      case 'await':
        h.effects.push(
          ...h.engine.awaitRequest('cli', h.sessionId, {
            awaitId: `a${awaitN++}`,
            until: s.until,
            timeoutMs: 20_000,
          }),
        );
        break;
      case 'rules':
        h.effects.push(...h.engine.setWatchRules(s.rules));
        break;
      case 'settings':
        h.effects.push(...h.engine.updateSettings({ deferAlertsUntilQuiet: s.defer, pushEnabled: s.push }));
        break;
      case 'resize':
        h.effects.push(...h.engine.sessionResized(h.sessionId));
        break;
      case 'exit':
        h.effects.push(...h.engine.sessionExited(h.sessionId, 1));
        break;
    }
    check(h.effects.slice(before), h);
  }
  return h;
}

describe('engine invariants under random event sequences', () => {
  it('sends at most one push per episode', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const h = play(steps, () => {});
        const episodes = h.pushes().map((p) => p.episodeId);
        expect(new Set(episodes).size).toBe(episodes.length);
      }),
      { seed: 1234, numRuns: 300 },
    );
  });

  it('never opens a ring while the session is engaged', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        let lastEpisode: number | null = null;
        play(steps, (effects) => {
          for (const e of effects) {
            if (e.type !== 'state') continue;
            const opened = e.view.episodeId !== null && e.view.episodeId !== lastEpisode;
            if (opened) expect(e.view.engaged).toBe(false);
            lastEpisode = e.view.episodeId;
          }
        });
      }),
      { seed: 99, numRuns: 300 },
    );
  });

  it('answers every await exactly once', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const h = play(steps, () => {});
        h.effects.push(...h.engine.dispose());
        const asked = steps.filter((s) => s.kind === 'await').length;
        const ids = h.awaitResults().map((r) => r.awaitId);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.length).toBe(asked);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('keeps the public view consistent: notification iff ringing or TODO, episode iff ringing', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        play(steps, (_e, h) => {
          const v = h.view();
          expect(v.ringing).toBe(v.episodeId !== null);
          expect(v.ringing).toBe(v.status === 'ALERT_RINGING');
          if (v.ringing) expect(v.notification).not.toBeNull();
          if (!v.ringing && !v.todo) expect(v.notification).toBeNull();
        });
      }),
      { seed: 2024, numRuns: 300 },
    );
  });

  it('always reports a deadline in the future after a tick', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const h = play(steps, () => {});
        h.advance(0);
        const next = h.engine.nextDeadline();
        if (next !== null) expect(next).toBeGreaterThan(h.clock.now());
      }),
      { seed: 31, numRuns: 200 },
    );
  });

  it('takes any untrusted blob (settings, rules, restore, await) without throwing', () => {
    fc.assert(
      fc.property(
        fc.anything(),
        fc.anything(),
        fc.anything(),
        fc.anything(),
        (settings, rules, persisted, req) => {
          const h = createHarness();
          h.engine.updateSettings(settings);
          h.engine.setWatchRules(rules);
          h.engine.sessionSpawned('s2', persisted);
          const answer = h.engine.awaitRequest('cli', 's2', req);
          expect(answer.filter((e) => e.type === 'await-resolved').length).toBeLessThanOrEqual(1);
          h.advance(1_000_000);
          expect(h.engine.view('s2')?.ringing).toBe(false);
        },
      ),
      { seed: 11, numRuns: 300 },
    );
  });
});
