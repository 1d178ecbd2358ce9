import { describe, expect, it } from 'vitest';
import { createHarness } from './harness.js';
import { computeUnion } from './union.js';

describe('union of sessions', () => {
  it('counts each session once and clocks from the earliest ring', () => {
    const h = createHarness();
    h.engine.sessionSpawned('s2');
    h.engine.sessionSpawned('s3');
    h.notify('one');
    const first = h.view().ringingSince;
    h.advance(1000);
    h.engine.onTerminalEvent('s2', { type: 'bell' });
    h.engine.verb('s2', 'acknowledge');
    h.engine.onTerminalEvent('s3', { type: 'bell' });
    const views = h.engine.views();
    expect(computeUnion(views)).toEqual({ ringing: true, todo: true, count: 3, ringingSince: first });
  });

  it('is empty for no sessions', () => {
    expect(computeUnion([])).toEqual({ ringing: false, todo: false, count: 0, ringingSince: null });
  });
});
