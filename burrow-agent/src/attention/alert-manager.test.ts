import { describe, expect, it } from 'vitest';
import { createHarness } from './harness.js';
import { DEFAULT_ALERT_SETTINGS } from './settings.js';
import { SETTLE_MS } from './timing.js';

/** A watched `claude` that worked, then went quiet while nobody looked: a watching ring. */
function watchingRing(h = createHarness()) {
  h.start('claude');
  h.busy();
  h.advance(SETTLE_MS);
  return h;
}

describe('episodes', () => {
  it('a second source joining mid-episode keeps the episode id', () => {
    const h = watchingRing();
    const first = h.view();
    expect(first.status).toBe('ALERT_RINGING');
    h.advance(100);
    h.notify('Claude needs your permission');
    expect(h.view().episodeId).toBe(first.episodeId);
    expect(h.view().ringingSince).toBe(first.ringingSince);
  });

  it('re-latching after the ring clears starts a new episode', () => {
    const h = createHarness();
    h.bell();
    const first = h.view().episodeId;
    h.engine.verb(h.sessionId, 'dismiss');
    expect(h.view().ringing).toBe(false);
    h.output(); // output forgets the acknowledgement
    h.bell();
    expect(h.view().ringing).toBe(true);
    expect(h.view().episodeId).not.toBe(first);
  });
});

describe('public status projection', () => {
  it('is WATCHING_DISABLED with nothing running and no rule', () => {
    expect(createHarness().view().status).toBe('WATCHING_DISABLED');
  });

  it('shows the detector state only while a rule covers the foreground command', () => {
    const h = createHarness();
    h.start('claude');
    expect(h.view().status).toBe('NOTHING_TO_SHOW');
    h.busy();
    expect(h.view().status).toBe('BUSY');
    h.engine.setWatchRules([]);
    expect(h.view().status).toBe('WATCHING_DISABLED');
  });

  it('puts a progress cycle above the detector and the ring above both', () => {
    const h = createHarness();
    h.start('claude');
    h.event({ type: 'progress', state: 'normal', value: 40 });
    expect(h.view().status).toBe('OSC_NOTIF_BUSY');
    h.notify('done?');
    expect(h.view().status).toBe('ALERT_RINGING');
  });

  it('never reorders the detector above command-exit arming: a watched seen command shows the detector', () => {
    const h = createHarness();
    h.look();
    h.start('claude');
    h.leave();
    expect(h.view().status).toBe('NOTHING_TO_SHOW');
    h.engine.setWatchRules([]);
    expect(h.view().status).toBe('COMMAND_EXIT_ARMED');
  });
});

