/**
 * The CLI end to end: a real `burrow daemon` process with a temp BURROW_STATE_DIR, and real CLI invocations.
 */
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, cli, startDaemonProcess, stopDaemonProcess, tempStateEnv } from './cli-helpers.js';

let env: NodeJS.ProcessEnv;
let daemon: { proc: ChildProcess; stderr: () => string };

beforeAll(async () => {
  buildOnce();
  env = tempStateEnv();
  daemon = await startDaemonProcess(env);
}, 120_000);

afterAll(async () => {
  if (daemon) await stopDaemonProcess(daemon.proc);
});

describe('burrow CLI', () => {
  it('new, ls --json, rename, kill', async () => {
    const made = await cli(
      env,
      'new',
      '--name',
      'build',
      '--cwd',
      '/tmp',
      '--',
      '/bin/bash',
      '-c',
      'echo hi; sleep 60',
    );
    expect(made).toMatchObject({ code: 0, stderr: '' });
    const id = made.stdout.trim();
    expect(id).toMatch(/^[a-z2-9]{8}$/);
    const ls = await cli(env, 'ls', '--json');
    expect(ls.code).toBe(0);
    expect(JSON.parse(ls.stdout)).toMatchObject([
      { id, name: 'build', cwd: '/tmp', state: 'running', argv: ['/bin/bash', '-c', 'echo hi; sleep 60'] },
    ]);
    expect((await cli(env, 'rename', id, 'tests')).code).toBe(0);
    expect(JSON.parse((await cli(env, 'ls', '--json')).stdout)[0].name).toBe('tests');
    const table = await cli(env, 'ls');
    expect(table.stdout).toMatch(/ID\s+NAME\s+STATE\s+STATUS\s+VIEWERS\s+COMMAND/);
    expect((await cli(env, 'kill', 'tests')).code).toBe(0);
    expect(JSON.parse((await cli(env, 'ls', '--json')).stdout)).toEqual([]);
  }, 60_000);

  it('keeps an exited session with its code', async () => {
    const id = (await cli(env, 'new', '--', '/bin/sh', '-c', 'exit 9')).stdout.trim();
    await new Promise((r) => setTimeout(r, 500));
    expect(JSON.parse((await cli(env, 'ls', '--json')).stdout)).toContainEqual(
      expect.objectContaining({ id, state: 'exited', exited: true, exitCode: 9 }),
    );
    await cli(env, 'kill', id);
  }, 60_000);

  it('status --json reports the daemon, with slots for relay, enrollment and devices', async () => {
    const r = await cli(env, 'status', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      running: true,
      pid: daemon.proc.pid,
      relay: { state: 'not-configured' },
      enrollment: { enrolled: false },
      devices: { paired: 0 },
    });
    expect((await cli(env, 'status')).stdout).toContain('daemon:     running');
  }, 30_000);

  it('exit codes: bad usage 2, not found 4, name conflict 5; --help everywhere', async () => {
    expect((await cli(env, 'frobnicate')).code).toBe(2);
    expect((await cli(env, 'ls', '--bogus')).code).toBe(2);
    expect((await cli(env, 'kill')).code).toBe(2);
    expect((await cli(env)).code).toBe(2);
    const badCwd = await cli(env, 'new', '--cwd', '/nonexistent', '--', '/bin/true');
    expect(badCwd.code).toBe(2);
    expect(badCwd.stderr).toContain('does not exist');
    const nf = await cli(env, 'kill', 'nosuch');
    expect(nf.code).toBe(4);
    expect(nf.stderr).toContain('burrow ls');
    await cli(env, 'new', '--name', 'dup', '--', '/bin/sh', '-c', 'sleep 30');
    expect((await cli(env, 'new', '--name', 'dup', '--', '/bin/true')).code).toBe(5);
    await cli(env, 'kill', 'dup');
    const help = await cli(env, '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('3  the daemon is not running');
    expect(help.stdout).toContain('7  burrow await: the awaited command exited non-zero');
    for (const c of [
      'new',
      'ls',
      'attach',
      'kill',
      'rename',
      'status',
      'daemon',
      'install-service',
      'uninstall-service',
    ]) {
      const h = await cli(env, c, '--help');
      expect(h.code, c).toBe(0);
      expect(h.stdout, c).toContain(`Usage: burrow ${c}`);
    }
  }, 90_000);

  it('a second daemon on the same state directory refuses to start (exit 5)', async () => {
    const r = await cli(env, 'daemon');
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('already running');
  }, 30_000);

  it('state files are owner-only', () => {
    const dir = env.BURROW_STATE_DIR!;
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'control.token')).mode & 0o777).toBe(0o600);
  });
});

describe('burrow CLI without a daemon', () => {
  it('says the daemon is not running and exits 3', async () => {
    const lonely = tempStateEnv();
    for (const args of [['ls'], ['status'], ['new'], ['kill', 'x']]) {
      const r = await cli(lonely, ...args);
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stderr).toContain('start it with `burrow daemon` or `burrow install-service`');
    }
    expect(JSON.parse((await cli(lonely, 'status', '--json')).stdout)).toEqual({ running: false });
  }, 60_000);

  it('shuts down cleanly on SIGTERM: sessions ended, socket removed', async () => {
    const e = tempStateEnv();
    const d = await startDaemonProcess(e);
    await cli(e, 'new', '--', '/bin/sh', '-c', 'sleep 100');
    expect(await stopDaemonProcess(d.proc)).toBe(0);
    expect(d.stderr()).toMatch(/shutting down[\s\S]*stopped/);
    expect((await cli(e, 'ls')).code).toBe(3);
  }, 60_000);
});
