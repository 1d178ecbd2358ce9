/**
 * Issue 8 "Hostile input": another OS user on the same machine (DESIGN §2: "Local processes of other OS users
 * must not reach the Burrow: state directory 0700, files 0600, the control socket inside an owner-only
 * directory, reads that fail closed"). A real `burrow daemon`, enrolled at a real relay under `wrangler dev`
 * with a paired phone and a running shell — so the state directory holds every secret it ever holds (burrow
 * token, static key, device psk, control token) — started under umask 000, so any file or directory created
 * without an explicit mode would show as group/world accessible. Its parent directory is world-searchable
 * (0755): only the state directory's own modes stand between the other user and the files.
 *
 * A second user made with `useradd` (own group, no home, removed afterwards) then tries, through `runuser`:
 * to list, read, open for writing, replace, remove, plant files in, and chmod the state directory; to connect to
 * the control socket; the CLI against the owner's state directory; the daemon's and the shell's /proc environ
 * and the shell's PTY; and to plant the state directory (or a symlink in its place) before the daemon starts.
 *
 * The relay runs here as `npm start` runs it: the other user looks for a DevTools inspector on every TCP port
 * the relay's processes listen on (issue 16.3: `wrangler dev`'s inspector let any local user run code in the
 * relay and read the Burrow's bearer token; `relay-worker/dev/serve-relay.mjs` starts it without one).
 *
 * Not covered: root or the same user (they can read everything, by design); a state directory on a file
 * system without Unix modes (FAT, some network mounts); macOS (launchd, no `useradd`); devpts mounted with
 * group `tty` 0620 modes, where `write(1)` from another user may reach a session's terminal (here the PTYs are
 * 0600, which the test records); ptrace by another user (prevented by the kernel for another uid).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon, until } from '../helpers/burrow-daemon.js';
import { figure } from '../helpers/fault-fixture.js';
import { type Attempt, OtherUser } from '../helpers/other-user.js';
import { listeningPorts } from '../helpers/process-ports.js';

/** Every file and directory the daemon creates must carry its own mode: run it (and the CLI) under umask 000. */
const UMASK_ZERO = { NODE_OPTIONS: '--import=data:text/javascript,process.umask(0)' };
const BIN = join(REPO_ROOT, 'burrow-agent', 'bin', 'burrow.js');

interface Entry {
  readonly path: string;
  readonly kind: 'dir' | 'file' | 'socket' | 'other';
  readonly mode: number;
  readonly uid: number;
}

