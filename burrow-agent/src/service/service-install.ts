/**
 * `burrow install-service` / `uninstall-service` / `restart-service`: write (or remove) the per-user service
 * file, then ask the service manager to load it when one is usable; restart it after an upgrade. Idempotent: installing twice leaves one identical file.
 * Without a usable user systemd (containers, WSL without systemd) the file is still written and the result
 * says in words what to run by hand.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../state/atomic-file.js';
import {
  LAUNCHD_LABEL,
  launchAgentPath,
  launchAgentPlist,
  type ServiceTarget,
  SYSTEMD_UNIT_NAME,
  systemdUnit,
  systemdUnitPath,
} from './service-files.js';

export interface ServiceEnv {
  readonly platform: NodeJS.Platform;
  readonly HOME: string;
  readonly XDG_CONFIG_HOME?: string | undefined;
  /** Runs a service-manager command; injected so tests never touch the real systemd. */
  readonly run: (cmd: string, args: readonly string[]) => { ok: boolean; output: string };
}

export interface ServiceResult {
  readonly path: string;
  /** 'written' | 'unchanged' on install; 'removed' | 'absent' on uninstall. */
  readonly file: 'written' | 'unchanged' | 'removed' | 'absent';
  /** Whether the service manager accepted the change. */
  readonly activated: boolean;
  /** What happened / what to do, in words. */
  readonly notes: readonly string[];
}

export function realRunner(cmd: string, args: readonly string[]): { ok: boolean; output: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 15_000 });
  if (r.error !== undefined) return { ok: false, output: r.error.message };
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

function servicePath(env: ServiceEnv): string {
  if (env.platform === 'linux') return systemdUnitPath(env);
  if (env.platform === 'darwin') return launchAgentPath(env.HOME);
  throw new RangeError(`install-service supports Linux (systemd) and macOS (launchd), not ${env.platform}`);
}

export function installService(target: ServiceTarget, env: ServiceEnv): ServiceResult {
  const path = servicePath(env);
  const content =
    env.platform === 'linux'
      ? systemdUnit(target)
      : launchAgentPlist(target, join(env.HOME, 'Library', 'Logs', 'burrow.log'));
  const same = existsSync(path) && readFileSync(path, 'utf8') === content;
  if (!same) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileAtomic(path, content);
  }
  const notes: string[] = [];
  let activated: boolean;
  if (env.platform === 'linux') {
    const reload = env.run('systemctl', ['--user', 'daemon-reload']);
    if (!reload.ok) {
      activated = false;
      notes.push(
        `wrote ${path}, but user systemd is not usable here (${reload.output || 'systemctl failed'}).`,
        'Start the daemon another way (`burrow daemon`), or on a systemd machine run:',
        `  systemctl --user daemon-reload && systemctl --user enable --now ${SYSTEMD_UNIT_NAME}`,
      );
    } else {
      const enable = env.run('systemctl', ['--user', 'enable', '--now', SYSTEMD_UNIT_NAME]);
      activated = enable.ok;
      notes.push(
        enable.ok
          ? `enabled and started ${SYSTEMD_UNIT_NAME}; it starts at login and restarts on failure`
          : `wrote ${path} but \`systemctl --user enable --now ${SYSTEMD_UNIT_NAME}\` failed: ${enable.output}`,
      );
      if (enable.ok) notes.push('to keep it running while logged out: `loginctl enable-linger`');
    }
  } else {
    // bootout first so a changed plist is reloaded; its failure just means it was not loaded.
    env.run('launchctl', ['bootout', `gui/${process.getuid?.() ?? 0}/${LAUNCHD_LABEL}`]);
    const boot = env.run('launchctl', ['bootstrap', `gui/${process.getuid?.() ?? 0}`, path]);
    activated = boot.ok;
    notes.push(
      boot.ok
        ? `loaded ${LAUNCHD_LABEL}; it starts at login and restarts on failure`
        : `wrote ${path} but launchctl bootstrap failed: ${boot.output}`,
    );
  }
  return { path, file: same ? 'unchanged' : 'written', activated, notes };
}

export function uninstallService(env: ServiceEnv): ServiceResult {
  const path = servicePath(env);
  const present = existsSync(path);
  const notes: string[] = [];
  let activated = false;
  if (env.platform === 'linux') {
    const disable = env.run('systemctl', ['--user', 'disable', '--now', SYSTEMD_UNIT_NAME]);
    activated = disable.ok;
    if (present) unlinkSync(path);
    const reload = env.run('systemctl', ['--user', 'daemon-reload']);
    if (!reload.ok) notes.push('user systemd is not usable here; nothing was running under it');
  } else {
    activated = env.run('launchctl', ['bootout', `gui/${process.getuid?.() ?? 0}/${LAUNCHD_LABEL}`]).ok;
    if (present) unlinkSync(path);
  }
  notes.push(present ? `removed ${path}` : `no service file at ${path}; nothing to remove`);
  return { path, file: present ? 'removed' : 'absent', activated, notes };
}

export interface RestartResult {
  readonly path: string;
  /** Whether the service manager restarted the service. */
  readonly restarted: boolean;
  readonly notes: readonly string[];
}

/**
 * Restarts the service so it runs the program installed now (after `npm install -g` of a newer Burrow): on
 * Linux `daemon-reload` first, so a unit `install-service` rewrote is the one started, then `restart` (stop
 * with KillSignal=, wait, start); on macOS `launchctl kickstart -k`. The daemon's running sessions end.
 */
export function restartService(env: ServiceEnv): RestartResult {
  const path = servicePath(env);
  if (!existsSync(path))
    return {
      path,
      restarted: false,
      notes: [`no service file at ${path}: run \`burrow install-service\` first`],
    };
  if (env.platform === 'linux') {
    const reload = env.run('systemctl', ['--user', 'daemon-reload']);
    if (!reload.ok)
      return {
        path,
        restarted: false,
        notes: [
          `user systemd is not usable here (${reload.output || 'systemctl failed'}): nothing runs under the service;`,
          'stop the daemon you started (Ctrl-C or SIGTERM to `burrow daemon`) and start it again.',
        ],
      };
    const restart = env.run('systemctl', ['--user', 'restart', SYSTEMD_UNIT_NAME]);
    return {
      path,
      restarted: restart.ok,
      notes: [
        restart.ok
          ? `restarted ${SYSTEMD_UNIT_NAME}`
          : `\`systemctl --user restart ${SYSTEMD_UNIT_NAME}\` failed: ${restart.output}`,
      ],
    };
  }
  const kick = env.run('launchctl', ['kickstart', '-k', `gui/${process.getuid?.() ?? 0}/${LAUNCHD_LABEL}`]);
  return {
    path,
    restarted: kick.ok,
    notes: [
      kick.ok
        ? `restarted ${LAUNCHD_LABEL}`
        : `launchctl kickstart failed (${kick.output}); \`burrow install-service\` loads the LaunchAgent again`,
    ],
  };
}
