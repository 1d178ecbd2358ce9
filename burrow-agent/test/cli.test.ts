/**
 * The CLI end to end: a real `burrow daemon` process with a temp BURROW_STATE_DIR, and real CLI invocations.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, cli, PKG, startDaemonProcess, stopDaemonProcess, tempStateEnv } from './cli-helpers.js';

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

/** Every command whose `--help` the exit-code case reads. */
const HELP_COMMANDS = [
  'new',
  'ls',
  'attach',
  'kill',
  'rename',
  'status',
  'daemon',
  'install-service',
  'restart-service',
  'uninstall-service',
];

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
    // The independent calls run at once (each is a Node start, ~0.3–1 s under load; one after another this
    // case took 11 s); the ones that depend on each other stay in order.
    const [frob, bogus, noName, bare, badCwd, nf, help, ...helps] = await Promise.all([
      cli(env, 'frobnicate'),
      cli(env, 'ls', '--bogus'),
      cli(env, 'kill'),
      cli(env),
      cli(env, 'new', '--cwd', '/nonexistent', '--', '/bin/true'),
      cli(env, 'kill', 'nosuch'),
      cli(env, '--help'),
      ...HELP_COMMANDS.map((c) => cli(env, c, '--help')),
    ]);
    expect(frob!.code).toBe(2);
    expect(bogus!.code).toBe(2);
    expect(noName!.code).toBe(2);
    expect(bare!.code).toBe(2);
    expect(badCwd!.code).toBe(2);
    expect(badCwd!.stderr).toContain('does not exist');
    expect(nf!.code).toBe(4);
    expect(nf!.stderr).toContain('burrow ls');
    await cli(env, 'new', '--name', 'dup', '--', '/bin/sh', '-c', 'sleep 30');
    expect((await cli(env, 'new', '--name', 'dup', '--', '/bin/true')).code).toBe(5);
    await cli(env, 'kill', 'dup');
    expect(help!.code).toBe(0);
    expect(help!.stdout).toContain('3  the daemon is not running');
    expect(help!.stdout).toContain('7  burrow await: the awaited command exited non-zero');
    HELP_COMMANDS.forEach((c, i) => {
      expect(helps[i]!.code, c).toBe(0);
      expect(helps[i]!.stdout, c).toContain(`Usage: burrow ${c}`);
    });
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