describe('detail and TODO', () => {
  for (const [name, raise] of [
    ['report', (h: ReturnType<typeof createHarness>) => h.notify('build done')],
    ['watching', (h: ReturnType<typeof createHarness>) => watchingRing(h)],
    [
      'exit',
      (h: ReturnType<typeof createHarness>) => {
        h.look();
        h.start('make test');
        h.leave();
        h.finish(1);
      },
    ],
  ] as const) {
    it(`a ${name} ring shows its own detail and never sets TODO`, () => {
      const h = createHarness();
      raise(h);
      const v = h.view();
      expect(v.ringing).toBe(true);
      expect(v.todo).toBe(false);
      expect(v.notification?.source).toBe(name === 'report' ? 'osc9' : name);
    });

    it(`acknowledging without input, dismissing, or toggling TODO on a ${name} ring leaves a TODO with its detail`, () => {
      for (const verb of ['acknowledge', 'dismiss', 'todo-toggle'] as const) {
        const h = createHarness();
        raise(h);
        const detail = h.view().notification;
        h.engine.verb(h.sessionId, verb);
        expect(h.view()).toMatchObject({ ringing: false, todo: true, notification: detail });
      }
    });

    it(`persists an unacknowledged ${name} ring as the TODO a look would leave`, () => {
      const h = createHarness();
      raise(h);
      // Its push went out (or was consumed): what persists is the TODO (issue 23: only a push still owed
      // brings a ring back).
      h.advance(DEFAULT_ALERT_SETTINGS.pushDelayMs);
      const detail = h.view().notification;
      expect(h.engine.serialize(h.sessionId)).toEqual({
        todo: true,
        notification: detail,
        status: 'ALERT_RINGING',
      });
    });

    it(`persists an unacknowledged ${name} ring whose push is still due as owed (issue 23)`, () => {
      const h = createHarness();
      raise(h);
      expect(h.engine.serialize(h.sessionId)).toMatchObject({ todo: true, owed: true });
    });
  }

  it('acknowledging with input clears the ring and drops TODO and its notification, even if already off', () => {
    const h = createHarness();
    h.notify('hello');
    h.engine.onInput(h.sessionId, 'user');
    expect(h.view()).toMatchObject({ ringing: false, todo: false, notification: null });
    h.engine.verb(h.sessionId, 'todo-on');
    h.engine.onInput(h.sessionId, 'user');
    expect(h.view()).toMatchObject({ todo: false, notification: null });
  });

  it('clear TODO (the pill) drops TODO and its notification', () => {
    const h = createHarness();
    h.notify('hello');
    h.engine.verb(h.sessionId, 'acknowledge');
    h.engine.verb(h.sessionId, 'clear-todo');
    expect(h.view()).toMatchObject({ todo: false, notification: null });
  });

  it('toggling TODO off drops the notification; on keeps the detail', () => {
    const h = createHarness();
    h.notify('hello');
    h.engine.verb(h.sessionId, 'todo-toggle');
    expect(h.view().todo).toBe(true);
    h.engine.verb(h.sessionId, 'todo-toggle');
    expect(h.view()).toMatchObject({ todo: false, notification: null });
  });

  it('dismiss with nothing ringing changes nothing', () => {
    const h = createHarness();
    const before = h.view();
    expect(h.engine.verb(h.sessionId, 'dismiss')).toEqual([]);
    expect(h.view()).toEqual(before);
  });

  it('detail joining a ring replaces it only at an equal or higher rank', () => {
    const h = createHarness();
    h.bell();
    expect(h.view().notification?.source).toBe('bell');
    h.notify('Claude is waiting');
    expect(h.view().notification).toEqual({ source: 'osc9', title: null, body: 'Claude is waiting' });
    h.bell(); // a bell is poorer than a text report
    expect(h.view().notification?.body).toBe('Claude is waiting');
    h.event({ type: 'notify', source: 'osc777', title: 'claude', body: 'second' });
    expect(h.view().notification?.body).toBe('second'); // equal rank replaces
  });

  it('rejects an unknown verb with a TypeError', () => {
    const h = createHarness();
    expect(() => h.engine.verb(h.sessionId, 'snooze' as never)).toThrow(TypeError);
  });
});

describe('never summon twice for an acknowledged state', () => {
  for (const verb of ['acknowledge', 'acknowledge-with-input', 'dismiss', 'todo-toggle'] as const) {
    it(`a report about a state acknowledged by ${verb} updates the TODO without summoning again`, () => {
      const h = createHarness();
      h.notify('Claude needs your permission');
      h.engine.verb(h.sessionId, verb);
      h.notify('Claude needs your permission');
      expect(h.view()).toMatchObject({ ringing: false, todo: true });
      expect(h.view().notification?.body).toBe('Claude needs your permission');
    });
  }

  it('rings a report again once a command starts after the acknowledgement', () => {
    const h = createHarness();
    h.notify('first');
    h.engine.verb(h.sessionId, 'acknowledge');
    h.start('claude');
    h.notify('second');
    expect(h.view().ringing).toBe(true);
  });

  it('settles and exits ring as usual after an acknowledgement', () => {
    const h = createHarness();
    h.notify('first');
    h.engine.verb(h.sessionId, 'dismiss');
    h.look();
    h.start('make');
    h.leave();
    h.finish(0);
    expect(h.view().ringing).toBe(true);
  });
});

