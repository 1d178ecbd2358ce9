/**
 * Issue 23: what coding agents already say, read by the engine — OSC 7501 reports with a kind, kitty's and
 * OSC 7501's capability queries answered, Gemini's titles as signals, every ring asking the screen for words,
 * a turn end that comes right after a detach still ringing, and one ring per phase.
 */
import { describe, expect, it } from 'vitest';
import type { TerminalEvent } from '../terminal/events.js';
import type { AttentionEffect } from './engine.js';
import { createHarness, type Harness } from './harness.js';
import { ALERT_TIMING, SETTLE_MS } from './timing.js';

type Status = Extract<TerminalEvent, { type: 'program-status' }>;
const status = (over: Partial<Status>): Status => ({
  type: 'program-status',
  state: 'blocked',
  id: '',
  kind: null,
  app: null,
  progress: null,
  title: '',
  msg: '',
  ...over,
});

const writes = (effects: readonly AttentionEffect[]) =>
  effects.filter((e) => e.type === 'pty-write').map((e) => (e as { data: string }).data);
const contextAsks = (h: Harness) => h.effects.filter((e) => e.type === 'context-wanted');

/** A harness whose foreground command is `commandLine` (a shell-integration command start). */
function running(commandLine: string): Harness {
  const h = createHarness();
  h.start(commandLine);
  return h;
}

describe('OSC 7501 program status (issue 23)', () => {
  it('rings at once for blocked, titled by its kind and app, and drops the bell beside it', () => {
    const h = running('codex');
    h.event({ type: 'bell' });
    h.busy(); // an animating TUI: a bare bell would be deferred, an explicit report is not
    const events: TerminalEvent[] = [
      { type: 'bell' },
      status({ state: 'blocked', kind: 'permission', app: 'codex' }),
    ];
    h.effects.length = 0;
    h.effects.push(...h.engine.onTerminalEvents(h.sessionId, events));
    expect(h.view()).toMatchObject({
      ringing: true,
      notification: {
        source: 'osc7501',
        title: 'codex needs your permission',
        body: null,
        kind: 'permission',
      },
    });
    // Its detail has no words of its own: the screen is asked once for this detail.
    expect(contextAsks(h)).toHaveLength(1);
  });

  it('uses the message and a title of its own, and generates one per kind without an app', () => {
    const h = running('deploy');
    h.event(status({ kind: 'question', msg: 'Which branch?' }));
    expect(h.view().notification).toMatchObject({ title: 'Question for you', body: 'Which branch?' });
    const g = running('deploy');
    g.event(status({ kind: 'auth', title: 'Sign in to Codex' }));
    expect(g.view().notification).toMatchObject({ title: 'Sign in to Codex', kind: 'auth' });
    const e = running('deploy');
    e.event(status({ state: 'error', app: 'cargo', msg: 'tests failed' }));
    expect(e.view().notification).toMatchObject({
      title: 'cargo failed',
      body: 'tests failed',
      kind: 'error',
    });
  });

  it('withdraws a blocked ring when the program reports working, idle or clear (answered elsewhere)', () => {
    for (const next of [
      status({ state: 'working' }),
      status({ state: 'idle' }),
      status({ state: 'clear' }),
      status({ state: 'clear', id: '' }),
    ]) {
      const h = running('codex');
      h.event(status({ kind: 'permission' }));
      expect(h.view().ringing).toBe(true);
      h.event(next);
      expect(h.view(), next.state).toMatchObject({ ringing: false, todo: false });
    }
    // Another record's report is untouched, a descendant is cleared with its parent.
    const h = running('codex');
    h.event(status({ id: 'a/b', kind: 'question' }));
    h.event(status({ state: 'working', id: 'a' }));
    expect(h.view().ringing).toBe(true);
    h.event(status({ state: 'clear', id: 'a' }));
    expect(h.view().ringing).toBe(false);
  });

  it('one ring per phase: the turn end joins an open ring, later text replaces its detail', () => {
    const h = running('codex');
    h.event(status({ kind: 'permission', app: 'codex' }));
    const episode = h.view().episodeId;
    h.event(status({ state: 'done', app: 'codex', msg: 'Created approved.txt' }));
    expect(h.view()).toMatchObject({ episodeId: episode, notification: { title: 'codex finished' } });
    h.advance(ALERT_TIMING.deferCeiling);
    expect(h.pushes()).toHaveLength(1);
  });

  it('the answer clears the prompt ring, and the turn end rings again even inside the echo window', () => {
    const h = running('codex');
    h.event(status({ kind: 'permission', app: 'codex' }));
    h.engine.onInput(h.sessionId, 'user'); // the answer, typed from a phone nobody looks at
    expect(h.view()).toMatchObject({ ringing: false, todo: false });
    h.advance(200);
    h.event(status({ state: 'working', app: 'codex' }));
    h.output(); // inside the echo window
    h.advance(300);
    h.event(status({ state: 'done', app: 'codex' }));
    expect(h.view()).toMatchObject({ ringing: true, notification: { kind: 'done' } });
  });

  it('a bell inside the echo window still does not ring (the spec keeps that for inferred signals)', () => {
    const h = running('vim');
    h.engine.onInput(h.sessionId, 'user');
    h.bell();
    expect(h.view().ringing).toBe(false);
  });
});

