/**
 * Issue 27, "Build" bullets 1 and 2: `npm run package` gives an installable Burrow, and the login service
 * follows the installed binary across an upgrade.
 *
 * Two tarballs are packed from this checkout with two versions (`<version>-test.1`, `-test.2`), copied out of
 * it, and installed with the real npm into a temporary prefix; every process of the installed Burrow runs
 * with the repository hidden (tests/helpers/installed-burrow.ts says how). From there: `burrow --version`,
 * `daemon`, `new`, `ls`, `attach` in a real PTY (the shell integration and the vouched Pocket manifest come
 * from the package), `kill`. Then `install-service` writes the unit, which runs under a stand-in user manager
 * (tests/helpers/systemctl-stand-in.ts: `systemctl` on PATH, the unit run by ServiceSupervisor, also with
 * the workspace hidden); `npm install -g` of the newer tarball; `burrow status` warns; `install-service`
 * leaves the unit as it was (its paths do not change on upgrade); `restart-service` asks for --yes while a
 * session runs, then restarts the service into the new version.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackResult, POCKET_MANIFEST, packBurrow } from '../../burrow-agent/packaging/pack.js';
import { loadVouchedBuild } from '../../burrow-agent/src/remote/vouched-build.js';
import { REPO_ROOT } from '../../relay-worker/test/harness.js';
import { until } from '../helpers/burrow-daemon.js';
import {
  assertCanHideWorkspace,
  InstalledBurrow,
  npmInstallGlobal,
  WORKSPACE_VISIBLE_EXIT,
  withoutWorkspace,
} from '../helpers/installed-burrow.js';
import { parseSystemdUnit } from '../helpers/service-supervisor.js';
import { SystemctlStandIn } from '../helpers/systemctl-stand-in.js';

const BASE_VERSION = JSON.parse(readFileSync(join(REPO_ROOT, 'burrow-agent', 'package.json'), 'utf8'))
  .version as string;
const V1 = `${BASE_VERSION}-test.1`;
const V2 = `${BASE_VERSION}-test.2`;
/** systemd's default PATH for user services: the unit must not need the user's PATH to find node or burrow. */
const SYSTEMD_PATH = '/usr/local/bin:/usr/bin:/bin';

interface LsRow {
  id: string;
  name: string;
  state: string;
  command: string | null;
  diedWithDaemon?: boolean;
}
interface StatusJson {
  pid: number;
  version: string;
  program: { root: string; installedVersion: string | null };
  cli: { version: string; root: string };
  upgrade: { installed: string; root: string; running: string } | null;
  sessions: { running: number };
}

let work: string;
let prefix: string;
let home: string;
const packed: PackResult[] = [];
let burrow: InstalledBurrow;
let standIn: SystemctlStandIn | undefined;
const figures: string[] = [];

const packageDir = () => join(prefix, 'lib', 'node_modules', 'burrow-terminal');

/** Every file under `dir` that mentions the repository's path (none may). */
function filesNaming(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (readFileSync(path).includes(needle)) hits.push(path);
  }
  return hits;
}

beforeAll(async () => {
  assertCanHideWorkspace();
  work = mkdtempSync(join(tmpdir(), 'burrow-package-'));
  if (realpathSync(work).startsWith(REPO_ROOT)) throw new Error(`${work} is inside the repository`);
  prefix = join(work, 'prefix');
  home = join(work, 'home');
  mkdirSync(home);
  for (const [i, version] of [V1, V2].entries()) {
    const started = Date.now();
    const r = await packBurrow({
      outDir: join(work, 'packed'),
      stagingDir: join(work, `stage-${i}`),
      version,
    });
    figures.push(`npm run package (${version}): ${Date.now() - started} ms, ${r.size} bytes packed`);
    // The tarball is all that leaves the checkout: copied next to nothing else.
    const copy = join(work, `incoming-${i}`, `burrow-terminal-${version}.tgz`);
    mkdirSync(join(work, `incoming-${i}`));
    cpSync(r.tarball, copy);
    packed.push({ ...r, tarball: copy });
  }
  burrow = new InstalledBurrow(prefix, home);
}, 180_000);

afterAll(async () => {
  await standIn?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
  for (const f of figures) console.log(`[figure] ${f}`);
});