describe('burrow CLI polish (issue 17 item 6)', () => {
  it("--version, and mistakes in Burrow's own words with exit 2", async () => {
    const { version } = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V'])
      expect(await cli(env, flag)).toEqual({ code: 0, stdout: `burrow ${version}\n`, stderr: '' });
    const unknown = await cli(env, 'ls', '--bogus');
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe(
      'burrow ls: unknown option --bogus; see `burrow ls --help`\nUsage: burrow ls [--json]\n',
    );
    expect((await cli(env, 'new', '--name')).stderr).toContain('burrow new: --name needs a value');
    expect((await cli(env, '--bogus')).stderr).toContain('burrow: unknown option "--bogus"');
  }, 90_000);

  it('await: a wrong --until is wrong, not missing; --timeout 0 and negative are refused as such', async () => {
    const id = (await cli(env, 'new', '--', '/bin/sh', '-c', 'sleep 60')).stdout.trim();
    const forever = await cli(env, 'await', id, '--until', 'forever');
    expect(forever.code).toBe(2);
    expect(forever.stderr).toContain('--until must be quiet or exit, not "forever"');
    expect((await cli(env, 'await', id)).stderr).toContain('--until quiet|exit is required');
    for (const t of ['0', '-5', '-0.5']) {
      const r = await cli(env, 'await', id, '--until', 'quiet', '--timeout', t);
      expect(r.code, t).toBe(2);
      expect(r.stderr, t).toContain('--timeout must be more than 0 and at most');
    }
    expect((await cli(env, 'await', id, '--until', 'quiet', '--timeout', 'soon')).stderr).toContain(
      '--timeout must be a number of seconds, not "soon"',
    );
    // A small positive timeout is a real wait that ends in `timeout` (exit 1), not a usage error.
    expect((await cli(env, 'await', id, '--until', 'exit', '--timeout', '0.2')).code).toBe(1);
    await cli(env, 'kill', id);
  }, 90_000);

  it('settings outside their range are refused with the range; negative numbers are values', async () => {
    const low = await cli(env, 'settings', 'set', 'pushDelayMs', '-5');
    expect(low.code).toBe(2);
    expect(low.stderr).toContain('pushDelayMs must be 0…3600000 (milliseconds), not -5');
    const short = await cli(env, 'settings', 'set', 'inactivityTimeoutMs', '10');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('inactivityTimeoutMs must be 5000…3600000 (milliseconds), not 10');
    expect(JSON.parse((await cli(env, 'settings', 'get', 'inactivityTimeoutMs', '--json')).stdout)).toBe(
      60_000,
    );
    expect((await cli(env, 'settings', 'set', 'inactivityTimeoutMs', '90000')).code).toBe(0);
    expect((await cli(env, 'settings', '--help')).stdout).toContain('inactivityTimeoutMs (5000…3600000 ms)');
  }, 90_000);

  it('watch: an unknown session is an error; a session names the command it runs', async () => {
    const missing = await cli(env, 'watch', 'zzzz2345');
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('no session zzzz2345');
    // A bare shell without integration (sh): no command Burrow can name.
    const id = (await cli(env, 'new', '--name', 'plain', '--', '/bin/sh')).stdout.trim();
    const noKey = await cli(env, 'watch', 'plain');
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('session plain runs no command Burrow can name right now');
    expect((await cli(env, 'watch', id)).code).toBe(1);
    expect(JSON.parse((await cli(env, 'watch', '--list', '--json')).stdout)).not.toContain('plain');
    // A session started as `burrow new -- CMD` runs CMD (issue 13 item 1): its name means CMD's watch key.
    const job = (await cli(env, 'new', '--name', 'job', '--', 'sleep', '60')).stdout.trim();
    const named = await cli(env, 'watch', 'job');
    expect(named.code).toBe(0);
    expect(named.stdout).toContain('watching sleep');
    expect(JSON.parse((await cli(env, 'watch', '--list', '--json')).stdout)).toContain('sleep');
    expect((await cli(env, 'unwatch', 'sleep')).code).toBe(0);
    await cli(env, 'kill', id);
    await cli(env, 'kill', job);
  }, 90_000);
});

describe('untrusted text through printable (issue 16 item 2)', () => {
  it('ls shows a command line from elsewhere escaped, in the table and in --json', async () => {
    const hostile = 'sleep 60 # \u001b]52;c;aGk=\u0007\u009b2J';
    const id = (await cli(env, 'new', '--name', 'odd', '--', '/bin/sh', '-c', hostile)).stdout.trim();
    const table = await cli(env, 'ls');
    expect(table.stdout).toContain('# \\x1b]52;c;aGk=\\x07\\u009b2J');
    expect(table.stdout).not.toMatch(/[\u001b\u0007\u009b]/);
    const json = await cli(env, 'ls', '--json');
    expect(json.stdout).not.toMatch(/[\u001b\u0007\u009b]/);
    expect(JSON.parse(json.stdout).find((r: { id: string }) => r.id === id).argv[2]).toBe(hostile);
    await cli(env, 'kill', id);
  }, 90_000);

  it("a hostile relay's error text reaches the terminal escaped, OSC 52 and all", async () => {
    const payload = '\u001b]52;c;aGVsbG8=\u0007\u009b2J\u202eowned\n$ ';
    const relay = createServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'forbidden', message: payload } }));
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    try {
      const { port } = relay.address() as AddressInfo;
      const r = await cli(tempStateEnv(), 'enroll', '--relay', `http://127.0.0.1:${port}`);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('\\x1b]52;c;aGVsbG8=\\x07\\u009b2J\\u202eowned\\n$ ');
      expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    } finally {
      relay.close();
    }
  }, 90_000);
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
