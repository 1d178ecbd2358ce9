import { describe, expect, it } from 'vitest';
import { DeliveryScheduler } from './delivery.js';
import { createHarness } from './harness.js';

describe('DeliveryScheduler', () => {
  it('is due at the episode start plus the delay, once', () => {
    const d = new DeliveryScheduler();
    d.episodeOpened('s', 1, 100, true, 50);
    expect(d.nextDeadline()).toBe(150);
    expect(d.due(149, false)).toEqual([]);
    expect(d.due(150, false)).toEqual([{ sessionId: 's', episodeId: 1 }]);
    expect(d.due(1000, false)).toEqual([]);
  });

  it('consumes a deadline whose recheck fails, never retrying', () => {
    const d = new DeliveryScheduler();
    d.episodeOpened('s', 1, 0, true, 10);
    expect(d.due(10, true)).toEqual([]);
    expect(d.due(20, false)).toEqual([]);
    expect(d.nextDeadline()).toBeNull();
  });

  it('the episode ending consumes what it had pending', () => {
    const d = new DeliveryScheduler();
    d.episodeOpened('s', 1, 0, true, 10);
    d.episodeEnded('s', 1);
    expect(d.due(100, false)).toEqual([]);
  });

  it('disabling consumes pending work and enabling never replays an episode', () => {
    const d = new DeliveryScheduler();
    d.episodeOpened('s', 1, 0, true, 10);
    d.setPushEnabled(false);
    d.setPushEnabled(true);
    expect(d.due(100, false)).toEqual([]);
    d.episodeOpened('t', 2, 0, false, 10); // began disabled
    d.setPushEnabled(true);
    expect(d.due(100, false)).toEqual([]);
  });
});

describe('delivery through the engine', () => {
  const fast = { settings: { pushDelayMs: 5_000 } };

  it('sends one push for an episode nobody looked at', () => {
    const h = createHarness(fast);
    h.notify('done');
    h.advance(4_999);
    expect(h.pushes()).toEqual([]);
    h.advance(1);
    expect(h.pushes()).toEqual([{ type: 'push-due', sessionId: 's1', episodeId: h.view().episodeId }]);
    h.advance(60_000);
    expect(h.pushes()).toHaveLength(1);
  });

  it('a source joining the episode sends nothing new', () => {
    const h = createHarness(fast);
    h.bell();
    h.advance(3_000);
    h.notify('more detail');
    h.advance(30_000);
    expect(h.pushes()).toHaveLength(1);
  });

  it('clearing the ring before the deadline consumes the push', () => {
    const h = createHarness(fast);
    h.notify('done');
    h.engine.verb(h.sessionId, 'dismiss');
    h.advance(10_000);
    expect(h.pushes()).toEqual([]);
  });

  it('rechecks at the deadline: a viewer present anywhere consumes the push', () => {
    const h = createHarness(fast);
    h.notify('done');
    h.engine.viewerPresence('laptop', { presence: 'present', focused: true, visible: true });
    h.engine.viewerLooking('laptop', 'elsewhere');
    h.advance(5_000);
    expect(h.pushes()).toEqual([]);
    h.engine.viewerGone('laptop');
    h.advance(60_000);
    expect(h.pushes()).toEqual([]); // never retried
  });

  it('disabling push consumes pending work; enabling never replays the episode', () => {
    const h = createHarness(fast);
    h.notify('done');
    h.engine.updateSettings({ pushEnabled: false });
    h.engine.updateSettings({ pushEnabled: true });
    h.advance(60_000);
    expect(h.pushes()).toEqual([]);
  });

  it('delay edits never move a scheduled deadline', () => {
    const h = createHarness(fast);
    h.notify('done');
    h.engine.updateSettings({ pushDelayMs: 60_000 });
    h.advance(5_000);
    expect(h.pushes()).toHaveLength(1);
  });

  it('a new episode after the ring cleared gets its own push', () => {
    const h = createHarness(fast);
    h.notify('one');
    h.advance(5_000);
    h.engine.verb(h.sessionId, 'acknowledge-with-input');
    h.advance(2_000);
    h.output();
    h.notify('two');
    h.advance(5_000);
    expect(h.pushes().map((p) => p.episodeId)).toHaveLength(2);
    expect(new Set(h.pushes().map((p) => p.episodeId)).size).toBe(2);
  });
});