describe('npm run package: an installable Burrow', () => {
  it('packs the bundled agent, the shell integration and the vouched Pocket manifest, nothing else', () => {
    const [p] = packed;
    expect(p!.files).toEqual([
      'README.md',
      'bin/burrow.js',
      'dist/cli/main.js',
      'dist/screen/screen-worker.js',
      'package.json',
      'pocket-build.json',
      'shell-integration/README.md',
      'shell-integration/bash/burrow.bash',
      'shell-integration/fish-data/fish/vendor_conf.d/burrow.fish',
      'shell-integration/zsh/.zlogin',
      'shell-integration/zsh/.zprofile',
      'shell-integration/zsh/.zshenv',
      'shell-integration/zsh/.zshrc',
      'shell-integration/zsh/burrow-hooks.zsh',
    ]);
    const manifest = JSON.parse(
      execFileSync('tar', ['-xOzf', p!.tarball, 'package/package.json'], { encoding: 'utf8' }),
    ) as Record<string, unknown> & { dependencies: Record<string, string> };
    expect(manifest).toMatchObject({
      name: 'burrow-terminal',
      version: V1,
      bin: { burrow: 'bin/burrow.js' },
    });
    expect(manifest.private).toBeUndefined();
    // Workspace packages are inside the bundle, never dependencies; every dependency is pinned exactly.
    expect(Object.keys(manifest.dependencies).filter((d) => d.startsWith('@burrow/'))).toEqual([]);
    expect(manifest.dependencies['node-pty']).toBe('1.1.0');
    for (const v of Object.values(manifest.dependencies)) expect(v).toMatch(/^\d+\.\d+\.\d+$/);
    const shipped = execFileSync('tar', ['-xOzf', p!.tarball, 'package/pocket-build.json'], {
      encoding: 'utf8',
    });
    expect(shipped).toBe(readFileSync(POCKET_MANIFEST, 'utf8'));
  });

  it('installs with npm into a prefix where the workspace does not exist', async () => {
    // The hiding itself is checked: a command that reads the repository sees an empty directory.
    const [unshare, ...probeArgs] = withoutWorkspace(['ls', '-A', REPO_ROOT]) as [string, ...string[]];
    const probe = execFileSync(unshare, probeArgs, { encoding: 'utf8' });
    expect(probe).toBe('');
    expect(existsSync(join(REPO_ROOT, 'package.json'))).toBe(true);

    const r = await npmInstallGlobal(packed[0]!.tarball, prefix, join(work, 'incoming-0'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.code).not.toBe(WORKSPACE_VISIBLE_EXIT);
    figures.push(
      `npm install -g of ${V1} (node-pty compiled, npm cache warm after the first run): ${r.ms} ms`,
    );
    expect(realpathSync(join(prefix, 'bin', 'burrow'))).toBe(join(packageDir(), 'bin', 'burrow.js'));
    // A copy, not a link into the checkout; and no installed file names the checkout.
    expect(realpathSync(packageDir())).toBe(packageDir());
    expect(filesNaming(packageDir(), REPO_ROOT)).toEqual([]);
    expect((await burrow.cli('--version')).stdout).toBe(`burrow ${V1}\n`);
  }, 320_000);

  it('runs daemon, new, ls, attach (in a real terminal) and kill from the installed package', async () => {
    const daemon = await burrow.daemon();
    try {
      const vouched = loadVouchedBuild(POCKET_MANIFEST);
      if (vouched.kind !== 'build') throw new Error(vouched.why);
      // The manifest it vouches for is the package's copy (the checkout's is hidden from it).
      expect(daemon.log()).toContain(`vouching for Pocket build ${vouched.buildId.slice(0, 8)}`);
      expect(daemon.log()).toContain(`burrow daemon ${V1}`);

      const made = await burrow.cli('new', '--name', 'shell');
      expect(made.code, made.stderr).toBe(0);
      const id = made.stdout.trim();
      expect(await burrow.json<LsRow[]>('ls', '--json')).toMatchObject([
        { id, name: 'shell', state: 'running' },
      ]);

      const [file, ...args] = withoutWorkspace(['burrow', 'attach', 'shell']) as [string, ...string[]];
      const term = pty.spawn(file, args, {
        cols: 100,
        rows: 30,
        cwd: home,
        env: burrow.env as Record<string, string>,
      });
      let out = '';
      term.onData((d) => {
        out += d;
      });
      const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
      await until(() => out.includes('\x1b[?1004h'), 'attached', 15_000);
      term.write('echo "[$((40+2))]"\r');
      await until(() => out.includes('[42]'), 'the echo through the installed daemon', 15_000);
      // The shell integration (bash script from the package) reports the running command.
      term.write('sleep 30\r');
      await until(
        async () => (await burrow.json<LsRow[]>('ls', '--json'))[0]?.command === 'sleep 30',
        'the running command reported by the packaged shell integration',
        15_000,
      );
      term.write('\x03');
      term.write('\x02d');
      expect(await exited).toBe(0);
      expect(out).toContain('[detached from shell]');

      const killed = await burrow.cli('kill', id);
      expect(killed.code, killed.stderr).toBe(0);
      await until(
        async () =>
          (await burrow.json<LsRow[]>('ls', '--json')).every((s) => s.id !== id || s.state !== 'running'),
        'the session to end',
      );
    } finally {
      const gone = new Promise((r) => daemon.child.once('exit', r));
      daemon.child.kill('SIGTERM');
      await gone;
    }
    expect(daemon.child.exitCode).toBe(0);
  }, 90_000);
});

describe('the service follows the installed binary across an upgrade', () => {
  const unitPath = () => join(home, '.config', 'systemd', 'user', 'burrow.service');
  const status = () => burrow.json<StatusJson>('status', '--json');

  it('install-service writes a unit that runs the installed burrow by its npm link, and it starts', async () => {
    standIn = await SystemctlStandIn.start(
      unitPath(),
      { HOME: home, PATH: SYSTEMD_PATH, LANG: 'C.UTF-8', SHELL: '/bin/bash' },
      { wrap: withoutWorkspace },
    );
    burrow = burrow.withPathFirst(standIn.binDir);
    const r = await burrow.cli('install-service', '--json');
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { file: string; activated: boolean; notes: string[] };
    expect(result).toMatchObject({ file: 'written', activated: true });
    expect(result.notes.join('\n')).not.toMatch(/warning/);
    const unitText = readFileSync(unitPath(), 'utf8');
    const unit = parseSystemdUnit(unitText);
    // npm's link, which every `npm install -g` re-points: no version in any path, nothing in the checkout.
    expect(unit.execStart).toEqual([process.execPath, join(prefix, 'bin', 'burrow'), 'daemon']);
    expect(unitText).not.toContain(V1);
    expect(unitText).not.toContain(REPO_ROOT);
    expect(standIn.calls).toEqual([
      ['--user', 'daemon-reload'],
      ['--user', 'enable', '--now', 'burrow.service'],
    ]);
    const s = await status();
    expect(s).toMatchObject({
      version: V1,
      program: { root: packageDir(), installedVersion: V1 },
      cli: { version: V1, root: packageDir() },
      upgrade: null,
    });
    expect(s.pid).toBe(standIn.supervisor!.pid);
  }, 60_000);

  it('after npm install -g of a newer Burrow: status warns, the unit stays, restart-service runs the new one', async () => {
    const before = await status();
    const kept = await burrow.cli('new', '--name', 'kept', '--', 'sleep', '600');
    expect(kept.code, kept.stderr).toBe(0);

    const r = await npmInstallGlobal(packed[1]!.tarball, prefix, join(work, 'incoming-1'));
    expect(r.code, r.stderr).toBe(0);
    figures.push(`npm install -g upgrade to ${V2}: ${r.ms} ms`);
    expect((await burrow.cli('--version')).stdout).toBe(`burrow ${V2}\n`);

    // The daemon still runs the old version, and says the new one is installed under it.
    const s = await status();
    expect(s).toMatchObject({
      pid: before.pid,
      version: V1,
      program: { root: packageDir(), installedVersion: V2 },
      upgrade: { installed: V2, running: V1, root: packageDir() },
    });
    const text = await burrow.cli('status');
    expect(text.stdout).toContain(`daemon:     running (pid ${before.pid}`);
    expect(text.stdout).toContain(`version ${V1})`);
    expect(text.stdout).toContain(
      `upgrade:    WARNING: ${V2} is installed (${packageDir()}) but the daemon still runs ${V1}`,
    );

    // install-service again: the same unit (its paths survived the upgrade); it says a restart is due.
    const unitBefore = readFileSync(unitPath(), 'utf8');
    const again = JSON.parse((await burrow.cli('install-service', '--json')).stdout) as {
      file: string;
      notes: string[];
    };
    expect(again.file).toBe('unchanged');
    expect(readFileSync(unitPath(), 'utf8')).toBe(unitBefore);
    expect(again.notes.join('\n')).toContain(`the daemon still runs ${V1}`);
    expect(standIn!.supervisor!.pid).toBe(before.pid);

    // A running session ends with the daemon: restart-service wants --yes.
    const refused = await burrow.cli('restart-service');
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('1 running session');
    expect((await status()).pid).toBe(before.pid);

    standIn!.calls.length = 0;
    const restarted = await burrow.cli('restart-service', '--yes', '--json');
    expect(restarted.code, restarted.stderr).toBe(0);
    const rr = JSON.parse(restarted.stdout) as {
      before: { version: string };
      after: { pid: number; version: string };
    };
    expect(rr).toMatchObject({ restarted: true, before: { version: V1 }, after: { version: V2 } });
    expect(standIn!.calls).toEqual([
      ['--user', 'daemon-reload'],
      ['--user', 'restart', 'burrow.service'],
    ]);
    const after = await status();
    expect(after).toMatchObject({ version: V2, program: { installedVersion: V2 }, upgrade: null });
    expect(after.pid).toBe(standIn!.supervisor!.pid);
    expect(after.pid).not.toBe(before.pid);
    expect((await burrow.cli('status')).stdout).not.toContain('upgrade:');
    // The session ended with the old daemon and is listed as such.
    expect(await burrow.json<LsRow[]>('ls', '--json')).toMatchObject([
      { name: 'kept', state: 'exited', diedWithDaemon: true },
    ]);
  }, 360_000);
});
