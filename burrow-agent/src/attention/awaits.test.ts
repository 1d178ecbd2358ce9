import { describe, expect, it } from 'vitest';
import { awaitRequestProblem, MAX_AWAITS_PER_SESSION } from './awaits.js';
import { createHarness, type Harness } from './harness.js';
import { AWAIT_GRACE_MS, MAX_AWAIT_TIMEOUT_MS, SETTLE_MS } from './timing.js';

const park = (h: Harness, awaitId: string, until: 'quiet' | 'exit', timeoutMs = 600_000, realm = 'cli') =>
  h.effects.push(...h.engine.awaitRequest(realm, h.sessionId, { awaitId, until, timeoutMs }));
const causes = (h: Harness) => h.awaitResults().map((r) => [r.awaitId, r.cause]);

describe('await', () => {
  it('quiet resolves on a settle with cause quiet and absorbs the ring', () => {
    const h = createHarness();
    h.start('claude');
    park(h, 'a1', 'quiet');
    expect(h.view().awaited).toBe(true);
    h.busy();
    h.advance(SETTLE_MS);
    expect(causes(h)).toEqual([['a1', 'quiet']]);
    expect(h.view()).toMatchObject({ ringing: false, todo: false, awaited: false });
    expect(h.pushes()).toEqual([]);
  });

  it('quiet resolves on a notification with cause bell, exit never does', () => {
    const h = createHarness();
    h.start('claude');
    park(h, 'q', 'quiet');
    park(h, 'x', 'exit');
    h.notify('waiting for you');
    expect(causes(h)).toEqual([['q', 'bell']]);
    h.finish(0);
    expect(causes(h)).toEqual([
      ['q', 'bell'],
      ['x', 'exit'],
    ]);
  });

  it('a completion goes to every await whose condition it satisfies', () => {
    const h = createHarness();
    h.start('make');
    park(h, 'a', 'quiet');
    park(h, 'b', 'exit');
    park(h, 'c', 'quiet', 600_000, 'other-realm');
    h.finish(2);
    expect(causes(h).sort()).toEqual([
      ['a', 'exit'],
      ['b', 'exit'],
      ['c', 'exit'],
    ]);
  });

  it('with nothing running parks one grace window, then resolves idle', () => {
    const h = createHarness();
    park(h, 'a', 'quiet');
    h.advance(AWAIT_GRACE_MS - 1);
    expect(causes(h)).toEqual([]);
    h.advance(1);
    expect(causes(h)).toEqual([['a', 'idle']]);
  });

  it('a command start cancels the grace window under either until', () => {
    for (const until of ['quiet', 'exit'] as const) {
      const h = createHarness();
      park(h, 'a', until);
      h.start('make');
      h.advance(AWAIT_GRACE_MS * 3);
      expect(causes(h)).toEqual([]);
      h.finish(0);
      expect(causes(h)).toEqual([['a', 'exit']]);
    }
  });

  it('output cancels the grace window under quiet but not under exit', () => {
    const q = createHarness();
    park(q, 'a', 'quiet');
    q.output();
    q.advance(AWAIT_GRACE_MS * 2);
    expect(causes(q)).toEqual([]);
    const x = createHarness();
    park(x, 'a', 'exit');
    x.output();
    x.advance(AWAIT_GRACE_MS);
    expect(causes(x)).toEqual([['a', 'idle']]);
  });

  it('a running command parks with no grace window', () => {
    const h = createHarness();
    h.start('make');
    park(h, 'a', 'exit');
    h.advance(AWAIT_GRACE_MS * 5);
    expect(causes(h)).toEqual([]);
  });

  it('an await arriving mid-ring resolves immediately, consuming only that source', () => {
    const h = createHarness();
    h.start('claude');
    h.busy();
    h.advance(SETTLE_MS);
    h.bell();
    park(h, 'a', 'quiet');
    expect(causes(h)).toEqual([['a', 'bell']]);
    expect(h.view().ringing).toBe(true); // the watching source is still there
    park(h, 'b', 'quiet');
    expect(causes(h)[1]).toEqual(['b', 'quiet']);
    expect(h.view()).toMatchObject({ ringing: false, todo: false });
  });

  it('under exit only the exit source counts mid-ring, and it keeps waiting on the others', () => {
    const h = createHarness();
    h.notify('hello');
    park(h, 'a', 'exit');
    expect(causes(h)).toEqual([]);
    expect(h.view().ringing).toBe(true);
  });

  it('skips the exit source while a foreground command is running', () => {
    const h = createHarness();
    h.look();
    h.start('make');
    h.leave();
    h.finish(0);
    h.start('make again');
    park(h, 'a', 'exit');
    expect(causes(h)).toEqual([]);
  });

  it('skips the watching source once output has resumed since it joined the ring', () => {
    const h = createHarness();
    h.start('claude');
    h.busy();
    h.advance(SETTLE_MS);
    h.output();
    park(h, 'a', 'quiet');
    expect(causes(h)).toEqual([]);
    expect(h.view().ringing).toBe(true);
  });

  it('leaves no TODO whether the report arrived before or after the await parked', () => {
    const before = createHarness();
    before.start('claude');
    before.notify('done');
    park(before, 'a', 'quiet');
    const after = createHarness();
    after.start('claude');
    park(after, 'a', 'quiet');
    after.notify('done');
    for (const h of [before, after]) {
      expect(causes(h)).toEqual([['a', 'bell']]);
      expect(h.view()).toMatchObject({ ringing: false, todo: false, notification: null });
    }
  });

  it('never clears a pre-existing TODO', () => {
    const h = createHarness();
    h.engine.verb(h.sessionId, 'todo-on');
    h.start('claude');
    park(h, 'a', 'quiet');
    h.notify('done');
    expect(h.view().todo).toBe(true);
  });

  it('absorption is per signal: the next settle still rings for the human', () => {
    const h = createHarness();
    h.start('claude');
    park(h, 'a', 'quiet');
    h.busy();
    h.advance(SETTLE_MS);
    h.busy();
    h.advance(SETTLE_MS);
    expect(h.view().ringing).toBe(true);
  });

  it('a failed await absorbs nothing: timeout, death and cancel claim no completion', () => {
    const t = createHarness();
    t.start('claude');
    park(t, 'a', 'exit', 1000);
    t.advance(1000);
    t.notify('done');
    expect(causes(t)).toEqual([['a', 'timeout']]);
    expect(t.view().ringing).toBe(true);

    const c = createHarness();
    c.start('claude');
    park(c, 'a', 'quiet');
    c.effects.push(...c.engine.awaitCancel('cli', 'a'));
    c.notify('done');
    expect(causes(c)).toEqual([['a', 'cancelled']]);
    expect(c.view().ringing).toBe(true);
  });

  it('PTY exit resolves parked waiters as died after command-finish dispatch gets first chance', () => {
    const h = createHarness();
    h.start('make');
    park(h, 'x', 'exit');
    h.effects.push(...h.engine.sessionExited(h.sessionId, 1));
    expect(causes(h)).toEqual([['x', 'exit']]);
    const g = createHarness();
    park(g, 'q', 'quiet');
    g.effects.push(...g.engine.sessionExited(g.sessionId, 1));
    expect(causes(g)).toEqual([['q', 'died']]);
  });

  it('session removal resolves died; engine disposal resolves cancelled', () => {
    const h = createHarness();
    h.start('make');
    park(h, 'a', 'exit');
    h.effects.push(...h.engine.sessionRemoved(h.sessionId));
    expect(causes(h)).toEqual([['a', 'died']]);
    const g = createHarness();
    g.start('make');
    park(g, 'a', 'exit');
    g.effects.push(...g.engine.dispose());
    expect(causes(g)).toEqual([['a', 'cancelled']]);
  });

  it('claiming is delivery: a later cancel is a no-op', () => {
    const h = createHarness();
    h.start('make');
    park(h, 'a', 'exit');
    h.finish(0);
    expect(h.engine.awaitCancel('cli', 'a')).toEqual([]);
    expect(causes(h)).toEqual([['a', 'exit']]);
  });

  it('a realm that ends has everything it parked cancelled and answered', () => {
    const h = createHarness();
    h.start('make');
    park(h, 'a', 'exit', 600_000, 'phone');
    park(h, 'b', 'exit', 600_000, 'cli');
    h.effects.push(...h.engine.viewerGone('phone'));
    expect(causes(h)).toEqual([['a', 'cancelled']]);
  });

  it("a realm's repeated awaitId is ignored, never answered twice", () => {
    const h = createHarness();
    h.start('make');
    park(h, 'a', 'exit');
    park(h, 'a', 'exit');
    h.finish(0);
    expect(causes(h)).toEqual([['a', 'exit']]);
    park(h, 'a', 'quiet');
    h.advance(AWAIT_GRACE_MS);
    expect(causes(h)).toEqual([['a', 'exit']]);
  });

  it('rejects a non-finite, non-positive, or over-ceiling timeout and a malformed id or until as cancelled', () => {
    const h = createHarness();
    const bad = [
      { awaitId: 'a', until: 'quiet', timeoutMs: Number.NaN },
      { awaitId: 'b', until: 'quiet', timeoutMs: 0 },
      { awaitId: 'c', until: 'quiet', timeoutMs: MAX_AWAIT_TIMEOUT_MS + 1 },
      { awaitId: 'd', until: 'bell', timeoutMs: 1000 },
      { awaitId: 'has space', until: 'quiet', timeoutMs: 1000 },
    ];
    for (const req of bad) h.effects.push(...h.engine.awaitRequest('cli', h.sessionId, req));
    expect(h.awaitResults().map((r) => r.cause)).toEqual(Array(bad.length).fill('cancelled'));
    expect(h.view().awaited).toBe(false);
    expect(awaitRequestProblem({ awaitId: 'ok', until: 'exit', timeoutMs: MAX_AWAIT_TIMEOUT_MS })).toBeNull();
  });

  it('an await on an unknown session is answered cancelled; a bad realm id is a TypeError', () => {
    const h = createHarness();
    expect(() =>
      h.engine.awaitRequest('', h.sessionId, { awaitId: 'a', until: 'quiet', timeoutMs: 1 }),
    ).toThrow(TypeError);
    expect(
      h.engine.awaitRequest('cli', 'nope', { awaitId: 'a', until: 'quiet', timeoutMs: 1000 }),
    ).toMatchObject([{ type: 'await-resolved', cause: 'cancelled' }]);
  });

  it('bounds the awaits parked on one session', () => {
    const h = createHarness();
    h.start('make');
    for (let i = 0; i <= MAX_AWAITS_PER_SESSION; i++) park(h, `a${i}`, 'exit');
    expect(causes(h)).toEqual([[`a${MAX_AWAITS_PER_SESSION}`, 'cancelled']]);
  });

  it('enforces the ceiling host-side', () => {
    const h = createHarness();
    h.start('make');
    park(h, 'a', 'exit', 5_000);
    h.advance(4_999);
    expect(causes(h)).toEqual([]);
    h.advance(1);
    expect(causes(h)).toEqual([['a', 'timeout']]);
  });

  it('consuming a watching source resets the detector so its tail cannot settle again', () => {
    const h = createHarness();
    h.start('claude');
    h.busy();
    h.advance(SETTLE_MS);
    park(h, 'a', 'quiet');
    expect(h.view()).toMatchObject({ ringing: false, status: 'NOTHING_TO_SHOW' });
    h.output();
    h.advance(SETTLE_MS * 2);
    expect(h.view().ringing).toBe(false);
  });

  it('an await on a session whose PTY already exited resolves died at once, unless a ring answers it', () => {
    const h = createHarness();
    h.engine.sessionExited(h.sessionId, 0);
    park(h, 'a', 'quiet');
    expect(causes(h)).toEqual([['a', 'died']]);
    const g = createHarness();
    g.bell();
    g.engine.sessionExited(g.sessionId, 0);
    park(g, 'a', 'quiet');
    expect(causes(g)).toEqual([['a', 'bell']]);
  });
});
