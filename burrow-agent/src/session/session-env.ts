/**
 * The environment a session starts with (issue 24.3): the environment the user's shell would have had at login,
 * which is the daemon's own, minus what the daemon carries only because of how it was started. A session used
 * to inherit all of it, Burrow's own variables and the enrollment secret included, and a shell started from a
 * phone is no different.
 *
 * Removed (`SESSION_ENV_REMOVED`, exact names; `SESSION_ENV_REMOVED_PREFIXES`, whole families):
 * - `BURROW_*`: Burrow's own — its state directory, the relay enrollment secret `burrow enroll` reads, the
 *   detach key, the development launcher's settings, and the shell-integration plumbing of an enclosing Burrow
 *   session (a daemon started inside a Burrow session). A session gets exactly one back: `BURROW_SESSION`, its
 *   own id, set by the session itself.
 * - The service manager's: systemd's `NOTIFY_SOCKET` (a program holding it could tell systemd the daemon
 *   stopped or changed pid), `LISTEN_*` socket activation, `INVOCATION_ID`, `JOURNAL_STREAM`, `MANAGERPID`,
 *   `SYSTEMD_EXEC_PID`, `WATCHDOG_*`; launchd's `XPC_SERVICE_NAME`, `XPC_FLAGS`.
 * - The terminal the daemon happened to be started from: tmux (`TMUX`, `TMUX_PANE`), screen (`STY`, `WINDOW`),
 *   and emulators' control handles and identities (`KITTY_*`, `WEZTERM_*`, `ALACRITTY_*`, `VSCODE_*`,
 *   `ITERM_SESSION_ID`, `TERM_PROGRAM`, …). A session is Burrow's terminal, not that one: `KITTY_LISTEN_ON`
 *   would let any program in it drive the daemon's original kitty window; `TMUX` makes tmux refuse to start.
 *   `TERM` and `COLORTERM` are set by the session.
 * - npm's, when the daemon runs under `npm start` / `npm run`: `npm_*` (lifecycle data and `npm_config_*`,
 *   which may hold a registry token), `INIT_CWD`, `NODE`, and the `node_modules/.bin` and `node-gyp-bin`
 *   entries npm put at the front of `PATH` (only when `npm_lifecycle_event` shows npm started the daemon).
 *
 * Kept: everything else — `HOME`, `PATH`, `LANG`, `SHELL`, `SSH_AUTH_SOCK`, `DISPLAY`, `DBUS_SESSION_BUS_ADDRESS`,
 * editors, proxies — as the user's login environment has them.
 */

/** Variables removed by exact name. */
export const SESSION_ENV_REMOVED: ReadonlySet<string> = new Set([
  // systemd (systemd.exec(5) "Environment Variables Set or Propagated by the Service Manager")
  'NOTIFY_SOCKET',
  'LISTEN_PID',
  'LISTEN_FDS',
  'LISTEN_FDNAMES',
  'INVOCATION_ID',
  'JOURNAL_STREAM',
  'MANAGERPID',
  'SYSTEMD_EXEC_PID',
  'WATCHDOG_PID',
  'WATCHDOG_USEC',
  // launchd
  'XPC_SERVICE_NAME',
  'XPC_FLAGS',
  // the daemon's own terminal
  'TMUX',
  'TMUX_PANE',
  'STY',
  'WINDOW',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'TERM_SESSION_ID',
  'ITERM_SESSION_ID',
  'ITERM_PROFILE',
  'WT_SESSION',
  'WT_PROFILE_ID',
  'VTE_VERSION',
  'TERMINAL_EMULATOR',
  'GNOME_TERMINAL_SCREEN',
  'GNOME_TERMINAL_SERVICE',
  'KONSOLE_DBUS_SERVICE',
  'KONSOLE_DBUS_SESSION',
  'KONSOLE_DBUS_WINDOW',
  'KONSOLE_VERSION',
  'COLUMNS',
  'LINES',
  // npm run
  'INIT_CWD',
  'NODE',
]);

/** Variables removed by prefix (case-sensitive). */
export const SESSION_ENV_REMOVED_PREFIXES: readonly string[] = [
  'BURROW_',
  'npm_',
  'KITTY_',
  'WEZTERM_',
  'ALACRITTY_',
  'VSCODE_',
];

/** PATH entries npm adds in front for a script (`@npmcli/run-script`): removed when npm started the daemon. */
const NPM_PATH_ENTRY = /(^|\/)(node_modules\/\.bin|node-gyp-bin)\/?$/;

function removed(name: string): boolean {
  return SESSION_ENV_REMOVED.has(name) || SESSION_ENV_REMOVED_PREFIXES.some((p) => name.startsWith(p));
}

/** The session environment for a daemon environment `env` (undefined values dropped; `env` is not changed). */
export function sessionEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !removed(name)) out[name] = value;
  }
  if (env.npm_lifecycle_event !== undefined && out.PATH !== undefined) {
    out.PATH = out.PATH.split(':')
      .filter((entry) => !NPM_PATH_ENTRY.test(entry))
      .join(':');
  }
  return out;
}
