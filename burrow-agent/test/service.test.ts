/**
 * install-service / uninstall-service: file contents for systemd and launchd, idempotency, and clear words
 * when there is no user systemd. A fake service-manager runner records calls; the real systemd is never touched.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCheckout, isNewerVersion, PROGRAM_ROOT, versionOnDisk } from '../src/program/program.js';
import { launchAgentPlist, systemdUnit } from '../src/service/service-files.js';
import {
  installService,
  restartService,
  type ServiceEnv,
  uninstallService,
} from '../src/service/service-install.js';
import { resolveServiceTarget, stableNodePath, stableScriptPath } from '../src/service/service-target.js';

const target = { node: '/usr/bin/node', script: '/opt/burrow/bin/burrow.js', stateDir: null };

function fakeEnv(platform: NodeJS.Platform, systemdWorks: boolean) {
  const home = mkdtempSync(join(tmpdir(), 'bsvc-'));
  const calls: string[] = [];
  const env: ServiceEnv = {
    platform,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'xdg'),
    run: (cmd, args) => {
      calls.push(`${cmd} ${args.join(' ')}`);
      return systemdWorks
        ? { ok: true, output: '' }
        : { ok: false, output: 'Failed to connect to bus: No medium found' };
    },
  };
  return { env, calls, home };
}

describe('systemd user unit', () => {
  it('has ExecStart, Restart=on-failure and WantedBy=default.target; quotes paths', () => {
    const unit = systemdUnit({ ...target, script: '/home/a b/burrow.js', stateDir: '/s/100%' });
    expect(unit).toContain('ExecStart="/usr/bin/node" "/home/a b/burrow.js" daemon');
    expect(unit).toContain('Restart=on-failure');
    expect(unit).toContain('WantedBy=default.target');
    expect(unit).toContain('Environment="BURROW_STATE_DIR=/s/100%%"');
    expect(() => systemdUnit({ ...target, script: 'a\nb' })).toThrow(RangeError);
  });

  it('escapes $ in ExecStart= (variable expansion) but not in Environment= (no expansion there)', () => {
    const unit = systemdUnit({ ...target, script: '/opt/$HOME/burrow.js', stateDir: '/s/$x' });
    expect(unit).toContain('ExecStart="/usr/bin/node" "/opt/$$HOME/burrow.js" daemon');
    expect(unit).toContain('Environment="BURROW_STATE_DIR=/s/$x"');
  });

  it('installs under XDG_CONFIG_HOME, reloads and enables; a second install changes nothing', () => {
    const { env, calls } = fakeEnv('linux', true);
    const r1 = installService(target, env);
    expect(r1).toMatchObject({
      path: join(env.XDG_CONFIG_HOME!, 'systemd', 'user', 'burrow.service'),
      file: 'written',
      activated: true,
    });
    expect(readFileSync(r1.path, 'utf8')).toBe(systemdUnit(target));
    expect(calls).toEqual(['systemctl --user daemon-reload', 'systemctl --user enable --now burrow.service']);
    const r2 = installService(target, env);
    expect(r2.file).toBe('unchanged');
    expect(statSync(r1.path).mode & 0o077).toBe(0);
    const u = uninstallService(env);
    expect(u.file).toBe('removed');
    expect(existsSync(r1.path)).toBe(false);
    expect(calls).toContain('systemctl --user disable --now burrow.service');
    expect(uninstallService(env).file).toBe('absent');
  });

  it('without a user systemd (a container) still writes the unit and says what to do', () => {
    const { env } = fakeEnv('linux', false);
    const r = installService(target, env);
    expect(r.activated).toBe(false);
    expect(existsSync(r.path)).toBe(true);
    expect(r.notes.join('\n')).toMatch(
      /user systemd is not usable here[\s\S]*burrow daemon[\s\S]*enable --now burrow.service/,
    );
  });

  it('falls back to ~/.config without XDG_CONFIG_HOME', () => {
    const { env, home } = fakeEnv('linux', true);
    const r = installService(target, { ...env, XDG_CONFIG_HOME: undefined });
    expect(r.path).toBe(join(home, '.config', 'systemd', 'user', 'burrow.service'));
  });
});

describe('launchd LaunchAgent', () => {
  it('has RunAtLoad and KeepAlive, escapes XML, and installs idempotently', () => {
    const plist = launchAgentPlist({ ...target, stateDir: '/s/<&>' }, '/h/Library/Logs/burrow.log');
    expect(plist).toContain('<key>RunAtLoad</key>\n  <true/>');
    expect(plist).toContain('<key>KeepAlive</key>');
    expect(plist).toContain('<string>/s/&lt;&amp;&gt;</string>');
    const { env, calls, home } = fakeEnv('darwin', true);
    const r = installService(target, env);
    expect(r.path).toBe(join(home, 'Library', 'LaunchAgents', 'dev.burrow.agent.plist'));
    expect(calls.some((c) => c.startsWith('launchctl bootstrap'))).toBe(true);
    expect(installService(target, env).file).toBe('unchanged');
    expect(uninstallService(env).file).toBe('removed');
  });

  it('refuses other platforms with words', () => {
    const { env } = fakeEnv('win32', true);
    expect(() => installService(target, env)).toThrow(/Linux \(systemd\) and macOS/);
  });
});

describe('restart-service', () => {
  it('on Linux reloads the units, then restarts burrow.service', () => {
    const { env, calls } = fakeEnv('linux', true);
    expect(restartService(env)).toMatchObject({ restarted: false });
    expect(restartService(env).notes.join('\n')).toMatch(/run `burrow install-service` first/);
    expect(calls).toEqual([]);
    installService(target, env);
    calls.length = 0;
    expect(restartService(env)).toMatchObject({ restarted: true, notes: ['restarted burrow.service'] });
    expect(calls).toEqual(['systemctl --user daemon-reload', 'systemctl --user restart burrow.service']);
  });

  it('without a user systemd says nothing runs under the service', () => {
    const { env } = fakeEnv('linux', false);
    installService(target, env);
    const r = restartService(env);
    expect(r.restarted).toBe(false);
    expect(r.notes.join(' ')).toMatch(/user systemd is not usable here.*start it again/);
  });

  it('on macOS kickstarts the LaunchAgent (-k kills the running one first)', () => {
    const { env, calls } = fakeEnv('darwin', true);
    installService(target, env);
    calls.length = 0;
    expect(restartService(env).restarted).toBe(true);
    expect(calls).toEqual([`launchctl kickstart -k gui/${process.getuid?.() ?? 0}/dev.burrow.agent`]);
  });
});

/** A fake install: a versioned real Node and a package, reached through links as package managers make them. */
function fakeInstall() {
  const root = mkdtempSync(join(tmpdir(), 'bsvc-paths-'));
  const cellar = join(root, 'Cellar', 'node', '22.3.0', 'bin');
  const pkg = join(root, 'prefix', 'lib', 'node_modules', 'burrow-terminal');
  const binDir = join(root, 'prefix', 'bin');
  for (const dir of [cellar, join(pkg, 'bin'), binDir, join(root, 'other')])
    mkdirSync(dir, { recursive: true });
  writeFileSync(join(cellar, 'node'), '');
  writeFileSync(join(root, 'other', 'node'), '');
  writeFileSync(join(pkg, 'bin', 'burrow.js'), '');
  symlinkSync(join(cellar, 'node'), join(binDir, 'node'));
  symlinkSync('../lib/node_modules/burrow-terminal/bin/burrow.js', join(binDir, 'burrow'));
  return { root, cellar, pkg, binDir };
}

