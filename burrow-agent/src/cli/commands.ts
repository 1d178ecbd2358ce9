/**
 * The `burrow` command table. Each command declares its options for `node:util` parseArgs, its usage line and
 * help text, and whether it prints data (then it takes --json). The remote verbs live in remote-commands.ts,
 * the attention verbs in attention-commands.ts, `setup` in setup-agents/.
 */
import type { ParseArgsConfig } from 'node:util';
import { commandWatchKey } from '../attention/watch-key.js';
import type { StatusResult } from '../control/control-messages.js';
import type { DaemonStatus, startDaemon } from '../daemon/daemon.js';
import { stderrLogger } from '../daemon/logger.js';
import { AGENT_VERSION, isNewerVersion, PROGRAM_ROOT } from '../program/program.js';
import type { SessionInfo } from '../session/session.js';
import { signalName } from '../session/signal-name.js';
import { setupHint } from '../setup-agents/agents.js';
import { setupCommand } from '../setup-agents/setup-command.js';
import { sessionCommandLine } from '../shell-integration/session-command.js';
import type { StorageHealthView } from '../state/storage-health.js';
import { printable, printableJson } from '../text/printable.js';
import { DETACH_KEY_ENV, DETACH_KEY_HELP, type DetachKey, parseDetachKey } from './attach-input.js';
import { ATTENTION_COMMANDS } from './attention-commands.js';
import { asCliError, connectDaemon, NOT_RUNNING_MESSAGE, stateDirOf } from './daemon-connection.js';
import { CliError, ExitCode } from './exit-codes.js';
import { REMOTE_COMMANDS } from './remote-commands.js';
import { SERVICE_COMMANDS } from './service-commands.js';

