/**
 * `npm start` as a new user runs it (issue 17 items 1, 2, 3, 5, 8): the real script, the real relay under
 * `wrangler dev`, the real daemon and CLI, a phone answered by Pocket's core. In a temporary BURROW_DEV_DIR on
 * a free port, so a developer's own .burrow-dev is never touched.
 *
 *  - first run: build steps with their times, pairing offered (nobody is paired), the QR decodes to the link
 *    with a 4-module quiet zone, every printed command works from the repository root; then `npm start`'s own
 *    process is SIGKILLed and everything it started must go with it;
 *  - second run, its output piped through a tee-like reader, as `npm start | tee log`: no pairing offered,
 *    no second "shell", the paired phone connects, a session made with `burrow new` reaches it; then Ctrl-C
 *    (SIGINT to the whole pipeline, tee included) must end everything;
 *  - the process-group module alone (a small fixture): SIGTERM and SIGHUP end a child that ignores SIGTERM.
 *
 * Two `npm start`s are the least that shows "start, stop, start again" and both ways of stopping.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MemoryPairingStorage,
  type PairingRecord,
  pairWithOffer,
  parsePairingLink,
} from '@burrow/pocket/core';
import jsQRModule from 'jsqr';
import * as pty from 'node-pty';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT } from '../../relay-worker/test/harness.js';
import { nodeSocketFactory } from '../helpers/node-socket.js';
import { phoneConnection } from '../helpers/phone-connection.js';

// jsqr is a CommonJS module whose types declare an ES default export: the function is its `default`.
const jsQR = (jsQRModule as unknown as { default: typeof jsQRModule.default }).default;

/** A first `npm start` on a loaded machine: tsc (up to date), maybe vite, wrangler's cold start, the daemon. */
const START_MS = 240_000;
/** Everything gone after a stop: the daemon's and the relay's own grace plus the group's SIGKILL. */
const GONE_MS = 30_000;

let dev: string;
let port: number;
const runs: Run[] = [];

beforeAll(async () => {
  dev = mkdtempSync(join(tmpdir(), 'burrow-npm-start-'));
  port = await freePort();
});

// A failed test leaves nothing running for the next one: its launcher's death ends its group.
afterEach(() => {
  for (const r of runs.splice(0)) r.kill();
});

afterAll(() => {
  rmSync(dev, { recursive: true, force: true });
});

class Run {
  out = '';
  readonly exited: Promise<number | null>;
  constructor(readonly proc: ChildProcess) {
    const add = (d: Buffer) => {
      this.out += d.toString();
    };
    proc.stdout!.on('data', add);
    proc.stderr?.on('data', add);
    this.exited = new Promise((r) => proc.once('exit', (code) => r(code)));
    runs.push(this);
  }

