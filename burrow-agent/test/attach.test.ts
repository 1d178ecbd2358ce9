/**
 * `burrow attach` driven through a real PTY: the CLI runs inside node-pty as it would in a user's terminal.
 */
import type { ChildProcess } from 'node:child_process';
import * as pty from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttachInputFilter } from '../src/cli/attach-input.js';
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

  it('turns CSI I / CSI O into focus events and leaves other escapes alone', () => {
    const f = new AttachInputFilter();
    const r = f.push(Buffer.from('\x1b[Ia\x1b[A\x1b[O\x1b'));
    expect(r.focus).toEqual([true, false]);
    expect(Buffer.from(r.forward).toString()).toBe('a\x1b[A\x1b');
  });
});
