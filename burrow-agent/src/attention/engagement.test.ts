import { describe, expect, it } from 'vitest';
import { FOCUS_IN, FOCUS_OUT } from './alert-manager.js';
import { MAX_VIEWERS } from './engagement.js';
import { createHarness, type Harness } from './harness.js';
import { ALERT_TIMING, SETTLE_MS } from './timing.js';

const writes = (h: Harness) =>
  h.effects.filter((e) => e.type === 'pty-write').map((e) => (e as { data: string }).data);

describe('engagement', () => {
  it('a session is engaged while some present viewer focuses it', () => {
    const h = createHarness();
    h.look('phone');
    expect(h.view().engaged).toBe(true);
    h.engine.viewerLooking('phone', null);
    expect(h.view().engaged).toBe(false);
  });

  it("one viewer's leave never disengages a session another viewer engages", () => {
    const h = createHarness();
    h.look('phone');
    h.look('attach');
    h.leave('phone');
    expect(h.view().engaged).toBe(true);
    h.engine.viewerGone('attach');
    expect(h.view().engaged).toBe(false);
  });

  it('an absent viewer looking at a session does not engage it', () => {
    const h = createHarness();
    h.engine.viewerLooking('phone', h.sessionId);
    expect(h.view().engaged).toBe(false);
    h.engine.viewerPresence('phone', { presence: 'present', focused: false, visible: true });
    expect(h.view().engaged).toBe(false);
  });

  it('presence lapses idle after inactivityTimeoutMs without input, and input keeps it', () => {
    const h = createHarness({ settings: { inactivityTimeoutMs: 10_000 } });
    h.look();
    h.advance(9_000);
    h.engine.viewerActivity('phone');
    h.advance(9_000);
    expect(h.view().engaged).toBe(true);
    h.advance(1_000);
    expect(h.view().engaged).toBe(false);
  });

  it('rejects a malformed presence report or input kind with a TypeError', () => {
    const h = createHarness();
    expect(() =>
      h.engine.viewerPresence('p', { presence: 'here' as never, focused: true, visible: true }),
    ).toThrow(TypeError);
    expect(() =>
      h.engine.viewerPresence('p', { presence: 'present', focused: 1 as never, visible: true }),
    ).toThrow(TypeError);
    expect(() => h.engine.onInput(h.sessionId, 'keys' as never)).toThrow(TypeError);
  });

  it('refuses more than MAX_VIEWERS viewers and a bad viewer id', () => {
    const h = createHarness();
    for (let i = 0; i < MAX_VIEWERS; i++) h.engine.viewerLooking(`v${i}`, null);
    expect(() => h.engine.viewerLooking('one-more', null)).toThrow(RangeError);
    expect(() => h.engine.viewerLooking('', null)).toThrow(TypeError);
  });
});

describe('what does not acknowledge', () => {
  for (const [name, act] of [
    ['a terminal reply', (h: Harness) => h.engine.onInput(h.sessionId, 'terminal-reply')],
    ['a mouse-only report', (h: Harness) => h.engine.onInput(h.sessionId, 'mouse')],
    ['a resize', (h: Harness) => h.engine.sessionResized(h.sessionId)],
    ['a reattach (viewer looking again)', (h: Harness) => h.engine.viewerLooking('away-viewer', h.sessionId)],
  ] as const) {
    it(`${name} leaves the ring and TODO alone`, () => {
      const h = createHarness();
      h.notify('hello');
      act(h);
      expect(h.view()).toMatchObject({ ringing: true, todo: false });
    });
  }

  it('a spawn does not acknowledge: the respawned session starts over with nothing', () => {
    const h = createHarness();
    h.look();
    h.engine.sessionSpawned('s2');
    expect(h.engine.view('s2')).toMatchObject({ ringing: false, todo: false });
  });
});

describe('echo window', () => {
  it('ignores output right after user input entirely, even when acknowledging clears nothing', () => {
    const h = createHarness();
    h.start('claude');
    h.engine.onInput(h.sessionId, 'user');
    for (let i = 0; i < 4; i++) {
      h.output();
      h.advance(ALERT_TIMING.echoWindow / 4 - 1);
    }
    h.advance(SETTLE_MS * 2);
    expect(h.view().ringing).toBe(false);
  });

  it('a completion inside the echo window neither rings nor is held', () => {
    const h = createHarness();
    h.engine.onInput(h.sessionId, 'user');
    h.output();
    h.advance(10);
    h.bell();
    expect(h.view()).toMatchObject({ ringing: false, todo: false });
  });
});