  async waitFor(re: RegExp, ms = START_MS): Promise<RegExpExecArray> {
    const end = Date.now() + ms;
    for (;;) {
      const m = re.exec(this.out);
      if (m !== null) return m;
      if (this.proc.exitCode !== null || Date.now() > end)
        throw new Error(
          `no ${re} in npm start's output (exit ${this.proc.exitCode}):\n${this.out.slice(-4000)}`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  kill(): void {
    try {
      process.kill(-this.proc.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

const env = () => ({ ...process.env, BURROW_DEV_DIR: dev, BURROW_DEV_PORT: String(port), FORCE_COLOR: '0' });

/** A command (`npm start`, a printed line) in its own session and process group, as a terminal job is. */
function npmStart(command: string): Run {
  return new Run(
    spawn('sh', ['-c', command], {
      cwd: REPO_ROOT,
      env: env(),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids in process group `pgid` (from /proc). */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirProc()) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …; comm may hold spaces, so read after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

function readdirProc(): string[] {
  return readdirSync('/proc').filter((e) => /^\d+$/.test(e));
}

async function expectAllGone(pgid: number, what: string): Promise<void> {
  const end = Date.now() + GONE_MS;
  while (groupMembers(pgid).length > 0) {
    if (Date.now() > end) throw new Error(`${what}: still running: ${groupMembers(pgid).join(', ')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const answering = await fetch(`http://127.0.0.1:${port}/v1/info`).then(
    () => true,
    () => false,
  );
  expect(answering, `${what}: the relay still answers on ${port}`).toBe(false);
}

/** The group leader's pid (= its process group) from start.json, and its parent, the launcher. */
function leader(): { pgid: number; launcher: number } {
  const { pid } = JSON.parse(readFileSync(join(dev, 'start.json'), 'utf8')) as { pid: number };
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return { pgid: pid, launcher: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) };
}

/** The QR lines as printed, back to modules, rendered as pixels and read by jsQR. */
function readQr(out: string): { text: string | null; quietRows: number; quietCols: number } {
  const lines = out
    .split('\n')
    .filter((l) => l.includes('\u001b[47m\u001b[30m'))
    .map((l) => [...l.replace(/\u001b\[[0-9;]*m/g, '')]);
  const dark = (ch: string, bottom: boolean) => ch === '█' || ch === (bottom ? '▄' : '▀');
  const modules = lines.flatMap((l) => [l.map((c) => dark(c, false)), l.map((c) => dark(c, true))]);
  const firstDarkRow = modules.findIndex((r) => r.some(Boolean));
  const quietCols = Math.min(...modules.filter((r) => r.some(Boolean)).map((r) => r.indexOf(true)));
  const SCALE = 4;
  const w = modules[0]!.length * SCALE;
  const h = modules.length * SCALE;
  const px = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const v = modules[Math.floor(y / SCALE)]![Math.floor(x / SCALE)] ? 0 : 255;
      px.set([v, v, v, 255], (y * w + x) * 4);
    }
  return { text: jsQR(px, w, h)?.data ?? null, quietRows: firstDarkRow, quietCols };
}

/** A printed command line, run from the repository root the way a user pastes it. */
function shell(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', line],
      { cwd: REPO_ROOT, env: { ...process.env, FORCE_COLOR: '0' }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    );
  });
}

let pairing: PairingRecord;
let storage: MemoryPairingStorage;
let firstShellId: string;

describe('npm start', () => {
  it('first run: timed build steps, pairing offered, a QR that scans, printed commands that work; its death ends everything', async () => {
    const run = npmStart('npm start');
    await run.waitFor(
      /building the daemon, protocol and crypto \(tsc -b\)\n(?:.*\n)*? {2}(?:up to date|done) in \d+\.\d s\n/,
    );
    await run.waitFor(/starting the relay on [^\n]+\n {2}up in \d+\.\d s/);
    const [, link] = await run.waitFor(/\n(http:\/\/127\.0\.0\.1:\d+\/#pair=\S+)\n/);
    // Item 5: the printed QR holds the link, with the full quiet zone, and the words say what a phone can do.
    const qr = readQr(run.out);
    expect(qr.text).toBe(link);
    expect(qr.quietRows).toBeGreaterThanOrEqual(4);
    expect(qr.quietCols).toBeGreaterThanOrEqual(4);
    expect(run.out).toContain('which only this computer can reach');
    expect(run.out).toContain('README "Pair a real phone"');

    // The phone answers the link; the owner compares the code and says y at npm start's prompt.
    storage = new MemoryPairingStorage();
    const paired = pairWithOffer({
      offer: parsePairingLink(link!),
      socketFactory: nodeSocketFactory(),
      storage,
      label: 'test phone',
      platform: 'node',
      userAgent: 'vitest',
      onCode: () => {},
    });
    await run.waitFor(/Does the phone show this code\? \[y\/N\] /);
    run.proc.stdin!.write('y\n');
    pairing = await paired;
    await run.waitFor(/Press Ctrl-C to stop\./);

    // Item 1: every command printed under "Use it from the repository root" works as pasted.
    const printed = run.out
      .slice(run.out.indexOf('Use it from the repository root:'))
      .split('\n')
      .slice(1)
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim());
    expect(printed.map((l) => l.replace(/^.* -- /, ''))).toEqual(['attach shell', 'ls', 'status', 'pair']);
    const ls = await shell(`${printed[1]} --json`);
    expect(ls.code, ls.stderr).toBe(0);
    const sessions = JSON.parse(ls.stdout) as { id: string; name: string; state: string }[];
    expect(sessions).toMatchObject([{ name: 'shell', state: 'running' }]);
    firstShellId = sessions[0]!.id;
    const status = await shell(printed[2]!);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/devices: +1 paired/);
    // attach needs a terminal: the printed line in a real PTY, detached with Ctrl-B d.
    const term = pty.spawn('sh', ['-c', printed[0]!], {
      cwd: REPO_ROOT,
      cols: 80,
      rows: 24,
      env: env() as Record<string, string>,
    });
    let screen = '';
    term.onData((d) => {
      screen += d;
    });
    const detached = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
    const attachEnd = Date.now() + 30_000;
    while (!screen.includes('detach with Ctrl-B d') && Date.now() < attachEnd)
      await new Promise((r) => setTimeout(r, 100));
    term.write('\u0002d');
    expect(await detached, screen).toBe(0);
    expect(screen).toContain('[detached from shell]');
    // pair prints a fresh link; Ctrl-C withdraws it.
    const pairRun = npmStart(printed[3]!);
    await pairRun.waitFor(/#pair=/, 30_000);
    pairRun.kill();

    // Item 3: npm start's own process dies (SIGKILL: no chance to clean up): everything it started goes.
    const { pgid, launcher } = leader();
    expect(groupMembers(pgid).length).toBeGreaterThan(3);
    process.kill(launcher, 'SIGKILL');
    await expectAllGone(pgid, 'after npm start was killed');
    run.kill();
  }, 420_000);

  it('second run piped through tee: no pairing, no second shell, the phone connects, burrow new reaches it; Ctrl-C ends it all', async () => {
    const log = join(dev, 'tee.log');
    const tee = `node -e "const f=require('fs').createWriteStream(process.argv[1]);process.stdin.on('data',d=>{process.stdout.write(d);f.write(d)})" ${log}`;
    const run = npmStart(`npm start 2>&1 | ${tee}`);
    await run.waitFor(/Press Ctrl-C to stop\./);
    expect(run.out).toContain('1 phone is paired already; pair another with `npm start -- --pair`');
    expect(run.out).not.toContain('#pair=');
    expect(run.out).toContain('Pocket is built already');
    const cli = run.out.match(/\n {2}(BURROW_DEV_DIR=\S+ npm run -s burrow --) ls\n/)![1]!;
    const listed = JSON.parse((await shell(`${cli} ls --json`)).stdout) as {
      id: string;
      name: string;
      state: string;
    }[];
    // The previous run's shell ended with its daemon and was replaced: one "shell", running, new.
    expect(listed.filter((s) => s.name === 'shell')).toMatchObject([{ state: 'running' }]);
    expect(listed.find((s) => s.name === 'shell')!.id).not.toBe(firstShellId);

    // The phone paired in the first run connects to the new daemon through the restarted relay.
    const conn = phoneConnection({ pairing, storage });
    conn.start();
    try {
      const connectEnd = Date.now() + 30_000;
      while (![...conn.sessions.values()].some((s) => s.name === 'shell' && !s.exited)) {
        if (Date.now() > connectEnd) throw new Error(`the phone did not connect: ${conn.statusText}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      // Item 7's latency, as a figure: `burrow new` of a session that prints nothing, until the phone has it.
      const started = performance.now();
      const made = await shell(`${cli} new --name quiet -- sleep 600`);
      expect(made.code, made.stderr).toBe(0);
      const cliDone = performance.now();
      while (!conn.sessions.has(made.stdout.trim())) await new Promise((r) => setTimeout(r, 5));
      const seen = performance.now();
      console.log(
        `[figure] burrow new → phone directory: ${Math.round(seen - cliDone)} ms after the CLI exited (${Math.round(seen - started)} ms including the CLI)`,
      );
    } finally {
      conn.stop();
    }

    // Ctrl-C in the terminal: SIGINT to the whole pipeline (npm, tee …); tee goes first.
    const { pgid } = leader();
    process.kill(-run.proc.pid!, 'SIGINT');
    await expectAllGone(pgid, 'after Ctrl-C on npm start | tee');
    expect(existsSync(join(dev, 'start.json'))).toBe(false);
    run.kill();
  }, 420_000);
});

describe('README "Running burrow": installed globally', () => {
  it("`npm install -g ./burrow-agent` puts a working `burrow` on the PATH, on the user's own state", async () => {
    // The README's line, into a throwaway prefix instead of the machine's (after the build npm start did).
    const prefix = mkdtempSync(join(tmpdir(), 'burrow-global-'));
    const home = mkdtempSync(join(tmpdir(), 'burrow-home-'));
    try {
      const installed = await shell(`npm install -g --prefix ${prefix} ./burrow-agent --no-audit --no-fund`);
      expect(installed.code, installed.stderr).toBe(0);
      const bin = join(prefix, 'bin', 'burrow');
      expect((await shell(`${bin} --version`)).stdout).toMatch(/^burrow \d+\.\d+\.\d+\n$/);
      const status = await shell(`HOME=${home} XDG_STATE_HOME= BURROW_STATE_DIR= ${bin} status`);
      expect(status.code).toBe(3);
      expect(status.stderr).toContain(`(state directory ${join(home, '.local', 'state', 'burrow')})`);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('npm start process group (scripts/dev/process-group.ts)', () => {
  const fixture = join(REPO_ROOT, 'tests', 'helpers', 'group-fixture.ts');
  const tsx = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
  // SIGINT is proved through npm itself above (Ctrl-C on the pipeline).
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} to the launcher ends every child, one that ignores SIGTERM included`, async () => {
      const run = new Run(
        spawn(tsx, [fixture], { cwd: REPO_ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }),
      );
      const [, leaderPid] = await run.waitFor(/leader (\d+)\n/, 30_000);
      await run.waitFor(/child \d+\nchild \d+\n/, 30_000);
      const children = [...run.out.matchAll(/child (\d+)/g)].map((m) => Number(m[1]));
      expect(children.every(alive)).toBe(true);
      // The launcher is the leader's parent (tsx runs it through one more node).
      const stat = readFileSync(`/proc/${leaderPid}/stat`, 'utf8');
      const launcher = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      process.kill(launcher, signal);
      await run.waitFor(new RegExp(`stopping: received ${signal}`), 30_000);
      const end = Date.now() + GONE_MS;
      while (groupMembers(Number(leaderPid)).length > 0 && Date.now() < end)
        await new Promise((r) => setTimeout(r, 100));
      expect(groupMembers(Number(leaderPid))).toEqual([]);
      run.kill();
    }, 60_000);
  }
});