describe('command boundaries', () => {
  for (const [name, boundary] of [
    ['commandStart', { type: 'command-start', commandLine: null }],
    ['commandFinish', { type: 'command-end', exitCode: 0 }],
    ['promptStart', { type: 'prompt-start' }],
    ['promptEnd', { type: 'command-input-start' }],
  ] as const) {
    it(`resets unwatched output history on ${name} without a command watch`, () => {
      const h = createHarness();
      h.busy(); // no command, no rule: the detector still runs, fully armed
      h.event(boundary);
      // Against an armed detector this bell would be deferred; against the reset one it rings now.
      h.bell();
      expect(h.view().ringing).toBe(true);
    });
  }

  it('defers a bell while the unwatched detector is still armed (the control for the boundary tests)', () => {
    const h = createHarness();
    h.busy();
    h.bell();
    expect(h.view().ringing).toBe(false);
  });

  it('resets unwatched output history on PTY exit without a command watch', () => {
    const h = createHarness();
    h.busy();
    h.engine.sessionExited(h.sessionId, 0);
    h.bell();
    expect(h.view().ringing).toBe(true);
  });

  it('judges a notification written after a command finish against the reset detector', () => {
    const h = createHarness();
    h.start('claude');
    h.busy(); // detector fully armed: a bell now would be deferred
    h.event({ type: 'command-end', exitCode: 0 });
    h.bell();
    expect(h.view().ringing).toBe(true);
  });
});

describe('OSC 99 p=close (issue 13)', () => {
  const ask = { type: 'notify', source: 'osc99', title: 'Allow Bash?', body: '', id: 'perm' } as const;
  const close = { type: 'notify-close', source: 'osc99', id: 'perm' } as const;

  it('withdraws the ring a withdrawn notification raised, leaving no TODO and sending no push', () => {
    const h = createHarness({ settings: { pushDelayMs: 5_000 } });
    h.event(ask);
    expect(h.view().ringing).toBe(true);
    h.event(close);
    expect(h.view()).toMatchObject({ ringing: false, todo: false });
    h.advance(10_000);
    expect(h.pushes()).toEqual([]);
  });

  it('keeps the report source while another report (another id, or one without an id) raised it too', () => {
    const h = createHarness();
    h.event(ask);
    h.event({ ...ask, id: 'other' });
    h.event(close);
    expect(h.view().ringing).toBe(true);
    h.event({ ...close, id: 'other' });
    expect(h.view().ringing).toBe(false);
    const g = createHarness();
    g.event(ask);
    g.notify('and an OSC 9');
    g.event(close);
    expect(g.view().ringing).toBe(true);
    // A bell beside the request is part of it: it does not keep the ring once the request is withdrawn.
    const b = createHarness();
    b.bell();
    b.event(ask);
    b.bell();
    b.event(close);
    expect(b.view().ringing).toBe(false);
  });

  it('withdraws only the report source: an exit that joined keeps ringing', () => {
    const h = createHarness();
    h.look();
    h.start('make');
    h.leave();
    h.event(ask);
    h.finish(1);
    h.event(close);
    expect(h.view()).toMatchObject({ ringing: true });
    h.engine.verb(h.sessionId, 'dismiss');
    expect(h.view().todo).toBe(true);
  });

  it('drops a held report it withdrew, so a detach leaves no TODO for it; other ids are unaffected', () => {
    const h = createHarness();
    h.look();
    h.event(ask);
    h.event(close);
    h.engine.viewerGone('phone');
    expect(h.view()).toMatchObject({ ringing: false, todo: false });
    h.event({ ...close, id: 'never-sent' });
    expect(h.view().ringing).toBe(false);
  });
});