describe('resize redraw noise', () => {
  it('output inside the resize debounce never drives the detector', () => {
    const h = createHarness();
    h.start('claude');
    h.engine.sessionResized(h.sessionId);
    for (let i = 0; i < 3; i++) {
      h.output();
      h.advance(300);
    }
    expect(h.view().status).toBe('NOTHING_TO_SHOW');
    h.advance(SETTLE_MS * 2);
    expect(h.view().ringing).toBe(false);
  });
});

describe('held completions', () => {
  it('holds a completion on an engaged session, never public', () => {
    const h = createHarness();
    h.look();
    h.notify('Claude needs you');
    expect(h.view()).toMatchObject({ ringing: false, todo: false, notification: null });
  });

  it('presence lapsing idle with focus unchanged rings what was held, with the richest detail', () => {
    const h = createHarness({ settings: { inactivityTimeoutMs: 10_000 } });
    h.look();
    h.bell();
    h.notify('Claude needs you');
    h.bell();
    h.advance(10_000);
    expect(h.view().ringing).toBe(true);
    expect(h.view().notification?.body).toBe('Claude needs you');
  });

  it('an idle report from the viewer with focus unchanged releases the hold too', () => {
    const h = createHarness();
    h.look();
    h.notify('x');
    h.engine.viewerPresence('phone', { presence: 'idle', focused: true, visible: true });
    expect(h.view().ringing).toBe(true);
  });

  for (const [name, end] of [
    ['focus moving away', (h: Harness) => h.engine.viewerLooking('phone', 'other')],
    ['the viewer leaving', (h: Harness) => h.leave()],
    ['the viewer disconnecting (a detach)', (h: Harness) => h.engine.viewerGone('phone')],
  ] as const) {
    it(`${name} leaves a held, unanswered report as a TODO with its detail, never a ring (issue 13)`, () => {
      const h = createHarness();
      h.look();
      h.bell();
      h.notify('Claude needs your permission');
      end(h);
      h.advance(120_000);
      expect(h.view()).toMatchObject({
        ringing: false,
        todo: true,
        notification: { source: 'osc9', body: 'Claude needs your permission' },
      });
      expect(h.pushes()).toEqual([]);
    });

    it(`${name} drops a held command exit or settle: the viewer saw it (no TODO)`, () => {
      const h = createHarness({ watchRules: ['claude'] });
      h.look();
      h.start('claude');
      h.busy();
      h.advance(SETTLE_MS); // a held settle
      h.finish(1); // and a held exit
      end(h);
      h.advance(120_000);
      expect(h.view()).toMatchObject({ ringing: false, todo: false, notification: null });
    });
  }

  it('input while looking answers a held report: the detach then leaves no TODO', () => {
    const h = createHarness();
    h.look();
    h.notify('Proceed?');
    h.engine.onInput(h.sessionId, 'user');
    h.engine.viewerGone('phone');
    expect(h.view()).toMatchObject({ ringing: false, todo: false });
  });

  it('a user verb drops what was held and leaves no TODO', () => {
    const h = createHarness();
    h.look();
    h.notify('x');
    h.engine.verb(h.sessionId, 'acknowledge');
    h.leave();
    h.advance(120_000);
    expect(h.view()).toMatchObject({ ringing: false, todo: false });
  });

  it('a held watching settle rings by its unengaged path when presence lapses', () => {
    const h = createHarness({ settings: { inactivityTimeoutMs: 20_000 } });
    h.look();
    h.start('claude');
    h.busy();
    h.advance(SETTLE_MS);
    expect(h.view().ringing).toBe(false);
    h.advance(20_000);
    expect(h.view()).toMatchObject({ ringing: true, notification: { source: 'watching' } });
  });

  it('a Claude Code turn: engaged while it works, away when it asks, one ring and one push', () => {
    const h = createHarness({ settings: { pushDelayMs: 5_000 } });
    h.look();
    h.start('claude');
    h.busy();
    h.leave();
    h.advance(ALERT_TIMING.mightNeedAttention);
    h.event({ type: 'notify', source: 'osc9', title: '', body: 'Claude needs your permission to use Bash' });
    // An explicit request rings at once, the detector still armed (issue 13: never deferred).
    expect(h.view()).toMatchObject({ ringing: true, notification: { source: 'osc9' } });
    const episode = h.view().episodeId;
    h.advance(4_999);
    expect(h.pushes()).toEqual([]);
    h.advance(10_000);
    expect(h.pushes()).toEqual([{ type: 'push-due', sessionId: 's1', episodeId: episode }]);
  });
});