describe('capability queries (issue 23)', () => {
  it("answers kitty's OSC 99 p=? and OSC 7501's ? on the PTY, whatever the engagement", () => {
    const h = createHarness();
    h.look();
    const out = h.event({ type: 'capability-query', protocol: 'osc99', id: 'oc1' });
    expect(writes(out)).toEqual(['\x1b]99;i=oc1:p=?;p=title,body,?,close:o=always\x1b\\']);
    expect(writes(h.event({ type: 'capability-query', protocol: 'osc7501', id: '' }))).toEqual([
      '\x1b]7501;?\x1b\\',
    ]);
    expect(h.view().ringing).toBe(false);
  });
});

describe("Gemini CLI's titles as signals (issue 23)", () => {
  const title = (h: Harness, t: string) => h.event({ type: 'title', which: 'both', title: t });

  it('rings on ✋ Action Required, withdraws when it works on, and rings the turn end on ◇ Ready', () => {
    const h = running('gemini');
    title(h, '◇ Ready (work)'); // at start: no turn has ended
    expect(h.view().ringing).toBe(false);
    title(h, '✦ Working… (work)');
    title(h, '✋ Action Required (work)');
    expect(h.view()).toMatchObject({
      ringing: true,
      notification: { source: 'title', title: '✋ Action Required (work)', kind: 'blocked' },
    });
    title(h, '✋ Action Required (work)'); // the same phase again: nothing new
    expect(contextAsks(h)).toHaveLength(1);
    title(h, '✦ Working… (work)'); // answered at the computer
    expect(h.view().ringing).toBe(false);
    title(h, '◇ Ready (work)');
    expect(h.view()).toMatchObject({ ringing: true, notification: { source: 'title', kind: 'done' } });
  });

  it('reads titles only for the agent documented to use them', () => {
    const h = running('vim');
    h.event({ type: 'title', which: 'both', title: '✋ Action Required (x)' });
    expect(h.view().ringing).toBe(false);
    const icon = running('gemini');
    icon.event({ type: 'title', which: 'icon', title: '✋ Action Required (x)' });
    expect(icon.view().ringing).toBe(false);
  });
});

