/**
 * `install-service`, `uninstall-service`, `restart-service`: the login service that keeps `burrow daemon`
 * running (src/service/), and the step after an upgrade — `npm install -g` a newer Burrow, then
 * `burrow restart-service` — which `burrow status` asks for while the daemon runs an older version.
 */
import type { DaemonStatus } from '../daemon/daemon.js';
import { AGENT_VERSION, isCheckout, PROGRAM_ROOT, programBin } from '../program/program.js';
import {
  installService,
  realRunner,
  restartService,
  type ServiceEnv,
  uninstallService,
} from '../service/service-install.js';
import { resolveServiceTarget } from '../service/service-target.js';
import type { Command, Invocation } from './commands.js';
import { asCliError, connectDaemon } from './daemon-connection.js';
import { CliError, ExitCode } from './exit-codes.js';

/** How long restart-service waits for the restarted daemon to answer. */
export const RESTART_ANSWER_TIMEOUT_MS = 30_000;
const RESTART_POLL_MS = 100;

const json = { json: { type: 'boolean', default: false } } as const;

function out(inv: Invocation, text: string): void {
  inv.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

function serviceEnv(env: NodeJS.ProcessEnv): ServiceEnv {
  const home = env.HOME;
  if (home === undefined || home === '')
    throw new CliError(ExitCode.Failure, 'HOME is not set; cannot find the service directory');
  return { platform: process.platform, HOME: home, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME, run: realRunner };
}

/** The running daemon's status, or null when none answers (any other error is thrown). */
async function daemonStatus(env: NodeJS.ProcessEnv): Promise<DaemonStatus | null> {
  let client: Awaited<ReturnType<typeof connectDaemon>>;
  try {
    client = await connectDaemon(env);
  } catch (err) {
    if (err instanceof CliError && err.exitCode === ExitCode.DaemonNotRunning) return null;
    throw err;
  }
  try {
    return (await client.request('status', {})) as DaemonStatus;
  } catch (err) {
    throw asCliError(err);
  } finally {
    client.close();
  }
}

/** "0.1.0 from /path (pid 12)": which program a daemon runs. */
function daemonText(s: DaemonStatus): string {
  return `${s.version}${s.program === undefined ? '' : ` from ${s.program.root}`} (pid ${s.pid})`;
}

/** Whether `s` runs another program than this CLI (another version, or another install of it). */
function runsOtherProgram(s: DaemonStatus): boolean {
  return s.version !== AGENT_VERSION || (s.program !== undefined && s.program.root !== PROGRAM_ROOT);
}

function sessionsText(n: number): string {
  return n === 1 ? '1 running session' : `${n} running sessions`;
}

export const SERVICE_COMMANDS: readonly Command[] = [
  {
    name: 'install-service',
    summary: 'start the daemon at login (systemd user unit / launchd LaunchAgent)',
    usage: 'burrow install-service [--json]',
    details:
      "The service runs this burrow by a path that stays the same across upgrades (npm's link to it), so\n" +
      'after `npm install -g` of a newer Burrow the unit needs no change: `burrow restart-service` runs it.\n' +
      'Safe to run again: an unchanged unit is left as it is; a daemon already running is not restarted.',
    options: { ...json },
    positionals: [0, 0],
    async run(inv) {
      const env = inv.io.env;
      const { target, warnings } = resolveServiceTarget({
        execPath: process.execPath,
        argv1: process.argv[1],
        cwd: inv.io.cwd,
        PATH: env.PATH,
        root: PROGRAM_ROOT,
        bin: programBin(),
        checkout: isCheckout(),
        stateDir: env.BURROW_STATE_DIR ? env.BURROW_STATE_DIR : null,
      });
      let r: ReturnType<typeof installService>;
      try {
        r = installService(target, serviceEnv(env));
      } catch (err) {
        throw asCliError(err);
      }
      const running = await daemonStatus(env);
      const notes = [...r.notes, ...warnings.map((w) => `warning: ${w}`)];
      if (running !== null && runsOtherProgram(running))
        notes.push(
          `the daemon still runs ${daemonText(running)}; \`burrow restart-service\` runs ${AGENT_VERSION}` +
            ` (it ends the daemon's ${sessionsText(running.sessions.running)})`,
        );
      if (inv.values.json)
        out(
          inv,
          JSON.stringify({
            ...r,
            notes,
            target,
            version: AGENT_VERSION,
            daemon: running === null ? null : { pid: running.pid, version: running.version },
          }),
        );
      else
        out(
          inv,
          [`${r.file} ${r.path}`, `runs:   ${target.node} ${target.script} daemon`, ...notes].join('\n'),
        );
      return r.activated ? ExitCode.Ok : ExitCode.Failure;
    },
  },
  {
    name: 'restart-service',
    summary: 'restart the service so it runs the burrow installed now (after an upgrade)',
    usage: 'burrow restart-service [--yes] [--json]',
    details:
      'Running sessions end with the daemon, so with any running this asks for --yes (coding-agent sessions\n' +
      'come back resumable: `burrow resume`). Waits until the new daemon answers and prints its version.',
    options: { yes: { type: 'boolean', default: false }, ...json },
    positionals: [0, 0],
    async run(inv) {
      const env = inv.io.env;
      const before = await daemonStatus(env);
      if (before !== null && before.sessions.running > 0 && inv.values.yes !== true)
        throw new CliError(
          ExitCode.Conflict,
          `the daemon has ${sessionsText(before.sessions.running)} (\`burrow ls\`), which end when it restarts` +
            ' (a Claude Code, Codex, Gemini CLI or opencode conversation can be resumed afterwards: `burrow resume`);' +
            ' run `burrow restart-service --yes` to restart anyway',
        );
      let r: ReturnType<typeof restartService>;
      try {
        r = restartService(serviceEnv(env));
      } catch (err) {
        throw asCliError(err);
      }
      if (!r.restarted) throw new CliError(ExitCode.Failure, r.notes.join(' '));
      const deadline = Date.now() + RESTART_ANSWER_TIMEOUT_MS;
      let after: DaemonStatus | null = null;
      while (Date.now() < deadline) {
        after = await daemonStatus(env).catch(() => null);
        if (after !== null && after.pid !== before?.pid) break;
        after = null;
        await new Promise((resolve) => setTimeout(resolve, RESTART_POLL_MS));
      }
      if (after === null)
        throw new CliError(
          ExitCode.Failure,
          `${r.notes.join(' ')}, but no new daemon answered within ${RESTART_ANSWER_TIMEOUT_MS / 1000} s` +
            (before === null
              ? ''
              : ` (the old one, pid ${before.pid}, may not have been started by the service)`) +
            `: see ${process.platform === 'darwin' ? '~/Library/Logs/burrow.log' : '`journalctl --user -u burrow.service`'}`,
        );
      if (inv.values.json)
        out(
          inv,
          JSON.stringify({
            ...r,
            before: before === null ? null : { pid: before.pid, version: before.version },
            after: { pid: after.pid, version: after.version },
          }),
        );
      else
        out(
          inv,
          [
            ...r.notes,
            `daemon: ${daemonText(after)}${before === null ? '' : `, was ${daemonText(before)}`}`,
            ...(runsOtherProgram(after)
              ? [`warning: this burrow is ${AGENT_VERSION} from ${PROGRAM_ROOT}`]
              : []),
          ].join('\n'),
        );
      return ExitCode.Ok;
    },
  },
  {
    name: 'uninstall-service',
    summary: 'stop starting the daemon at login',
    usage: 'burrow uninstall-service [--json]',
    options: { ...json },
    positionals: [0, 0],
    async run(inv) {
      let r: ReturnType<typeof uninstallService>;
      try {
        r = uninstallService(serviceEnv(inv.io.env));
      } catch (err) {
        throw asCliError(err);
      }
      out(inv, inv.values.json ? JSON.stringify(r) : r.notes.join('\n'));
      return ExitCode.Ok;
    },
  },
];