describe('focus reports to programs', () => {
  it('answers DECSET 1004 with the current state right away', () => {
    const h = createHarness();
    h.event({ type: 'focus-reporting', enabled: true });
    expect(writes(h)).toEqual([FOCUS_OUT]);
    const g = createHarness();
    g.look();
    g.event({ type: 'focus-reporting', enabled: true });
    expect(writes(g)).toEqual([FOCUS_IN]);
  });

  it('writes CSI I / CSI O on engagement transitions only, and nothing once disabled', () => {
    const h = createHarness();
    h.event({ type: 'focus-reporting', enabled: true });
    h.look();
    h.look('attach');
    h.leave();
    h.leave('attach');
    expect(writes(h)).toEqual([FOCUS_OUT, FOCUS_IN, FOCUS_OUT]);
    h.event({ type: 'focus-reporting', enabled: false });
    h.look();
    expect(writes(h)).toEqual([FOCUS_OUT, FOCUS_IN, FOCUS_OUT]);
  });

  it('never writes focus reports to a program that did not ask', () => {
    const h = createHarness();
    h.look();
    h.leave();
    expect(writes(h)).toEqual([]);
  });
});

describe('WATCHING edits and resumed work', () => {
  it('editing the rule set re-derives WATCHING live without restarting the detector', () => {
    const h = createHarness({ watchRules: [] });
    h.start('make');
    h.busy();
    expect(h.view().status).toBe('WATCHING_DISABLED');
    h.engine.setWatchRules(['make']);
    expect(h.view().status).toBe('BUSY');
    h.advance(SETTLE_MS);
    expect(h.view().notification).toEqual({ source: 'watching', title: 'make went quiet', body: null });
  });

  it('a WATCHING ring outlives the command; a command merely ending never clears it', () => {
    const h = createHarness();
    h.start('claude');
    h.busy();
    h.advance(SETTLE_MS);
    h.finish(0);
    expect(h.view()).toMatchObject({ ringing: true, status: 'ALERT_RINGING', command: null });
  });

  it('removing a rule withdraws the watching source it raised, even after the command exited', () => {
    const h = createHarness();
    h.start('claude');
    h.busy();
    h.advance(SETTLE_MS);
    h.finish(0);
    h.engine.setWatchRules(['codex']);
    expect(h.view()).toMatchObject({ ringing: false, todo: false });
  });

  it('keeps the watching source while another rule still covers the key', () => {
    const h = createHarness({ watchRules: ['pnpm dev', 'pnpm'] });
    h.start('pnpm run dev');
    h.busy();
    h.advance(SETTLE_MS);
    h.engine.setWatchRules(['pnpm']);
    expect(h.view().ringing).toBe(true);
  });

  it('withdraws the watching source when watched work resumes confirmed BUSY', () => {
    const h = createHarness();
    h.start('claude');
    h.busy();
    h.advance(SETTLE_MS);
    expect(h.view().ringing).toBe(true);
    h.output(); // a short redraw keeps the ring
    h.advance(200);
    expect(h.view().ringing).toBe(true);
    h.busy();
    expect(h.view()).toMatchObject({ ringing: false, todo: false, status: 'BUSY' });
  });

  it('keeps the other sources when resumed work withdraws watching', () => {
    const h = createHarness();
    h.start('claude');
    h.busy();
    h.advance(SETTLE_MS);
    h.bell();
    h.busy();
    expect(h.view()).toMatchObject({ ringing: true, notification: { source: 'watching' } });
  });

  it('without deferAlertsUntilQuiet resumed work keeps the ring', () => {
    const h = createHarness({ settings: { deferAlertsUntilQuiet: false } });
    h.start('claude');
    h.busy();
    h.advance(SETTLE_MS);
    h.busy();
    expect(h.view().ringing).toBe(true);
  });

  it('a user verb clearing a watching ring resets the detector so its tail cannot settle again', () => {
    const h = createHarness();
    h.start('claude');
    h.busy();
    h.advance(SETTLE_MS);
    h.engine.verb(h.sessionId, 'dismiss');
    h.output();
    h.advance(SETTLE_MS * 2);
    expect(h.view().ringing).toBe(false);
  });
});

