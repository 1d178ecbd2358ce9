/**
 * The attention verbs against a REAL `burrow daemon` process (built CLI, temp BURROW_STATE_DIR, no relay):
 * `ls --json` carries the attention view, `todo`, `dismiss`, `watch` / `unwatch` / `watch --list`,
 * `settings get|set`, and `await --until exit|quiet` with its causes, exit codes and (issue 13) the awaited
 * command's exit code.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testHome } from '../../burrow-agent/test/test-home.js';
import { REPO_ROOT } from '../../relay-worker/test/harness.js';

const AGENT = join(REPO_ROOT, 'burrow-agent');
const BIN = join(AGENT, 'bin', 'burrow.js');
const CLI_TIMEOUT_MS = 30_000;

function cli(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: CLI_TIMEOUT_MS }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

let daemon: ChildProcess;
let log = '';
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-b', join(AGENT, 'tsconfig.json')], { encoding: 'utf8' });
  if (!existsSync(join(AGENT, 'dist', 'cli', 'main.js'))) throw new Error(`build failed: ${built.stdout}`);
  env = {
    PATH: process.env.PATH,
    HOME: testHome(),
    SHELL: '/bin/bash',
    BURROW_STATE_DIR: join(mkdtempSync(join(tmpdir(), 'burrow-attn-it-')), 'state'),
  };
  daemon = spawn(process.execPath, [BIN, 'daemon'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  daemon.stderr!.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-64_000);
  });
  const end = Date.now() + 20_000;
  while (!log.includes('listening on') && daemon.exitCode === null && Date.now() < end)
    await new Promise((r) => setTimeout(r, 50));
  if (!log.includes('listening on')) throw new Error(`daemon did not start: ${log}`);
});

afterAll(async () => {
  if (daemon?.exitCode === null) {
    const exited = new Promise((r) => daemon.once('exit', r));
    daemon.kill('SIGTERM');
    await exited;
  }
});

describe('attention verbs through a real daemon', () => {
  it('ls --json carries the attention view; todo on/off/toggle and dismiss change it', async () => {
    const made = await cli(env, 'new', '--name', 'worker', '--', '/bin/sh', '-c', 'sleep 30');
    expect(made.code, made.stderr).toBe(0);
    const id = made.stdout.trim();
    const row = async () =>
      (JSON.parse((await cli(env, 'ls', '--json')).stdout) as Record<string, unknown>[]).find(
        (s) => s.id === id,
      );
    expect(await row()).toMatchObject({
      id,
      name: 'worker',
      state: 'running',
      exited: false,
      exitCode: null,
      ringing: false,
      ringingSince: null,
      todo: false,
      awaited: false,
      notification: null,
    });
    expect(Object.keys((await row()) ?? {})).toEqual(
      expect.arrayContaining(['status', 'episodeId', 'watchKey', 'command', 'argv']),
    );
    expect(JSON.parse((await cli(env, 'todo', id, 'on', '--json')).stdout)).toEqual({
      session: id,
      todo: true,
    });
    expect((await row())?.todo).toBe(true);
    expect((await cli(env, 'todo', 'worker', 'toggle')).stdout.trim()).toBe(`${id}: TODO off`);
    expect((await cli(env, 'todo', id, 'maybe')).code).toBe(2);
    expect((await cli(env, 'todo', 'nosuch', 'on')).code).toBe(4);
    expect((await cli(env, 'dismiss', id)).stdout.trim()).toBe(`dismissed ${id}`);
    await cli(env, 'kill', id);
  });

  it('watch, unwatch and watch --list keep the WATCHING rules', async () => {
    const before = JSON.parse((await cli(env, 'watch', '--list', '--json')).stdout) as string[];
    expect(before.length).toBeGreaterThan(0);
    const added = JSON.parse((await cli(env, 'watch', 'mytool', '--json')).stdout) as string[];
    expect(added).toContain('mytool');
    expect((await cli(env, 'watch', '--list')).stdout.split('\n')).toContain('mytool');
    const removed = JSON.parse((await cli(env, 'unwatch', 'mytool', '--json')).stdout) as string[];
    expect(removed).toEqual(before);
    expect((await cli(env, 'watch', 'Not A Key')).code).toBe(2);
    expect((await cli(env, 'watch')).code).toBe(2);
  });

  it('settings get / set, out of range refused with the range, bad keys and values refused', async () => {
    const all = JSON.parse((await cli(env, 'settings', '--json')).stdout) as Record<string, unknown>;
    expect(all).toMatchObject({ pushEnabled: true });
    // Issue 17 item 6: refused with its range, not silently clamped.
    const over = await cli(env, 'settings', 'set', 'pushDelayMs', '999999999', '--json');
    expect(over.code).toBe(2);
    expect(over.stderr).toContain('pushDelayMs must be 0…3600000');
    expect((await cli(env, 'settings', 'set', 'pushDelayMs', '3600000', '--json')).code).toBe(0);
    expect((await cli(env, 'settings', 'get', 'pushDelayMs')).stdout.trim()).toBe('3600000');
    expect((await cli(env, 'settings', 'set', 'pushEnabled', 'off')).stdout).toContain('pushEnabled = false');
    expect((await cli(env, 'settings', 'set', 'nosuch', '1')).code).toBe(2);
    expect((await cli(env, 'settings', 'set', 'pushEnabled', '5')).code).toBe(2);
    expect((await cli(env, 'settings', 'set', 'pushDelayMs', 'soon')).code).toBe(2);
  });

  it('await prints the cause, the exit code and command; exit 7 when the command failed; a timeout exits 1', async () => {
    // `burrow new -- CMD` is awaited as CMD (issue 13): its exit is a command exit, with its code.
    const quick = (await cli(env, 'new', '--', '/bin/sh', '-c', 'sleep 1; exit 3')).stdout.trim();
    const r = await cli(env, 'await', quick, '--until', 'exit', '--timeout', '20', '--json');
    expect(r.code, r.stderr).toBe(7);
    expect(JSON.parse(r.stdout)).toEqual({
      session: quick,
      cause: 'exit',
      exitCode: 3,
      command: "/bin/sh -c 'sleep 1; exit 3'",
    });
    const q = (await cli(env, 'new', '--', '/bin/sh', '-c', 'sleep 1')).stdout.trim();
    const quiet = await cli(env, 'await', q, '--until', 'quiet', '--timeout', '20');
    expect(quiet.stdout.trim()).toBe("exit (code 0): /bin/sh -c 'sleep 1'");
    expect(quiet.code).toBe(0);
    const slow = (await cli(env, 'new', '--', '/bin/sh', '-c', 'sleep 30')).stdout.trim();
    const t = await cli(env, 'await', slow, '--until', 'exit', '--timeout', '1');
    expect(t.code).toBe(1);
    expect(t.stdout.trim()).toBe('timeout');
    expect((await cli(env, 'await', slow)).code).toBe(2);
    expect((await cli(env, 'await', slow, '--until', 'exit', '--timeout', '-1')).code).toBe(2);
    await cli(env, 'kill', slow);
  });

  it('status still reports the remote side as not configured, with no push yet', async () => {
    const s = JSON.parse((await cli(env, 'status', '--json')).stdout) as Record<string, unknown>;
    expect(s).toMatchObject({
      relay: { state: 'not-configured' },
      devices: { paired: 0, connected: 0 },
      push: { last: null, warnings: [] },
    });
    expect((await cli(env, 'push', 'test')).stderr).toContain('not enrolled');
  });
});