export interface CliIo {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

export interface Invocation {
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: readonly string[];
  readonly io: CliIo;
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly details?: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** [min, max] positionals. */
  readonly positionals: readonly [number, number];
  run(inv: Invocation): Promise<number>;
}

const json = { json: { type: 'boolean', default: false } } as const;

function out(inv: Invocation, text: string): void {
  inv.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

async function call(inv: Invocation, fn: (c: Awaited<ReturnType<typeof connectDaemon>>) => Promise<unknown>) {
  const client = await connectDaemon(inv.io.env);
  try {
    return await fn(client);
  } catch (err) {
    throw asCliError(err);
  } finally {
    client.close();
  }
}

/** A `list` row: SessionInfo with `status`/`command` taken over by the alert view (daemon/daemon-verbs.ts). */
type ListedSession = Omit<SessionInfo, 'status' | 'command'> & {
  readonly state: SessionInfo['status'];
  readonly argv: SessionInfo['command'];
  readonly status: string | null;
  readonly command: string | null;
  readonly ringing?: boolean;
  readonly todo?: boolean;
  readonly awaited?: boolean;
  readonly watchKey?: string | null;
  readonly notification?: {
    readonly title: string | null;
    readonly body: string | null;
    /** What the screen said when it rang (issue 23). */
    readonly context?: string | null;
  } | null;
  /** Agent recovery (src/recovery/): a restored session `burrow resume` can start again, and on what. */
  readonly resumable?: boolean;
  readonly recovery?: { readonly agent: string; readonly conversation: string } | null;
  /** A session `burrow resume` started: the conversation it resumed (SessionInfo.resumed). */
  readonly resumed?: { readonly agent: string; readonly conversation: string };
};

/** A listed session with every text field shown, never interpreted (printable.ts), for the table. */
function shownSession(s: ListedSession): ListedSession {
  return {
    ...s,
    name: printable(s.name, 64),
    cwd: printable(s.cwd, 256),
    argv: s.argv.map((a) => printable(a, 256)) as ListedSession['argv'],
    status: s.status === null ? null : printable(s.status, 64),
    command: s.command === null ? null : printable(s.command, 256),
  };
}

/**
 * The STATE column: a session that died with the previous daemon says so, not "killed null"; a signal death
 * reads 128 + n with the signal named, as `await` and the ring say it (issue 23).
 */
function stateText(s: ListedSession): string {
  if (s.state === 'running') return s.resumed ? `running (resumed ${resumedCell(s.resumed)})` : 'running';
  if (s.resumable === true && s.recovery) return `resumable (${cell(s.recovery.agent, 16)})`;
  if (s.diedWithDaemon === true) return 'died with daemon';
  const signal = s.signal === null ? null : (signalName(s.signal) ?? `signal ${s.signal}`);
  const code = s.exitCode ?? (s.signal !== null ? 128 + s.signal : null);
  if (code === null) return 'exited';
  return signal === null ? `exited ${code}` : `exited ${code} (${signal})`;
}

/** Characters of a resumed conversation's id the table shows (the whole id is in `ls --json`). */
const CONVERSATION_SHOWN_CHARS = 9;

/** "claude 2e9d4c1a…": the agent and the start of its conversation id. */
function resumedCell(r: { readonly agent: string; readonly conversation: string }): string {
  return `${cell(r.agent, 16)} ${cell(r.conversation, CONVERSATION_SHOWN_CHARS)}`;
}

/** A listed session for `ls --json`: the signal, when one ended it, also by name. */
function withSignalName(s: ListedSession): ListedSession & { readonly signalName: string | null } {
  return { ...s, signalName: s.signal === null ? null : signalName(s.signal) };
}

/** Characters of notification detail shown in the STATUS column. */
const DETAIL_SHOWN_CHARS = 48;

/** Terminal text made one plain line for a table cell (controls and line breaks become spaces), cut to `max`. */
function cell(text: string, max: number): string {
  const chars = Array.from(text.replace(/[\p{Cc}\p{Cf}\s]+/gu, ' ').trim());
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

/** What the watcher shows when nothing is owed (alert-spec Public State), in words. */
const QUIET_STATUS: Readonly<Record<string, string>> = {
  OSC_NOTIF_BUSY: 'progress',
  NOTHING_TO_SHOW: 'watching',
  MIGHT_BE_BUSY: 'watching',
  BUSY: 'watching: busy',
  MIGHT_NEED_ATTENTION: 'watching: going quiet',
  COMMAND_EXIT_ARMED: 'exit will ring',
};

/**
 * The STATUS column (issue 13): what needs you — RINGING or TODO with the notification's detail — else the
 * watcher's state in words, or '-' when nothing watches the session. `awaited` says a script waits on it.
 */
function attentionText(s: ListedSession): string {
  const n = s.notification ?? null;
  const detail =
    n === null ? '' : cell([n.title, n.body, n.context].filter(Boolean).join(': '), DETAIL_SHOWN_CHARS);
  let text: string;
  if (s.ringing === true) text = `RINGING${detail === '' ? '' : ` ${detail}`}`;
  else if (s.todo === true) text = `TODO${detail === '' ? '' : ` ${detail}`}`;
  else text = (s.status !== null && QUIET_STATUS[s.status]) || '-';
  if (s.watchKey && text.startsWith('watching')) text += ` (${cell(s.watchKey, 24)})`;
  return s.awaited === true ? `${text} [awaited]` : text;
}

/** Ringing first, then TODO, then the rest; oldest first within each. */
function needsYouFirst(a: ListedSession, b: ListedSession): number {
  const rank = (s: ListedSession) => (s.ringing === true ? 0 : s.todo === true ? 1 : 2);
  return rank(a) - rank(b) || a.createdAt - b.createdAt;
}

function sessionTable(sessions: readonly ListedSession[]): string {
  if (sessions.length === 0) return 'no sessions; start one with `burrow new`';
  const rows = [...sessions]
    .sort(needsYouFirst)
    .map((s) => [
      s.id,
      cell(s.name, 64),
      stateText(s),
      attentionText(s),
      String(s.viewers),
      cell(s.argv.join(' '), 120),
    ]);
  const all = [['ID', 'NAME', 'STATE', 'STATUS', 'VIEWERS', 'COMMAND'], ...rows];
  const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

/** `storage:` in `burrow status`: "writable", or what is wrong since when and what to do. */
function storageLines(h: StorageHealthView): string[] {
  if (h.ok) return [`storage:    ${h.text}`];
  const since = h.since === null ? '' : ` since ${new Date(h.since).toISOString()}`;
  return [`storage:    PROBLEM${since}: ${h.text}`, `            what to do: ${h.advice}`];
}

/** A newer Burrow installed than the daemon runs: its own package on disk (upgraded under it), or this CLI. */
interface UpgradeWaiting {
  readonly installed: string;
  readonly root: string;
  readonly running: string;
}

function upgradeWaiting(s: StatusResult & Partial<Pick<DaemonStatus, 'program'>>): UpgradeWaiting | null {
  const onDisk = s.program?.installedVersion ?? null;
  if (s.program !== undefined && onDisk !== null && isNewerVersion(onDisk, s.version))
    return { installed: onDisk, root: s.program.root, running: s.version };
  if (isNewerVersion(AGENT_VERSION, s.version))
    return { installed: AGENT_VERSION, root: PROGRAM_ROOT, running: s.version };
  return null;
}

function runningSessions(n: number): string {
  return n === 1 ? 'the 1 running session' : `the ${n} running sessions`;
}

/** `program:` (where the daemon runs from), the upgrade warning, and this CLI when it is another program. */
function programLines(s: StatusResult & Partial<Pick<DaemonStatus, 'program'>>, up: UpgradeWaiting | null) {
  const lines = s.program === undefined ? [] : [`program:    ${s.program.root}`];
  if (up !== null)
    lines.push(
      `upgrade:    WARNING: ${up.installed} is installed (${up.root}) but the daemon still runs ${up.running};`,
      `            \`burrow restart-service\` runs it (${runningSessions(s.sessions.running)} end with the old daemon)`,
    );
  else if (s.version !== AGENT_VERSION || (s.program !== undefined && s.program.root !== PROGRAM_ROOT))
    lines.push(`this CLI:   ${AGENT_VERSION} from ${PROGRAM_ROOT}`);
  return lines;
}

function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return d > 0 ? `${d}d ${h}h` : h > 0 ? `${h}h ${m}m` : m > 0 ? `${m}m ${s % 60}s` : `${s}s`;
}

/** `burrow status`'s direct-path line: the policy, and how many connections each path carries. */
function directLine(d: NonNullable<StatusResult['direct']>): string {
  if (d.policy === 'off') return 'direct:     off (burrow settings set direct allowed)';
  const direct = d.connections.filter((c) => c.path === 'direct').length;
  const relayless = d.connections.filter((c) => !c.relay).length;
  return `direct:     allowed; ${direct} of ${d.connections.length} connections direct${relayless ? `, ${relayless} without the relay` : ''}`;
}

export const COMMANDS: readonly Command[] = [
  {
    name: 'daemon',
    summary: 'run the Burrow daemon in the foreground (for a service manager)',
    usage: 'burrow daemon',
    details: 'Logs to stderr. SIGTERM or SIGINT shuts down cleanly: viewers are closed, sessions ended.',
    options: {},
    positionals: [0, 0],
    async run(inv) {
      const log = stderrLogger(inv.io.stderr);
      // Loaded here, not at the top: every other command is a short-lived client that never needs the
      // daemon's modules (xterm, node-pty, the attention engine, the remote stack); loading them made each
      // `burrow ls` cost ~0.4 s of CPU instead of ~0.1 s.
      const { startDaemon } = await import('../daemon/daemon.js');
      const { DaemonRunningError } = await import('../control/control-server.js');
      let daemon: Awaited<ReturnType<typeof startDaemon>>;
      try {
        daemon = await startDaemon({ stateDir: stateDirOf(inv.io.env), env: inv.io.env, log });
      } catch (err) {
        if (err instanceof DaemonRunningError) throw new CliError(ExitCode.Conflict, err.message);
        throw asCliError(err);
      }
      await new Promise<void>((resolve) => {
        const onSignal = (sig: NodeJS.Signals) => {
          log('info', `received ${sig}`);
          process.off('SIGTERM', onSignal);
          process.off('SIGINT', onSignal);
          void daemon.stop().then(resolve);
        };
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
      });
      return ExitCode.Ok;
    },
  },
  {
    name: 'new',
    summary: 'start a session',
    usage: 'burrow new [--name NAME] [--cwd DIR] [--json] [-- COMMAND [ARG…]]',
    details:
      'Without a command, runs your shell. With one, the session runs it as its command: `burrow await`,\n' +
      'WATCHING rules and exit alerts treat it as a command typed into a shell. Prints the new session id;\n' +
      '--json prints the session as `burrow ls --json` lists it.',
    options: { name: { type: 'string' }, cwd: { type: 'string' }, ...json },
    positionals: [0, Number.POSITIVE_INFINITY],
    async run(inv) {
      const cols = inv.io.stdout.isTTY ? inv.io.stdout.columns : undefined;
      const rows = inv.io.stdout.isTTY ? inv.io.stdout.rows : undefined;
      const r = (await call(inv, (c) =>
        c.request('create', {
          command: [...inv.positionals],
          cwd: typeof inv.values.cwd === 'string' ? inv.values.cwd : inv.io.cwd,
          ...(typeof inv.values.name === 'string' ? { name: inv.values.name } : {}),
          ...(cols !== undefined && rows !== undefined ? { cols, rows } : {}),
        }),
      )) as { session: SessionInfo };
      out(inv, inv.values.json ? printableJson(r.session) : r.session.id);
      // A coding agent that is not set up to notify with words: one line on stderr saying what would (issue 23).
      const line = sessionCommandLine(inv.positionals);
      const hint = setupHint(line === null ? null : commandWatchKey(line), inv.io.env, inv.io.env.HOME ?? '');
      if (hint !== null) inv.io.stderr.write(`${hint}\n`);
      return ExitCode.Ok;
    },
  },
  {
    name: 'ls',
    summary: 'list sessions',
    usage: 'burrow ls [--json]',
    details:
      'Sessions that need you come first: RINGING, then TODO, each with its notification. --json gives\n' +
      'every field: state (running/exited), status (the attention status), command and watchKey (the\n' +
      'running command and the key WATCHING rules match), argv (what the session was started with),\n' +
      'engaged (someone present is looking at it), exitCode with signal and signalName for a signal death.',
    options: { ...json },
    positionals: [0, 0],
    async run(inv) {
      const r = (await call(inv, (c) => c.request('list', {}))) as { sessions: ListedSession[] };
      // Names, command lines and titles come from phones and from session output (printable.ts).
      out(
        inv,
        inv.values.json
          ? printableJson(r.sessions.map(withSignalName))
          : sessionTable(r.sessions.map(shownSession)),
      );
      return ExitCode.Ok;
    },
  },
  {
    name: 'attach',
    summary: 'attach this terminal to a session',
    usage: 'burrow attach SESSION [--detach-key ctrl-X]',
    details:
      `Detach with ${DETACH_KEY_HELP} (twice the prefix sends it once). --detach-key, or $${DETACH_KEY_ENV}, picks\n` +
      "another prefix (e.g. ctrl-a when Ctrl-B is tmux's); attaching says which. Attaching makes the session\n" +
      "this terminal's size; when another viewer (your phone) takes it, the prefix then f takes it back. A\n" +
      'session of another size than this terminal is shown clipped, with a line saying who sized it.',
    options: { 'detach-key': { type: 'string' } },
    positionals: [1, 1],
    async run(inv) {
      const opt = inv.values['detach-key'];
      const spec = typeof opt === 'string' ? opt : inv.io.env[DETACH_KEY_ENV] || undefined;
      let detach: DetachKey | undefined;
      try {
        detach = spec === undefined ? undefined : parseDetachKey(spec);
      } catch (err) {
        const from = typeof opt === 'string' ? '--detach-key' : `$${DETACH_KEY_ENV}`;
        throw new CliError(ExitCode.Usage, `${from}: ${(err as Error).message}`);
      }
      try {
        // Loaded on use: attach's local terminal model (@xterm/headless) is for this command only.
        const { runAttach } = await import('./attach-command.js');
        return await runAttach(inv.positionals[0]!, inv.io, detach);
      } catch (err) {
        throw asCliError(err);
      }
    },
  },
  {
    name: 'kill',
    summary: 'end a session (or clear an exited one from the list)',
    usage: 'burrow kill SESSION [--json]',
    options: { ...json },
    positionals: [1, 1],
    async run(inv) {
      const r = (await call(inv, (c) => c.request('kill', { session: inv.positionals[0]! }))) as {
        session: SessionInfo;
      };
      out(
        inv,
        inv.values.json
          ? printableJson(r.session)
          : `killed ${r.session.id} (${printable(r.session.name, 64)})`,
      );
      return ExitCode.Ok;
    },
  },
  {
    name: 'resume',
    summary: "start a resumable session's coding agent on its conversation again",
    usage: 'burrow resume SESSION [--json]',
    details:
      'A session that ran Claude Code, Codex, Gemini CLI or opencode when the daemon stopped is listed as\n' +
      '"resumable": this starts the agent on the same conversation, in the same directory, under the same\n' +
      'name and id. Its first line says which conversation. If the directory, the agent or the conversation\n' +
      'is gone, nothing starts and the session stays listed (exit code 1). `burrow settings set\n' +
      'resumeAgentsAtStart true` makes the daemon do this for every resumable session when it starts.',
    options: { ...json },
    positionals: [1, 1],
    async run(inv) {
      const r = (await call(inv, (c) => c.request('resume', { session: inv.positionals[0]! }))) as {
        session: ListedSession;
      };
      const what = r.session.recovery
        ? ` (${r.session.recovery.agent} conversation ${r.session.recovery.conversation})`
        : '';
      out(
        inv,
        inv.values.json
          ? printableJson(r.session)
          : `resumed ${r.session.id} (${printable(r.session.name, 64)})${printable(what, 200)}; \`burrow attach ${r.session.id}\` to see it`,
      );
      return ExitCode.Ok;
    },
  },
  {
    name: 'rename',
    summary: 'rename a session',
    usage: 'burrow rename SESSION NAME [--json]',
    options: { ...json },
    positionals: [2, 2],
    async run(inv) {
      const [session, name] = inv.positionals as [string, string];
      const r = (await call(inv, (c) => c.request('rename', { session, name }))) as { session: SessionInfo };
      out(
        inv,
        inv.values.json
          ? printableJson(r.session)
          : `${r.session.id} is now "${printable(r.session.name, 64)}"`,
      );
      return ExitCode.Ok;
    },
  },
  {
    name: 'status',
    summary: 'is the daemon running, and how is it',
    usage: 'burrow status [--json]',
    details:
      'Says which version the daemon runs and from where, and warns when a newer Burrow is installed than the\n' +
      'daemon runs (after `npm install -g`; `burrow restart-service` switches). --json: `upgrade` is then\n' +
      '{installed, root, running}, else null; `cli` is this burrow. Exit code 3 when the daemon is not running.',
    options: { ...json },
    positionals: [0, 0],
    async run(inv) {
      // `storage` and `program` are absent only from a daemon older than this CLI.
      let s: StatusResult & Partial<Pick<DaemonStatus, 'storage' | 'program'>>;
      try {
        s = (await call(inv, (c) => c.request('status', {}))) as typeof s;
      } catch (err) {
        const e = asCliError(err);
        if (e.exitCode === ExitCode.DaemonNotRunning && inv.values.json) {
          out(inv, JSON.stringify({ running: false }));
          return ExitCode.DaemonNotRunning;
        }
        throw e;
      }
      const upgrade = upgradeWaiting(s);
      if (inv.values.json) {
        const cli = { version: AGENT_VERSION, root: PROGRAM_ROOT };
        out(inv, printableJson({ running: true, ...s, cli, upgrade }));
        return ExitCode.Ok;
      }
      out(
        inv,
        [
          `daemon:     running (pid ${s.pid}, up ${duration(s.uptimeMs)}, version ${s.version})`,
          ...programLines(s, upgrade),
          `state:      ${s.stateDir}`,
          ...(s.storage === undefined ? [] : storageLines(s.storage)),
          `sessions:   ${s.sessions.running} running, ${s.sessions.exited} exited`,
          // The relay's words and its URL reach here from the network (printable.ts).
          `relay:      ${printable(s.relay.text, 512)}`,
          `enrollment: ${s.enrollment.enrolled ? `enrolled at ${printable(String(s.enrollment.relayUrl), 256)} as ${printable(String(s.enrollment.burrowId), 64)}` : 'not enrolled'}`,
          `devices:    ${s.devices.paired} paired, ${s.devices.connected} connected`,
          ...(s.direct === undefined ? [] : [directLine(s.direct)]),
          `push:       ${s.push.last === null ? 'none sent yet' : `last ${s.push.last.reason} push ${s.push.last.outcome} (${s.push.last.delivered}/${s.push.last.targets}) at ${new Date(s.push.last.at).toISOString()}`}`,
          ...s.push.warnings.map(
            (w) => `  warning ${new Date(w.at).toISOString()}: ${printable(w.text, 512)}`,
          ),
        ].join('\n'),
      );
      return ExitCode.Ok;
    },
  },
  ...SERVICE_COMMANDS,
  ...REMOTE_COMMANDS,
  ...ATTENTION_COMMANDS,
  setupCommand,
];

export { NOT_RUNNING_MESSAGE };