describe('bells beside a text notification (positional, issue 13)', () => {
  it('drops a bell with no printable output between it and a text report in the batch', () => {
    const h = createHarness();
    h.engine.onTerminalEvents(h.sessionId, [
      { type: 'bell' },
      { type: 'notify', source: 'osc9', title: '', body: 'x' },
    ]);
    h.engine.verb(h.sessionId, 'dismiss');
    // After the dismiss: "more output", then a bell in the same read is a new summons.
    h.effects.push(
      ...h.engine.onTerminalEvents(h.sessionId, [
        { type: 'notify', source: 'osc9', title: '', body: 'again' },
        { type: 'output', bytes: 12 },
        { type: 'bell' },
      ]),
    );
    expect(h.view()).toMatchObject({ ringing: true });
  });

  it('a report after printable output in one read rings after a dismiss (the issue 13 repro)', () => {
    const h = createHarness();
    h.bell();
    h.engine.verb(h.sessionId, 'dismiss');
    h.effects.push(
      ...h.engine.onTerminalEvents(h.sessionId, [
        { type: 'output', bytes: 13 },
        { type: 'notify', source: 'osc9', title: '', body: 'Second report' },
      ]),
    );
    expect(h.view()).toMatchObject({ ringing: true, notification: { body: 'Second report' } });
  });
});

describe('terminal reports', () => {
  it('keeps a bell that shares its batch with a progress event', () => {
    const h = createHarness();
    h.engine.onTerminalEvents(h.sessionId, [
      { type: 'progress', state: 'normal', value: 30 },
      { type: 'bell' },
    ]);
    expect(h.view().notification?.source).toBe('bell');
  });

  it('drops a generic bell that shares its batch with a text-bearing notification', () => {
    const h = createHarness();
    h.engine.onTerminalEvents(h.sessionId, [
      { type: 'bell' },
      { type: 'notify', source: 'osc777', title: 'claude', body: 'waiting' },
    ]);
    expect(h.view().notification?.source).toBe('osc777');
  });

  it('collapses several bells in one batch to one notification', () => {
    const h = createHarness();
    h.engine.onTerminalEvents(h.sessionId, [{ type: 'bell' }, { type: 'bell' }, { type: 'bell' }]);
    expect(h.view().ringing).toBe(true);
    expect(h.engine.serialize(h.sessionId)?.notification?.source).toBe('bell');
  });

  it('ignores an empty sanitized notification', () => {
    const h = createHarness();
    h.event({ type: 'notify', source: 'osc9', title: '', body: '   ' });
    expect(h.view().ringing).toBe(false);
  });

  it('an OSC 9 message becomes the body with a null title', () => {
    const h = createHarness();
    h.notify('hi');
    expect(h.view().notification).toEqual({ source: 'osc9', title: null, body: 'hi' });
  });
});

