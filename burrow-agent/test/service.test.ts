/**
 * install-service / uninstall-service: file contents for systemd and launchd, idempotency, and clear words
 * when there is no user systemd. A fake service-manager runner records calls; the real systemd is never touched.
 */
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchAgentPlist, systemdUnit } from '../src/service/service-files.js';
import { installService, type ServiceEnv, uninstallService } from '../src/service/service-install.js';

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
