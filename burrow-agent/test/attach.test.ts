/**
 * `burrow attach` driven through a real PTY: the CLI runs inside node-pty as it would in a user's terminal.
 */
import type { ChildProcess } from 'node:child_process';
import * as pty from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttachInputFilter, parseDetachKey } from '../src/cli/attach-input.js';
import { BIN, buildOnce, cli, startDaemonProcess, stopDaemonProcess, tempStateEnv } from './cli-helpers.js';
import { until } from './helpers.js';

let env: NodeJS.ProcessEnv;
let daemon: ChildProcess;

beforeAll(async () => {
  buildOnce();
  env = tempStateEnv();
  daemon = (await startDaemonProcess(env)).proc;
}, 120_000);

afterAll(async () => {
  if (daemon) await stopDaemonProcess(daemon);
});

describe('burrow attach in a real terminal', () => {
  it('shows the session, types into it, follows resize, strips focus reports, detaches with Ctrl-B d', async () => {
    const id = (
      await cli(env, 'new', '--name', 'att', '--', '/bin/bash', '--norc', '--noprofile')
    ).stdout.trim();
    const term = pty.spawn(process.execPath, [BIN, 'attach', id], {
      cols: 90,
      rows: 25,
      env: env as Record<string, string>,
    });
    let out = '';
    term.onData((d) => {
      out += d;
    });
    const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
    await until('focus reporting requested', () => out.includes('\x1b[?1004h'), 15_000);
    // Attaching took this terminal's size.
    await until('attach size', () => out.length > 0);
    term.write('stty size\r');
    await until('size 25 90', () => out.includes('25 90'), 15_000);
    // Resizing the local terminal (SIGWINCH) resizes the session.
    term.resize(100, 30);
    await new Promise((r) => setTimeout(r, 300));
    term.write('stty size\r');
    await until('size 30 100', () => out.includes('30 100'), 15_000);
    // A focus report from the host terminal is presence, not input: bash must not see it.
    term.write('\x1b[I');
    term.write('echo "[$((40+2))]"\r');
    await until('echo', () => out.includes('[42]'), 15_000);
    expect(out).not.toContain('[I');
    // Ctrl-B d detaches.
    term.write('\x02d');
    expect(await exited).toBe(0);
    expect(out).toContain('[detached from att]');
    // The terminal was restored: focus reports off, alternate screen left, cursor shown.
    expect(out).toContain('\x1b[?1004l');
    expect(out).toContain('\x1b[?25h');
    // Detaching left the session running.
    expect(JSON.parse((await cli(env, 'ls', '--json')).stdout)).toMatchObject([
      { id, state: 'running', viewers: 0 },
    ]);
  }, 90_000);

  it('ends the attach with a note when the program exits', async () => {
    const id = (await cli(env, 'new', '--', '/bin/bash', '--norc', '--noprofile')).stdout.trim();
    const term = pty.spawn(process.execPath, [BIN, 'attach', id], {
      cols: 80,
      rows: 24,
      env: env as Record<string, string>,
    });
    let out = '';
    term.onData((d) => {
      out += d;
    });
    const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
    await until('attached', () => out.includes('\x1b[?1004h'), 15_000);
    term.write('exit 4\r');
    expect(await exited).toBe(0);
    expect(out).toContain('exited with code 4');
  }, 60_000);

  it('the detach key is configurable (--detach-key, $BURROW_DETACH_KEY) and said on attach', async () => {
    const id = (
      await cli(env, 'new', '--name', 'keyed', '--', '/bin/bash', '--norc', '--noprofile')
    ).stdout.trim();
    const term = pty.spawn(process.execPath, [BIN, 'attach', id, '--detach-key', 'ctrl-a'], {
      cols: 80,
      rows: 24,
      env: { ...env, BURROW_DETACH_KEY: 'ctrl-q' } as Record<string, string>,
    });
    let out = '';
    term.onData((d) => {
      out += d;
    });
    const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
    // The option wins over the environment, and the hint names it (and the session by its name, from the
    // attach answer, though it was attached by id).
    await until(
      'the hint',
      () =>
        out.includes(
          `[burrow: attached to keyed; detach with Ctrl-A d, fit it to this terminal with Ctrl-A f]`,
        ),
      15_000,
    );
    await until('attached', () => out.includes('\x1b[?1004h'), 15_000);
    // Ctrl-B d is just typing now (tmux's prefix passes through): bash moves back one character and inserts
    // the d, and nothing detaches.
    term.write('echo ab\x02d\r');
    await until('echo', () => out.includes('\radb\r'), 15_000).catch((e: Error) => {
      throw new Error(`${e.message}; the terminal showed ${JSON.stringify(out.slice(-400))}`);
    });
    term.write('\x01d');
    expect(await exited).toBe(0);
    expect(out).toContain('[detached from keyed]');
    // A prefix that would take Enter is refused with what is accepted, before anything attaches.
    const bad = await cli(env, 'attach', id, '--detach-key', 'ctrl-m');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--detach-key: detach key must be Ctrl and one of a–z');
    const badEnv = await cli({ ...env, BURROW_DETACH_KEY: 'F12' }, 'attach', id);
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('$BURROW_DETACH_KEY: detach key must be');
    await cli(env, 'kill', id);
  }, 90_000);

  it('attach to a missing session exits 4', async () => {
    const term = pty.spawn(process.execPath, [BIN, 'attach', 'nosuch'], {
      cols: 80,
      rows: 24,
      env: env as Record<string, string>,
    });
    const code = await new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
    expect(code).toBe(4);
  }, 30_000);
});