describe('OSC 9;4 progress cycles', () => {
  it('starts or updates a cycle without TODO and never rings from silence', () => {
    const h = createHarness();
    h.event({ type: 'progress', state: 'indeterminate', value: null });
    h.event({ type: 'progress', state: 'normal', value: 50 });
    h.advance(60_000);
    expect(h.view()).toMatchObject({ status: 'OSC_NOTIF_BUSY', ringing: false, todo: false });
  });

  it('state=1 progress=100 ends the cycle as a report completion', () => {
    const h = createHarness();
    h.event({ type: 'progress', state: 'normal', value: 20 });
    h.event({ type: 'progress', state: 'normal', value: 100 });
    expect(h.view().ringing).toBe(true);
    expect(h.view().notification).toEqual({
      source: 'progress',
      title: 'Task finished',
      body: 'Progress 100%',
    });
  });

  it('state=2 ends the cycle as a report error', () => {
    const h = createHarness();
    h.event({ type: 'progress', state: 'error', value: 70 });
    expect(h.view().notification).toEqual({ source: 'progress', title: 'Task failed', body: 'Progress 70%' });
  });

  it('clear is a completion only if a cycle was active', () => {
    const h = createHarness();
    h.event({ type: 'progress', state: 'clear', value: null });
    expect(h.view().ringing).toBe(false);
    h.event({ type: 'progress', state: 'normal', value: 60 });
    h.event({ type: 'progress', state: 'clear', value: null });
    expect(h.view().ringing).toBe(true);
  });

  it('completing a warning cycle is a completion with the warning title', () => {
    const h = createHarness();
    h.event({ type: 'progress', state: 'paused', value: 80 });
    h.event({ type: 'progress', state: 'clear', value: null });
    expect(h.view().notification?.title).toBe('Task finished with warnings');
  });

  it('ignores an invalid state and an out-of-range percent (the parser clamps; this is the engine guard)', () => {
    const h = createHarness();
    h.event({ type: 'progress', state: 'normal', value: 101 });
    h.event({ type: 'progress', state: 'normal', value: -1 });
    h.event({ type: 'progress', state: 'bogus' as never, value: 5 });
    expect(h.view().status).toBe('WATCHING_DISABLED');
  });

  it('starts a cycle on 1 or 4 without a percent, which a clear then completes (issue 13)', () => {
    for (const state of ['normal', 'paused'] as const) {
      const h = createHarness();
      h.event({ type: 'progress', state, value: null });
      expect(h.view().status).toBe('OSC_NOTIF_BUSY');
      h.event({ type: 'progress', state: 'clear', value: null });
      expect(h.view().ringing).toBe(true);
      expect(h.view().notification).toMatchObject({ source: 'progress', body: null });
    }
  });

  it('silently ends a progress cycle the program abandoned', () => {
    for (const boundary of [
      { type: 'command-start', commandLine: 'ls' },
      { type: 'command-end', exitCode: 0 },
      { type: 'prompt-start' },
    ] as const) {
      const h = createHarness();
      h.event({ type: 'progress', state: 'normal', value: 10 });
      h.event(boundary);
      expect(h.view().status).not.toBe('OSC_NOTIF_BUSY');
      expect(h.view().ringing).toBe(false);
    }
    const h = createHarness();
    h.event({ type: 'progress', state: 'normal', value: 10 });
    h.engine.sessionExited(h.sessionId, 0);
    expect(h.view()).toMatchObject({ ringing: false, status: 'WATCHING_DISABLED' });
  });

  for (const [state, value, title] of [
    ['normal', 100, 'pnpm build finished'],
    ['error', null, 'pnpm build failed'],
  ] as const) {
    it(`names the running command in a progress ${state} title`, () => {
      const h = createHarness();
      h.start('pnpm run build');
      h.event({ type: 'progress', state, value });
      expect(h.view().notification?.title).toBe(title);
    });
  }

  it('a completion while engaged ends the cycle and holds the report', () => {
    const h = createHarness();
    h.look();
    h.event({ type: 'progress', state: 'normal', value: 10 });
    h.event({ type: 'progress', state: 'normal', value: 100 });
    expect(h.view()).toMatchObject({ ringing: false, status: 'WATCHING_DISABLED' });
  });

  it('the ring never touches the cycle: a report leaves the cycle running', () => {
    const h = createHarness();
    h.event({ type: 'progress', state: 'normal', value: 10 });
    h.notify('hello');
    h.engine.verb(h.sessionId, 'dismiss');
    expect(h.view().status).toBe('OSC_NOTIF_BUSY');
  });
});