/** Every entry under `root` (root included), by lstat: a symlink shows as `other`. */
function walk(root: string): Entry[] {
  const out: Entry[] = [];
  const visit = (path: string) => {
    const st = lstatSync(path);
    const kind = st.isDirectory() ? 'dir' : st.isFile() ? 'file' : st.isSocket() ? 'socket' : 'other';
    out.push({ path, kind, mode: st.mode & 0o7777, uid: st.uid });
    if (kind === 'dir') for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return out;
}

function digest(entries: readonly Entry[]): string {
  const h = createHash('sha256');
  for (const e of entries) {
    h.update(`${e.path}\0${e.mode}\0`);
    if (e.kind === 'file') h.update(readFileSync(e.path));
  }
  return h.digest('hex');
}

/**
 * Run as the other user: for each port, what `GET /json/version` and `GET /json/list` on 127.0.0.1 answer —
 * the DevTools discovery routes that both of `wrangler dev`'s inspectors serve (workerd's and wrangler's
 * InspectorProxyWorker) — and whether the answer is a DevTools one (`Protocol-Version`, or a target list with
 * `webSocketDebuggerUrl`).
 */
const DEVTOOLS_PROBE = `
const ports = JSON.parse(process.argv[1]);
const get = async (url) => {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(3000) });
    return { status: r.status, body: (await r.text()).slice(0, 2000) };
  } catch (e) {
    return { status: 0, body: String(e && e.cause ? e.cause.code : e) };
  }
};
(async () => {
  const out = [];
  for (const port of ports) {
    const version = await get('http://127.0.0.1:' + port + '/json/version');
    const list = await get('http://127.0.0.1:' + port + '/json/list');
    const devtools = /Protocol-Version/.test(version.body) || /webSocketDebuggerUrl/.test(list.body);
    out.push({ port, version: version.status + ' ' + version.body.slice(0, 80), devtools });
  }
  process.stdout.write(JSON.stringify(out));
})();
`;

let user: OtherUser;
let relay: RelayHandle;
let daemon: BurrowDaemon;
let parent: string;
let stateDir: string;
let sessionId = '';
let shellPid = 0;
const scratch: string[] = [];

beforeAll(async () => {
  const t0 = Date.now();
  user = OtherUser.create('burrowatk');
  parent = mkdtempSync(join(tmpdir(), 'burrow-local-attack-'));
  scratch.push(parent);
  chmodSync(parent, 0o755);
  stateDir = join(parent, 'state');
  relay = await startRelay();
  daemon = await BurrowDaemon.start({ stateDir, env: UMASK_ZERO });
  const enrolled = await daemon.cli('enroll', '--relay', relay.url, '--json');
  if (enrolled.code !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  await daemon.pairPhone('victim phone');
  const made = await daemon.cli('new', '--name', 'owner-shell', '--', '/bin/bash', '--norc', '--noprofile');
  if (made.code !== 0) throw new Error(`burrow new failed: ${made.stderr}`);
  sessionId = made.stdout.trim();
  // Touch every other store the daemon keeps, so each file it can write is there to be checked.
  for (const args of [
    ['settings', 'set', 'pushDelayMs', '5000'],
    ['watch', 'claude'],
    ['todo', sessionId, 'on'],
    ['push', 'test'],
  ]) {
    await daemon.cli(...args);
  }
  const listed = await daemon.json<{ id: string; pid: number }[]>('ls', '--json');
  shellPid = listed.find((s) => s.id === sessionId)!.pid;
  figure('attack-local setup', { ms: Date.now() - t0 });
}, 180_000);

afterAll(async () => {
  if (daemon !== undefined) await daemon.stop();
  await relay?.stop();
  user?.remove();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('another OS user against the state directory and the control socket', () => {
  it('under umask 000 every directory is 0700, every file 0600, the socket in an owner-only directory', () => {
    // The daemon really runs under umask 000 (so no mode here comes from a kind umask).
    expect(readFileSync(`/proc/${daemon.pid}/status`, 'utf8')).toMatch(/^Umask:\s+0000$/m);
    const entries = walk(stateDir);
    const dirs = entries.filter((e) => e.kind === 'dir');
    const files = entries.filter((e) => e.kind === 'file');
    const sockets = entries.filter((e) => e.kind === 'socket');
    expect(entries.filter((e) => e.kind === 'other')).toEqual([]);
    expect(entries.filter((e) => e.uid !== process.getuid!())).toEqual([]);
    for (const d of dirs)
      expect({ path: d.path, mode: d.mode.toString(8) }).toEqual({ path: d.path, mode: '700' });
    for (const f of files)
      expect({ path: f.path, mode: f.mode.toString(8) }).toEqual({ path: f.path, mode: '600' });
    expect(sockets.map((s) => s.path)).toEqual([join(stateDir, 'control', 'burrow.sock')]);
    for (const s of sockets) {
      expect((lstatSync(join(s.path, '..')).mode & 0o777).toString(8)).toBe('700');
      expect((s.mode & 0o077).toString(8)).toBe('0');
    }
    // The secrets are really in there (a test of an empty directory would prove nothing).
    expect(files.map((f) => f.path.slice(stateDir.length + 1)).sort()).toEqual(
      expect.arrayContaining(['control.token']),
    );
    expect(files.some((f) => readFileSync(f.path, 'utf8').includes('psk'))).toBe(true);
    figure('attack-local modes', {
      umask: '000',
      dirs: dirs.length,
      files: files.length,
      sockets: sockets.length,
      groupOrWorldBits: entries.filter((e) => (e.mode & 0o077) !== 0).length,
      names: entries.map((e) => e.path.slice(parent.length + 1)).join(','),
    });
  });

  it('cannot list, read, write, replace, remove, plant, chmod, or connect to the control socket: EACCES', () => {
    const entries = walk(stateDir);
    const before = digest(entries);
    const sock = join(stateDir, 'control', 'burrow.sock');
    const attempts: Attempt[] = [
      { op: 'readdir', path: stateDir },
      { op: 'stat', path: join(stateDir, 'control') },
      { op: 'readdir', path: join(stateDir, 'control') },
      { op: 'stat', path: sock },
      { op: 'connect', path: sock },
      { op: 'create', path: join(stateDir, 'planted') },
      { op: 'mkdir', path: join(stateDir, 'planted-dir') },
      { op: 'create', path: join(stateDir, 'control', 'planted') },
    ];
    for (const e of entries.filter((x) => x.path !== stateDir)) {
      if (e.kind === 'file') attempts.push({ op: 'read', path: e.path }, { op: 'write', path: e.path });
      attempts.push({ op: 'unlink', path: e.path }, { op: 'rename', path: e.path, to: `${e.path}.x` });
    }
    const results = user.attempt(attempts);
    expect(results.filter((r) => r.outcome !== 'EACCES')).toEqual([]);
    // Not the owner: chmod is refused with EPERM whatever the modes.
    expect(user.attempt([{ op: 'chmod', path: stateDir, mode: 0o777 }]).map((r) => r.outcome)).toEqual([
      'EPERM',
    ]);
    expect(digest(walk(stateDir))).toBe(before);
    figure('attack-local other user', {
      attempts: results.length + 1,
      refusedEACCES: results.length,
      refusedEPERM: 1,
      succeeded: 0,
      paths: entries.length,
    });
  });

  it("the CLI run as the other user against the owner's state directory reaches nothing", () => {
    const env = { PATH: '/usr/bin:/bin', HOME: '/nonexistent', BURROW_STATE_DIR: stateDir };
    const codes: number[] = [];
    for (const args of [
      ['ls', '--json'],
      ['status', '--json'],
      ['devices', '--json'],
    ]) {
      const r = user.run([process.execPath, BIN, ...args], env);
      expect(r.code, `burrow ${args.join(' ')}`).not.toBe(0);
      expect(r.stdout + r.stderr).not.toContain(sessionId);
      expect(r.stdout + r.stderr).not.toContain('victim phone');
      codes.push(r.code ?? -1);
    }
    figure('attack-local cli as other user', { calls: codes.length, exitCodes: codes.join('/') });
  });

  it("the daemon's and the shell's environment, descriptors and PTY are closed to the other user", () => {
    const pty = readlinkSync(`/proc/${shellPid}/fd/0`);
    expect(pty).toMatch(/^\/dev\/pts\/\d+$/);
    const attempts: Attempt[] = [
      { op: 'read', path: `/proc/${daemon.pid}/environ` },
      { op: 'readdir', path: `/proc/${daemon.pid}/fd` },
      { op: 'read', path: `/proc/${shellPid}/environ` },
      { op: 'readdir', path: `/proc/${shellPid}/fd` },
      { op: 'read', path: pty },
      { op: 'write', path: pty },
    ];
    const results = user.attempt(attempts);
    expect(results.filter((r) => r.outcome !== 'EACCES')).toEqual([]);
    // The command line is world-readable by design: it must carry no secret.
    const token = readFileSync(join(stateDir, 'control.token'), 'utf8').trim();
    const cmdline = user.run(['/bin/cat', `/proc/${daemon.pid}/cmdline`]).stdout;
    expect(cmdline).toContain('daemon');
    expect(cmdline).not.toContain(token);
    figure('attack-local processes', {
      refusedEACCES: results.length,
      ptyMode: (lstatSync(pty).mode & 0o777).toString(8),
      cmdlineHasSecret: 'no',
    });
  });

  it('a state directory the other user planted, or a symlink in its place, is refused before any write', () => {
    const shared = mkdtempSync(join(tmpdir(), 'burrow-shared-'));
    scratch.push(shared);
    chmodSync(shared, 0o1777); // like /tmp: anyone may create, the sticky bit keeps names to their owners
    const planted = join(shared, 'state');
    const linked = join(shared, 'linked');
    const target = join(shared, 'attacker-dir');
    const made = user.attempt([
      { op: 'mkdir', path: planted },
      { op: 'chmod', path: planted, mode: 0o777 },
      { op: 'mkdir', path: target },
      { op: 'chmod', path: target, mode: 0o777 },
      { op: 'symlink', path: linked, to: target },
    ]);
    expect(made.map((r) => r.outcome)).toEqual(['OK', 'OK', 'OK', 'OK', 'OK']);
    // The daemon was built by beforeAll; run it directly: it must refuse at once, with words and exit code 6.
    const refusals: number[] = [];
    for (const [dir, why] of [
      [planted, /belongs to another user/],
      [linked, /symlink or file is in the way/],
    ] as const) {
      const r = spawnSync(process.execPath, [BIN, 'daemon'], {
        env: { ...daemon.env, ...UMASK_ZERO, BURROW_STATE_DIR: dir },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(r.stderr).toMatch(why);
      expect(r.status).toBe(6);
      refusals.push(r.status!);
    }
    // Nothing was written where the other user could read it.
    expect(readdirSync(planted)).toEqual([]);
    expect(readdirSync(target)).toEqual([]);
    figure('attack-local planted state dir', {
      refused: 'planted-dir+symlink',
      exitCodes: refusals.join('/'),
      filesWrittenThere: 0,
    });
  });
});

describe("another OS user against the relay's processes (issue 16.3)", () => {
  it('finds no DevTools inspector on any port the relay listens on', () => {
    const ports = listeningPorts(relay.processGroup);
    // Not vacuous: the relay's own port is among them, and the other user reaches it.
    expect(ports.map((p) => p.port)).toContain(relay.port);
    const probed = JSON.parse(
      user.run([process.execPath, '-e', DEVTOOLS_PROBE, JSON.stringify(ports.map((p) => p.port))], {
        PATH: '/usr/bin:/bin',
      }).stdout,
    ) as { port: number; version: string; devtools: boolean }[];
    expect(probed).toHaveLength(ports.length);
    const info = user.run([
      process.execPath,
      '-e',
      `fetch('${relay.url}/v1/info').then((r) => console.log(r.status))`,
    ]);
    expect(info.stdout.trim()).toBe('200');
    const inspectors = probed
      .filter((p) => p.devtools)
      .map((p) => ({ ...p, command: ports.find((q) => q.port === p.port)?.command.slice(0, 160) }));
    figure('attack-local relay inspector', {
      listeningPorts: ports.length,
      devtoolsAnswers: inspectors.length,
      ports: probed.map((p) => `${p.port}:${p.version.split(' ')[0]}`).join(','),
    });
    expect(inspectors).toEqual([]);
  });
});

describe('cleanup', () => {
  it('the second user is removed afterwards', async () => {
    user.remove();
    await until(() => user.run(['/bin/true']).code !== 0, 'userdel');
    figure('attack-local user', { created: user.name, removed: 'yes' });
  });
});
