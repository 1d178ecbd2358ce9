/**
 * The login service that keeps `burrow daemon` running: a systemd user unit on Linux, a LaunchAgent on macOS.
 * Both are per-user (no sudo), start at login, and restart the daemon if it fails.
 */
import { join } from 'node:path';

export const SYSTEMD_UNIT_NAME = 'burrow.service';
export const LAUNCHD_LABEL = 'dev.burrow.agent';

export interface ServiceTarget {
  /** Absolute path of the node binary. */
  readonly node: string;
  /** Absolute path of bin/burrow.js. */
  readonly script: string;
  /** BURROW_STATE_DIR to pin, if the user set one. */
  readonly stateDir: string | null;
}

/**
 * Quotes one word for a systemd line (systemd.syntax(7) "Quoting"; `%` is a specifier everywhere). `$` is
 * variable expansion only in ExecStart= (systemd.service(5) "Command lines"); in Environment= it has no
 * special meaning (systemd.exec(5)), so escaping it there would put a literal `$$` into the variable.
 */
function systemdQuote(arg: string, where: 'exec' | 'environment' = 'exec'): string {
  if (/[\0\n]/.test(arg)) throw new RangeError('service arguments cannot contain NUL or newlines');
  const quoted = arg.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  return `"${where === 'exec' ? quoted.replace(/\$/g, '$$$$') : quoted}"`;
}

export function systemdUnitPath(env: { XDG_CONFIG_HOME?: string | undefined; HOME: string }): string {
  const base = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : join(env.HOME, '.config');
  return join(base, 'systemd', 'user', SYSTEMD_UNIT_NAME);
}

export function systemdUnit(t: ServiceTarget): string {
  const lines = [
    '# Written by `burrow install-service`; remove with `burrow uninstall-service`.',
    '[Unit]',
    'Description=Burrow: your terminals, reachable from your phone',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${systemdQuote(t.node)} ${systemdQuote(t.script)} daemon`,
    ...(t.stateDir !== null
      ? [`Environment=${systemdQuote(`BURROW_STATE_DIR=${t.stateDir}`, 'environment')}`]
      : []),
    'Restart=on-failure',
    'RestartSec=5',
    // SIGTERM is the daemon's orderly shutdown; give it time to end its PTYs.
    'KillSignal=SIGTERM',
    'TimeoutStopSec=10',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ];
  return lines.join('\n');
}

export function launchAgentPath(home: string): string {
  return join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function launchAgentPlist(t: ServiceTarget, logPath: string): string {
  const env =
    t.stateDir !== null
      ? `  <key>EnvironmentVariables</key>\n  <dict>\n    <key>BURROW_STATE_DIR</key>\n    <string>${xml(t.stateDir)}</string>\n  </dict>\n`
      : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
    <string>${xml(t.node)}</string>
    <string>${xml(t.script)}</string>
    <string>daemon</string>
  </array>
${env}  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>StandardErrorPath</key>
  <string>${xml(logPath)}</string>
</dict>
</plist>
`;
}