describe('command-exit track', () => {
  it('a short seen command rings on finish when the session is not engaged, whatever its duration', () => {
    const h = createHarness();
    h.look();
    h.start('npm test');
    h.leave();
    expect(h.view().status).toBe('COMMAND_EXIT_ARMED');
    h.finish(1);
    expect(h.view().notification).toEqual({
      source: 'exit',
      title: 'Command finished',
      body: 'npm test (exit 1)',
    });
  });

  it('an unseen command finishing never rings', () => {
    const h = createHarness();
    h.start('make');
    h.finish(0);
    expect(h.view().ringing).toBe(false);
  });

  it('marks a command seen when the session becomes engaged or is acknowledged while it runs', () => {
    const a = createHarness();
    a.start('make');
    a.look();
    a.leave();
    a.finish(0);
    expect(a.view().ringing).toBe(true);
    const b = createHarness();
    b.start('make');
    b.engine.verb(b.sessionId, 'acknowledge');
    b.finish(0);
    expect(b.view().ringing).toBe(true);
  });

  it('holds the exit of an engaged session', () => {
    const h = createHarness();
    h.look();
    h.start('make');
    h.finish(0);
    expect(h.view().ringing).toBe(false);
  });

  it('rings when the PTY exits before a finish event', () => {
    const h = createHarness();
    h.look();
    h.start('make');
    h.leave();
    h.engine.sessionExited(h.sessionId, 137);
    expect(h.view().notification?.body).toBe('make (exit 137)');
    expect(h.view().exited).toBe(true);
  });

  it('a different command start clears the watch without ringing', () => {
    const h = createHarness();
    h.look();
    h.start('make');
    h.leave();
    h.start('ls');
    expect(h.view()).toMatchObject({ ringing: false, command: 'ls', status: 'WATCHING_DISABLED' });
  });

  it('session destruction clears the watch and everything else without ringing', () => {
    const h = createHarness();
    h.look();
    h.start('make');
    h.leave();
    h.engine.sessionRemoved(h.sessionId);
    expect(h.engine.view(h.sessionId)).toBeNull();
    expect(h.engine.onTerminalEvent(h.sessionId, { type: 'bell' })).toEqual([]);
  });
});

describe('persistence', () => {
  it("restores a pane's persisted TODO through its spawn, never re-ringing", () => {
    const h = createHarness();
    h.notify('remember me');
    h.advance(DEFAULT_ALERT_SETTINGS.pushDelayMs); // its push went out
    const saved = h.engine.serialize(h.sessionId);
    const g = createHarness();
    g.engine.sessionSpawned(g.sessionId, JSON.parse(JSON.stringify(saved)));
    expect(g.view()).toMatchObject({ ringing: false, todo: true, status: 'WATCHING_DISABLED' });
    expect(g.view().notification?.body).toBe('remember me');
    g.advance(60_000);
    expect(g.view().ringing).toBe(false);
  });

  it('restores a ring still owed its push as a ring, a new episode whose push goes out (issue 23)', () => {
    const h = createHarness();
    h.notify('owed');
    const saved = JSON.parse(JSON.stringify(h.engine.serialize(h.sessionId)));
    const g = createHarness();
    g.engine.sessionSpawned(g.sessionId, saved);
    expect(g.view()).toMatchObject({ ringing: true, todo: false, notification: { body: 'owed' } });
    g.advance(DEFAULT_ALERT_SETTINGS.pushDelayMs);
    expect(g.effects.filter((e) => e.type === 'push-due')).toHaveLength(1);
    // A restored owed ring serializes again as owed only until its push went.
    expect(g.engine.serialize(g.sessionId)).not.toHaveProperty('owed');
  });

  it('keeps a pane whose notification this build cannot read, seeding its TODO without the detail', () => {
    const h = createHarness();
    h.engine.sessionSpawned(h.sessionId, { todo: true, notification: { source: 'speech', title: 'x' } });
    expect(h.view()).toMatchObject({ todo: true, notification: null });
  });

  it('every spawn starts the id alert state over', () => {
    const h = createHarness();
    h.notify('old');
    h.engine.sessionSpawned(h.sessionId);
    expect(h.view()).toMatchObject({ ringing: false, todo: false, notification: null });
  });
});