describe('every ring says something useful (issue 23)', () => {
  it('asks the screen once per detail for a bell, a settle and an exit; never for a report with a body', () => {
    const h = running('claude');
    h.bell();
    expect(contextAsks(h)).toHaveLength(1);
    const episode = h.view().episodeId!;
    h.effects.push(...h.engine.ringContext(h.sessionId, episode, 'Do you want to proceed?'));
    expect(h.view().notification).toMatchObject({ source: 'bell', context: 'Do you want to proceed?' });
    expect(contextAsks(h)).toHaveLength(1);
    const r = running('make');
    r.notify('Build failed: 3 errors');
    expect(contextAsks(r)).toHaveLength(0);
  });

  it('ignores what the screen said for an episode that is over; a replaced detail asks again', () => {
    const h = running('claude');
    h.bell();
    const first = h.view().episodeId!;
    h.engine.onInput(h.sessionId, 'user');
    h.advance(2_000);
    h.bell();
    h.engine.ringContext(h.sessionId, first, 'stale');
    expect(h.view().notification?.context).toBeUndefined();
    const g = running('claude');
    g.bell();
    const ep = g.view().episodeId!;
    g.event(status({ state: 'done' })); // a richer detail replaces the bell's before the screen answers
    expect(contextAsks(g)).toHaveLength(2);
    // Reads for one episode come back in order (the host reads the screen one request at a time): the last
    // one describes the detail that is showing.
    g.engine.ringContext(g.sessionId, ep, 'for the bell');
    g.engine.ringContext(g.sessionId, ep, 'for the turn end');
    expect(g.view().notification).toMatchObject({ source: 'osc7501', context: 'for the turn end' });
  });

  it('bounds and trims what it keeps', () => {
    const h = running('claude');
    h.bell();
    h.engine.ringContext(h.sessionId, h.view().episodeId!, `  ${'x'.repeat(500)}  `);
    expect(h.view().notification?.context).toHaveLength(200);
    expect(() => h.engine.ringContext(h.sessionId, 1, 5 as unknown as string)).toThrow(TypeError);
  });
});

describe('turn ends are not missed (issue 23)', () => {
  it('a watched command producing output when the last viewer left settles into a ring', () => {
    const h = running('claude');
    h.look();
    h.engine.onInput(h.sessionId, 'user'); // the prompt, typed
    h.advance(100);
    h.output(); // echo and the first of the answer, inside the echo window
    h.advance(300);
    h.leave(); // the phone goes away while the agent works
    h.output();
    h.advance(1_200);
    h.output(); // the turn ends ~1.6 s after the detach, never BUSY by output alone
    expect(h.view().ringing).toBe(false);
    h.advance(SETTLE_MS);
    expect(h.view()).toMatchObject({ ringing: true, notification: { source: 'watching' } });
  });

  it("a submitted line's answer is a turn: busy from its first output past the echo window, so it settles", () => {
    const h = running('claude');
    h.engine.onInput(h.sessionId, 'user', true); // Enter on a prompt sent from a phone nobody looks at
    h.output(); // its echo
    h.advance(1_500); // the model thinks in silence
    h.output(); // the answer: a permission prompt, drawn at once, then nothing
    expect(h.view().status).toBe('BUSY');
    h.advance(SETTLE_MS);
    expect(h.view()).toMatchObject({ ringing: true, notification: { source: 'watching' } });
  });

  it('an answer wholly inside the echo window is a turn too (an agent whose reply comes in 0.4 s)', () => {
    const h = running('claude');
    h.engine.onInput(h.sessionId, 'user', true);
    h.advance(150);
    h.output(); // the redrawn input box
    h.advance(200);
    h.output(); // the permission prompt, then nothing
    expect(h.view().status).toBe('BUSY');
    h.advance(SETTLE_MS - 1);
    expect(h.view().ringing).toBe(false);
    h.advance(1);
    expect(h.view()).toMatchObject({ ringing: true, notification: { source: 'watching' } });
  });

  it('keystrokes that end no line, or output long after the line, start nothing', () => {
    const h = running('claude');
    h.engine.onInput(h.sessionId, 'user'); // a character into the input box
    h.output(); // its echo
    h.advance(1_500);
    h.output(); // a redraw
    expect(h.view().status).toBe('NOTHING_TO_SHOW');
    const g = running('claude');
    g.engine.onInput(g.sessionId, 'user', true);
    g.advance(61_000);
    g.output();
    expect(g.view().status).toBe('NOTHING_TO_SHOW');
    g.advance(SETTLE_MS * 2);
    expect(g.view().ringing).toBe(false);
  });

  it('a quiet session left alone stays quiet', () => {
    const h = running('claude');
    h.look();
    h.output();
    h.advance(5_000);
    h.leave();
    h.advance(60_000);
    expect(h.view().ringing).toBe(false);
  });

  it('a user verb clearing any ring starts the detector over: its tail is the same phase', () => {
    const h = running('codex');
    h.busy();
    h.event(status({ state: 'done', app: 'codex' }));
    h.engine.verb(h.sessionId, 'dismiss');
    h.advance(SETTLE_MS);
    expect(h.view()).toMatchObject({ ringing: false, todo: true });
  });
});