describe('deferral (deferAlertsUntilQuiet)', () => {
  it('defers a report while the detector is fully armed, then rings once it is quiet', () => {
    const h = createHarness({ watchRules: [] });
    h.start('cargo build');
    h.busy();
    h.bell();
    expect(h.view().ringing).toBe(false);
    h.advance(SETTLE_MS);
    expect(h.view()).toMatchObject({ ringing: true, notification: { source: 'bell' } });
  });

  it('meaningful output moves the quiet deadline, and the ceiling rings it anyway', () => {
    const h = createHarness({ watchRules: [] });
    h.start('cargo build');
    h.busy();
    h.bell();
    for (let t = 0; t < ALERT_TIMING.deferCeiling - 1000; t += 1000) {
      h.advance(1000);
      h.output();
    }
    expect(h.view().ringing).toBe(false);
    h.advance(1000);
    expect(h.view().ringing).toBe(true);
  });

  it('a replacement keeps the first deferral start and the richest detail', () => {
    const h = createHarness({ watchRules: [] });
    h.start('cargo build');
    h.busy();
    h.event({ type: 'progress', state: 'normal', value: 100 });
    h.advance(1000);
    h.bell();
    h.advance(SETTLE_MS);
    expect(h.view()).toMatchObject({ ringing: true, notification: { source: 'progress' } });
  });

  for (const [name, event] of [
    ['OSC 9', { type: 'notify', source: 'osc9', title: '', body: 'Claude needs you' }],
    ['OSC 777', { type: 'notify', source: 'osc777', title: 'Codex', body: 'Approve?' }],
    ['OSC 99', { type: 'notify', source: 'osc99', title: 'Ask', body: '', id: 'q' }],
  ] as const) {
    it(`never defers an explicit ${name} request: it rings at once, folding a deferred bell in (issue 13)`, () => {
      const h = createHarness({ watchRules: [] });
      h.start('claude');
      h.busy(); // an animating TUI: the detector fully armed
      h.bell(); // deferred
      expect(h.view().ringing).toBe(false);
      h.event(event);
      expect(h.view()).toMatchObject({ ringing: true, notification: { source: event.source } });
      const episode = h.view().episodeId;
      h.engine.verb(h.sessionId, 'dismiss');
      for (let i = 0; i < 40; i++) {
        h.advance(1000);
        h.output();
      }
      h.advance(ALERT_TIMING.deferCeiling);
      // The bell went with the request: nothing rings again after the dismiss.
      expect(h.view().ringing).toBe(false);
      expect(
        h.effects
          .filter((e) => e.type === 'state' && e.view.ringing)
          .map((e) => e.type === 'state' && e.view.episodeId),
      ).toEqual(expect.arrayContaining([episode]));
      expect(
        new Set(h.effects.flatMap((e) => (e.type === 'state' && e.view.ringing ? [e.view.episodeId] : []))),
      ).toEqual(new Set([episode]));
    });
  }

  it('never defers MIGHT_BE_BUSY', () => {
    const h = createHarness();
    h.start('claude');
    h.output();
    h.advance(ALERT_TIMING.busyCandidateGap);
    h.output();
    h.bell();
    expect(h.view().ringing).toBe(true);
  });

  it('never defers a command-finish ring, and folds a pending report into it', () => {
    const h = createHarness({ watchRules: [] });
    h.look();
    h.start('make');
    h.leave();
    h.busy();
    h.event({ type: 'progress', state: 'error', value: 40 });
    expect(h.view().ringing).toBe(false);
    h.finish(0);
    // One ring for both, with the richer detail (COMMAND_EXIT outranks a progress end).
    expect(h.view()).toMatchObject({ ringing: true, notification: { source: 'exit' } });
    h.advance(SETTLE_MS * 10);
    expect(
      h.effects.filter(
        (e) => e.type === 'state' && e.view.ringing && e.view.episodeId !== h.view().episodeId,
      ),
    ).toEqual([]);
  });

  it('disabling the setting releases a deferral immediately', () => {
    const h = createHarness();
    h.busy();
    h.bell();
    h.engine.updateSettings({ deferAlertsUntilQuiet: false });
    expect(h.view().ringing).toBe(true);
  });

  it('an acknowledgement or a TODO change cancels a deferral; a dismiss on a quiet session keeps it', () => {
    const a = createHarness();
    a.busy();
    a.bell();
    a.engine.verb(a.sessionId, 'acknowledge');
    a.advance(SETTLE_MS);
    expect(a.view()).toMatchObject({ ringing: false, todo: false });
    const b = createHarness();
    b.busy();
    b.bell();
    b.engine.verb(b.sessionId, 'todo-on');
    b.advance(SETTLE_MS);
    expect(b.view().ringing).toBe(false);
    const c = createHarness();
    c.busy();
    c.bell();
    c.engine.verb(c.sessionId, 'dismiss');
    c.advance(SETTLE_MS);
    expect(c.view().ringing).toBe(true);
  });

  it('a deferral coming due while engaged is held, and never deferred again on escalation', () => {
    const h = createHarness({ settings: { inactivityTimeoutMs: 10_000 } });
    h.busy();
    h.bell();
    h.look();
    h.advance(SETTLE_MS);
    expect(h.view().ringing).toBe(false); // came due while engaged: held
    h.busy(); // the detector is fully armed again when presence lapses
    for (let i = 0; i < 3; i++) {
      h.advance(1000);
      h.output();
    }
    expect(h.view()).toMatchObject({
      ringing: true,
      status: 'ALERT_RINGING',
      notification: { source: 'bell' },
    });
  });
});