describe('AttachInputFilter', () => {
  it('detaches on Ctrl-B d, passes Ctrl-B Ctrl-B as one Ctrl-B, keeps other keys after Ctrl-B', () => {
    const f = new AttachInputFilter();
    const text = (r: { forward: Uint8Array }) => Buffer.from(r.forward).toString('latin1');
    const a = f.push(Buffer.from('ab\x02\x02c'));
    expect([text(a), a.detach]).toEqual(['ab\x02c', false]);
    expect(text(f.push(Buffer.from('\x02x')))).toBe('\x02x');
    expect(text(f.push(Buffer.from('\x02')))).toBe('');
    const d = f.push(Buffer.from('dzz'));
    expect([text(d), d.detach]).toEqual(['', true]);
  });

  it('takes another prefix: parseDetachKey reads ctrl-a, C-a, ^A; refuses keys a terminal needs', () => {
    for (const spec of ['ctrl-a', 'C-a', '^A', 'Ctrl-A'])
      expect(parseDetachKey(spec)).toEqual({ prefix: 1, help: 'Ctrl-A d', fitHelp: 'Ctrl-A f' });
    expect(parseDetachKey('ctrl-]').prefix).toBe(0x1d);
    for (const spec of ['ctrl-m', 'ctrl-[', 'ctrl-i', 'a', 'ctrl-', 'ctrl-ab', 'F12'])
      expect(() => parseDetachKey(spec), spec).toThrow(RangeError);
    const f = new AttachInputFilter(parseDetachKey('ctrl-a'));
    expect(Buffer.from(f.push(Buffer.from('\x02d\x01\x01')).forward).toString('latin1')).toBe('\x02d\x01');
    expect(f.push(Buffer.from('\x01d')).detach).toBe(true);
  });

  it('R-SIZE-2: the prefix then f takes the size back and types nothing; across reads too', () => {
    const f = new AttachInputFilter();
    const r = f.push(Buffer.from('a\x02fb'));
    expect([Buffer.from(r.forward).toString(), r.fit, r.detach]).toEqual(['ab', true, false]);
    expect(f.push(Buffer.from('\x02')).fit).toBe(false);
    const next = f.push(Buffer.from('f'));
    expect([next.forward.byteLength, next.fit]).toEqual([0, true]);
    expect(f.push(Buffer.from('f')).fit).toBe(false); // a plain f is typing
  });

  it('turns CSI I / CSI O into focus events and leaves other escapes alone', () => {
    const f = new AttachInputFilter();
    const r = f.push(Buffer.from('\x1b[Ia\x1b[A\x1b[O\x1b'));
    expect(r.focus).toEqual([true, false]);
    expect(Buffer.from(r.forward).toString()).toBe('a\x1b[A\x1b');
  });
});