describe('what the service runs', () => {
  it('runs node by the PATH link that points at this node, not by its versioned real path', () => {
    const f = fakeInstall();
    const execPath = join(f.cellar, 'node');
    // A different node earlier on PATH is not this one; the versioned dir itself is only a fallback.
    const PATH = [join(f.root, 'other'), f.cellar, f.binDir, 'relative/dir'].join(':');
    expect(stableNodePath(execPath, PATH)).toBe(join(f.binDir, 'node'));
    expect(stableNodePath(execPath, [join(f.root, 'other'), f.cellar].join(':'))).toBe(execPath);
    expect(stableNodePath(execPath, undefined)).toBe(execPath);
  });

  it("runs burrow by the link the user ran (npm's <prefix>/bin/burrow), else by the package's own bin", () => {
    const f = fakeInstall();
    const bin = join(f.pkg, 'bin', 'burrow.js');
    expect(stableScriptPath(join(f.binDir, 'burrow'), '/', bin)).toBe(join(f.binDir, 'burrow'));
    expect(stableScriptPath('burrow', f.binDir, bin)).toBe(join(f.binDir, 'burrow'));
    expect(stableScriptPath(bin, '/', bin)).toBe(bin);
    // A link to something else, or no argv[1], is not taken.
    expect(stableScriptPath(join(f.root, 'other', 'node'), '/', bin)).toBe(bin);
    expect(stableScriptPath(undefined, '/', bin)).toBe(bin);
  });

  it("warns when the unit would point into a checkout or npx's cache, and not for an installed package", () => {
    const f = fakeInstall();
    const base = {
      execPath: join(f.cellar, 'node'),
      argv1: join(f.binDir, 'burrow'),
      cwd: '/',
      PATH: f.binDir,
      root: f.pkg,
      bin: join(f.pkg, 'bin', 'burrow.js'),
      checkout: false,
      stateDir: null,
    };
    const installed = resolveServiceTarget(base);
    expect(installed).toEqual({
      target: { node: join(f.binDir, 'node'), script: join(f.binDir, 'burrow'), stateDir: null },
      warnings: [],
    });
    expect(resolveServiceTarget({ ...base, checkout: true }).warnings.join(' ')).toMatch(
      /development checkout .*\(README "Install"\)/,
    );
    const npx = join(f.root, '_npx', 'abc', 'node_modules', 'burrow-terminal', 'bin', 'burrow.js');
    const r = resolveServiceTarget({ ...base, argv1: undefined, bin: npx });
    expect(r.warnings.join(' ')).toMatch(/npx's cache.*npm install -g/);
  });
});

describe('the program', () => {
  it('knows its root, version and that this is a checkout', () => {
    expect(versionOnDisk()).toBe(
      JSON.parse(readFileSync(join(PROGRAM_ROOT, 'package.json'), 'utf8')).version,
    );
    expect(isCheckout()).toBe(true);
    expect(versionOnDisk(join(PROGRAM_ROOT, 'no-such-dir'))).toBeNull();
  });

  it('orders versions as semver does, pre-releases included', () => {
    expect(isNewerVersion('0.2.0', '0.1.0')).toBe(true);
    expect(isNewerVersion('0.1.0-test.2', '0.1.0-test.1')).toBe(true);
    expect(isNewerVersion('0.1.0', '0.1.0-rc.1')).toBe(true);
    expect(isNewerVersion('0.1.0-rc.1', '0.1.0')).toBe(false);
    expect(isNewerVersion('0.1.0', '0.1.0')).toBe(false);
    expect(isNewerVersion(null, '0.1.0')).toBe(false);
    expect(isNewerVersion('garbage', '0.1.0')).toBe(false);
    expect(isNewerVersion('0.2.0', 'unknown')).toBe(false);
  });
});
