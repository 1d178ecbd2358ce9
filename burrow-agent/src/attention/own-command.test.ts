/**
 * Issue 13: a session started as `burrow new -- CMD` runs CMD as its foreground command from the spawn —
 * keyed and watched like a command typed into an integrated shell, its PTY exit a command exit, and awaits on
 * it answer with the exit code and command line.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { type AttentionEffect, AttentionEngine } from './engine.js';
import { SETTLE_MS } from './timing.js';

function ownSession(commandLine: string | null, options: { settings?: unknown } = {}) {
  const clock = new ManualClock(1_000_000);
  const engine = new AttentionEngine({ clock, settings: options.settings });
  const effects: AttentionEffect[] = [];
  const keep = (e: AttentionEffect[]) => {
    effects.push(...e);
    return e;
  };
  keep(engine.sessionSpawned('s', undefined, commandLine));
  const view = () => engine.view('s')!;
  const output = () => keep(engine.onTerminalEvent('s', { type: 'output', bytes: 40 }));
  const advance = (ms: number) => {
    clock.advance(ms);
    keep(engine.tick());
  };
  const busy = () => {
    for (let i = 0; i < 5; i++) {
      output();
      advance(500);
    }
    output();
  };
  const look = (viewer = 'attach') => {
    keep(engine.viewerPresence(viewer, { presence: 'present', focused: true, visible: true }));
    keep(engine.viewerLooking(viewer, 's'));
  };
  const park = (awaitId: string, until: 'quiet' | 'exit') =>
    keep(engine.awaitRequest('cli', 's', { awaitId, until, timeoutMs: 600_000 }));
  const results = () => effects.filter((e) => e.type === 'await-resolved');
  return { engine, clock, effects, view, output, advance, busy, look, park, results, keep };
}

describe("a session's own command (burrow new -- CMD)", () => {
  it('is the command and watch key from the spawn, keyed as a shell-integration command is', () => {
    const s = ownSession("sh -c 'for i in 1 2; do echo $i; done; exit 3'");
    // The script keys like a line typed into a shell (issue 23); started by its owner, its exit is armed.
    expect(s.view()).toMatchObject({
      command: "sh -c 'for i in 1 2; do echo $i; done; exit 3'",
      watchKey: 'exit',
      status: 'COMMAND_EXIT_ARMED',
    });
    expect(ownSession("bash -lc 'cd /src && claude --resume'").view().watchKey).toBe('claude');
    expect(ownSession('npx claude --resume').view().watchKey).toBe('claude');
    expect(ownSession(null).view()).toMatchObject({ command: null, watchKey: null });
    expect(() => ownSession(5 as unknown as string)).toThrow(TypeError);
  });

  it('is WATCHING under the default rules, and a settle rings', () => {
    const s = ownSession('claude');
    expect(s.view().status).toBe('NOTHING_TO_SHOW');
    s.busy();
    expect(s.view().status).toBe('BUSY');
    s.advance(SETTLE_MS);
    expect(s.view()).toMatchObject({ ringing: true, notification: { source: 'watching' } });
  });

  it('its PTY exit is a command exit: rings once seen, with the exit code, and a look leaves the TODO', () => {
    const s = ownSession('make test');
    s.look();
    s.keep(s.engine.viewerGone('attach'));
    expect(s.view().status).toBe('COMMAND_EXIT_ARMED');
    s.keep(s.engine.sessionExited('s', 2));
    expect(s.view()).toMatchObject({
      ringing: true,
      exited: true,
      command: null,
      notification: { source: 'exit', title: 'Command finished', body: 'make test (exit 2)' },
    });
    s.keep(s.engine.verb('s', 'acknowledge'));
    expect(s.view()).toMatchObject({ ringing: false, todo: true, notification: { source: 'exit' } });
  });

  it('is seen by the person who started it: its exit rings with nobody looking (issue 23)', () => {
    const s = ownSession('make test');
    expect(s.view().status).toBe('COMMAND_EXIT_ARMED');
    s.advance(20_000);
    s.keep(s.engine.sessionExited('s', 3));
    expect(s.view()).toMatchObject({
      ringing: true,
      notification: { source: 'exit', body: 'make test (exit 3)' },
    });
  });

  it('a signal death reads as 128 + n with the signal named (issue 23)', () => {
    const s = ownSession('sleep 100');
    s.keep(s.engine.sessionExited('s', 143, 'SIGTERM'));
    expect(s.view().notification).toMatchObject({ body: 'sleep 100 (exit 143, SIGTERM)' });
  });

  it('an exit claimed by an await does not ring, and answers it', () => {
    const s = ownSession('make');
    s.park('x', 'exit');
    s.advance(10_000); // no grace window: a command is running
    expect(s.results()).toEqual([]);
    s.keep(s.engine.sessionExited('s', 3));
    expect(s.view().ringing).toBe(false);
    expect(s.results()).toMatchObject([{ awaitId: 'x', cause: 'exit', exitCode: 3, command: 'make' }]);
  });

  it('--until quiet resolves exit at the latest when the command ends, never idle while it runs', () => {
    const s = ownSession("sh -c 'echo hi; sleep 8; exit 3'");
    s.output();
    s.park('q', 'quiet');
    s.advance(7_000);
    expect(s.results()).toEqual([]);
    s.keep(s.engine.sessionExited('s', 3));
    expect(s.results()).toMatchObject([{ awaitId: 'q', cause: 'exit', exitCode: 3 }]);
  });

  it('an await after the command already exited answers exit with its code at once', () => {
    const s = ownSession('false');
    s.keep(s.engine.sessionExited('s', 1));
    s.park('late', 'exit');
    s.park('late-q', 'quiet');
    expect(s.results()).toMatchObject([
      { awaitId: 'late', cause: 'exit', exitCode: 1, command: 'false' },
      { awaitId: 'late-q', cause: 'exit', exitCode: 1, command: 'false' },
    ]);
  });

  it('an await consuming a rung exit reports that exit', () => {
    const s = ownSession('make');
    s.look();
    s.keep(s.engine.viewerGone('attach'));
    s.keep(s.engine.sessionExited('s', 0));
    expect(s.view().ringing).toBe(true);
    s.park('mid-ring', 'exit');
    expect(s.results()).toMatchObject([{ cause: 'exit', exitCode: 0, command: 'make' }]);
    expect(s.view().ringing).toBe(false);
  });

  it('a shell session dying answers died with the shell exit code and no command', () => {
    const s = ownSession(null);
    s.park('d', 'exit');
    s.keep(s.engine.onTerminalEvent('s', { type: 'command-start', commandLine: 'sleep 9' }));
    s.keep(s.engine.onTerminalEvent('s', { type: 'command-end', exitCode: 130 }));
    expect(s.results()).toMatchObject([{ cause: 'exit', exitCode: 130, command: 'sleep 9' }]);
    s.park('d2', 'exit');
    s.keep(s.engine.sessionExited('s', 0));
    expect(s.results()[1]).toMatchObject({ awaitId: 'd2', cause: 'died', exitCode: 0, command: null });
  });
});
