/**
 * `burrow await`, `watch`, `unwatch`, `todo`, `dismiss` and `settings` (DESIGN §5, alert-spec): the attention
 * engine's verbs, answered by the daemon's attention host over the control socket.
 */
import type { AwaitCause } from '../attention/awaits.js';
import { ALERT_SETTINGS_RANGES, type AlertSettings } from '../attention/settings.js';
import { MAX_AWAIT_MS } from '../control/control-messages.js';
import { printable, printableJson } from '../text/printable.js';
import { DEFAULT_AWAIT_TIMEOUT_S, parseAwaitArgs } from './await-args.js';
import type { Command, Invocation } from './commands.js';
import { asCliError, connectDaemon } from './daemon-connection.js';
import { CliError, ExitCode } from './exit-codes.js';
import { type WatchableSession, type WatchTarget, watchTarget } from './watch-target.js';

const json = { json: { type: 'boolean', default: false } } as const;

/** What the daemon answers to `await` (daemon/daemon-verbs.ts). */
export interface AwaitAnswer {
  readonly session: string;
  readonly cause: AwaitCause;
  /** For `exit` and `died`: the command's exit code (a signal as 128 + n), null when unknown. */
  readonly exitCode?: number | null;
  /** For `exit` and `died`: the command line that ended, when known. */
  readonly command?: string | null;
}

/** Characters of a command line shown in the human output. */
const COMMAND_SHOWN_CHARS = 80;

/**
 * `burrow await`'s exit code (issue 13: `burrow await x --until exit && deploy`):
 * - quiet, bell, idle: the awaited thing happened — 0;
 * - exit (and, under --until exit, died: the session's process was what ended): 0 when the exit code is 0,
 *   else ExitCode.CommandFailed (7) — failed, killed, or no code reported;
 * - timeout, cancelled, and died under --until quiet: ExitCode.Failure (1).
 */
export function awaitExitCode(r: AwaitAnswer, until: 'quiet' | 'exit'): ExitCode {
  switch (r.cause) {
    case 'quiet':
    case 'bell':
    case 'idle':
      return ExitCode.Ok;
    case 'died':
      if (until !== 'exit') return ExitCode.Failure;
      return r.exitCode === 0 ? ExitCode.Ok : ExitCode.CommandFailed;
    case 'exit':
      return r.exitCode === 0 ? ExitCode.Ok : ExitCode.CommandFailed;
    default:
      return ExitCode.Failure;
  }
}

/** One line for people: the cause, and for an exit its code and command (`exit 3: make test`). */
export function awaitText(r: AwaitAnswer): string {
  if (r.cause !== 'exit' && r.cause !== 'died') return r.cause;
  const code = r.exitCode === undefined || r.exitCode === null ? 'code unknown' : `code ${r.exitCode}`;
  const flat = (r.command ?? '').replace(/[\p{Cc}\p{Cf}\s]+/gu, ' ').trim();
  const chars = Array.from(flat);
  const shown =
    chars.length > COMMAND_SHOWN_CHARS ? `${chars.slice(0, COMMAND_SHOWN_CHARS - 1).join('')}…` : flat;
  return `${r.cause} (${code})${shown === '' ? '' : `: ${shown}`}`;
}

function print(inv: Invocation, text: string): void {
  inv.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

async function call<T>(
  inv: Invocation,
  fn: (c: Awaited<ReturnType<typeof connectDaemon>>) => Promise<unknown>,
) {
  const client = await connectDaemon(inv.io.env);
  try {
    return (await fn(client)) as T;
  } catch (err) {
    throw asCliError(err);
  } finally {
    client.close();
  }
}

/** `true`/`false`, or a number; settings values are nothing else. */
export function parseSettingValue(raw: string): boolean | number {
  if (raw === 'true' || raw === 'on') return true;
  if (raw === 'false' || raw === 'off') return false;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n))
    throw new CliError(ExitCode.Usage, `not a boolean or number: ${raw}`);
  return n;
}

const rangeText = (k: keyof typeof ALERT_SETTINGS_RANGES) =>
  `${ALERT_SETTINGS_RANGES[k].min}…${ALERT_SETTINGS_RANGES[k].max} ms`;

/** The network policy as the daemon answers it (protocol NetworkPolicy). */
interface NetworkPolicyView {
  readonly direct: 'allowed' | 'off';
  readonly iceServers: readonly {
    readonly url: string;
    readonly username?: string;
    readonly credential?: string;
  }[];
}

const NETWORK_KEYS = ['direct', 'iceServers'] as const;
function isNetworkKey(key: string): key is (typeof NETWORK_KEYS)[number] {
  return (NETWORK_KEYS as readonly string[]).includes(key);
}

/** `set direct allowed|off`, `set iceServers none | stun:a,stun:b | [{"url":…}]` (validated by the daemon). */
export function networkPatch(key: 'direct' | 'iceServers', value: string): Partial<NetworkPolicyView> {
  if (key === 'direct') {
    if (value !== 'allowed' && value !== 'off')
      throw new CliError(ExitCode.Usage, 'direct takes allowed or off');
    return { direct: value };
  }
  const text = value.trim();
  if (text === 'none' || text === '') return { iceServers: [] };
  if (text.startsWith('[')) {
    try {
      return { iceServers: JSON.parse(text) as NetworkPolicyView['iceServers'] };
    } catch {
      throw new CliError(ExitCode.Usage, 'iceServers: not a JSON array');
    }
  }
  return { iceServers: text.split(',').map((url) => ({ url: url.trim() })) };
}

async function alarmSettings(inv: Invocation): Promise<AlertSettings> {
  return (await call<{ settings: AlertSettings }>(inv, (c) => c.request('settings-get', {}))).settings;
}

/** The daemon's network policy; null from a daemon that predates it. */
async function networkPolicy(inv: Invocation): Promise<NetworkPolicyView | null> {
  try {
    return (await call<{ policy: NetworkPolicyView }>(inv, (c) => c.request('network-policy-get', {})))
      .policy;
  } catch (error) {
    if (error instanceof CliError && /unknown method|network-policy-get/.test(error.message)) return null;
    throw error;
  }
}

/** One setting for people; TURN credentials are never printed (`--json` has them, for scripts). */
function settingText(key: string, value: unknown): string {
  if (key !== 'iceServers') return String(value);
  const servers = value as NetworkPolicyView['iceServers'];
  if (servers.length === 0) return 'none (no STUN or TURN server is contacted)';
  return servers.map((s) => (s.username ? `${s.url} (user ${s.username})` : s.url)).join(', ');
}

function settingsText(s: Record<string, unknown>): string {
  return Object.entries(s)
    .map(([k, v]) => printable(`${k} = ${settingText(k, v)}`, 1024))
    .join('\n');
}

export const ATTENTION_COMMANDS: readonly Command[] = [
  {
    name: 'await',
    summary: 'wait until a session goes quiet or its command exits; print why it ended',
    usage: 'burrow await SESSION --until quiet|exit [--timeout SECONDS] [--json]',
    details:
      'Prints the cause: quiet, bell, idle (the thing happened: exit 0); exit (the command ended: exit 0\n' +
      'if its exit code was 0, else 7), with its exit code and command; died (the session ended: as exit\n' +
      'with --until exit, else 1); timeout, cancelled (exit 1). --json adds exitCode and command.\n' +
      'A session started as `burrow new -- CMD` is awaited as CMD, like a command typed into a shell.\n' +
      `Default timeout ${DEFAULT_AWAIT_TIMEOUT_S} s, at most ${MAX_AWAIT_MS / 1000} s.`,
    options: { until: { type: 'string' }, timeout: { type: 'string' }, ...json },
    positionals: [1, 1],
    async run(inv) {
      const { until, timeoutMs } = parseAwaitArgs(inv.values);
      const r = await call<AwaitAnswer>(inv, (c) =>
        c.request('await', { session: inv.positionals[0]!, until, timeoutMs }),
      );
      const answer = { ...r, exitCode: r.exitCode ?? null, command: r.command ?? null };
      print(inv, inv.values.json ? printableJson(answer) : printable(awaitText(answer)));
      return awaitExitCode(answer, until);
    },
  },
  {
    name: 'watch',
    summary: 'ring when a command of this kind goes quiet (a WATCHING rule); --list shows them',
    usage: 'burrow watch KEY|SESSION | burrow watch --list [--json]',
    details:
      'KEY is a command name as `burrow ls --json` shows it in watchKey (e.g. claude, codex); a SESSION name\n' +
      'or id means the command that session runs now. Rules are per command, never per session.',
    options: { list: { type: 'boolean', default: false }, ...json },
    positionals: [0, 1],
    async run(inv) {
      const arg = inv.positionals[0];
      if ((arg === undefined) === (inv.values.list !== true))
        throw new CliError(ExitCode.Usage, 'usage: burrow watch KEY|SESSION | burrow watch --list');
      let target: WatchTarget | null = null;
      const r = await call<{ rules: string[] }>(inv, async (c) => {
        if (arg === undefined) return c.request('watch-list', {});
        const listed = (await c.request('list', {})) as { sessions: WatchableSession[] };
        target = watchTarget(arg, listed.sessions);
        return c.request('watch-add', { key: target.key });
      });
      if (inv.values.json) print(inv, printableJson(r.rules));
      else {
        const t = target as WatchTarget | null;
        const note =
          t === null
            ? []
            : [
                `watching ${printable(t.key, 128)}${t.session === null ? '' : ` (what ${printable(t.session, 64)} runs)`}`,
              ];
        print(inv, [...note, ...r.rules.map((k) => printable(k, 128))].join('\n') || 'no WATCHING rules');
      }
      return ExitCode.Ok;
    },
  },
  {
    name: 'unwatch',
    summary: 'remove a WATCHING rule',
    usage: 'burrow unwatch KEY [--json]',
    options: { ...json },
    positionals: [1, 1],
    async run(inv) {
      const r = await call<{ rules: string[] }>(inv, (c) =>
        c.request('watch-remove', { key: inv.positionals[0]! }),
      );
      print(
        inv,
        inv.values.json
          ? printableJson(r.rules)
          : r.rules.map((k) => printable(k, 128)).join('\n') || 'no WATCHING rules',
      );
      return ExitCode.Ok;
    },
  },
  {
    name: 'todo',
    summary: "mark a session TODO (it stays in the phone's list until cleared), or clear it",
    usage: 'burrow todo SESSION on|off|toggle [--json]',
    options: { ...json },
    positionals: [2, 2],
    async run(inv) {
      const [session, action] = inv.positionals as [string, string];
      if (action !== 'on' && action !== 'off' && action !== 'toggle')
        throw new CliError(ExitCode.Usage, 'usage: burrow todo SESSION on|off|toggle');
      const r = await call<{ session: string; todo: boolean }>(inv, (c) =>
        c.request('todo', { session, action }),
      );
      print(inv, inv.values.json ? JSON.stringify(r) : `${r.session}: TODO ${r.todo ? 'on' : 'off'}`);
      return ExitCode.Ok;
    },
  },
  {
    name: 'dismiss',
    summary: "silence a session's ring and clear its notification",
    usage: 'burrow dismiss SESSION [--json]',
    options: { ...json },
    positionals: [1, 1],
    async run(inv) {
      const r = await call<{ session: string }>(inv, (c) =>
        c.request('dismiss', { session: inv.positionals[0]! }),
      );
      print(inv, inv.values.json ? JSON.stringify(r) : `dismissed ${r.session}`);
      return ExitCode.Ok;
    },
  },
  {
    name: 'settings',
    summary: 'show or change alarm, recovery and network settings',
    usage: 'burrow settings [get [KEY]] [--json] | burrow settings set KEY VALUE',
    details:
      `Alarm keys: inactivityTimeoutMs (${rangeText('inactivityTimeoutMs')}), deferAlertsUntilQuiet, pushEnabled,\n` +
      `pushDelayMs (${rangeText('pushDelayMs')}). A value outside its range is refused, with the range.\n` +
      'Recovery key: resumeAgentsAtStart (resume every resumable coding-agent session when the daemon\n' +
      'starts; see `burrow resume`).\n' +
      'Network keys: direct (allowed | off: whether a paired phone on the same network may connect\n' +
      'directly, WebRTC, instead of through the relay; default allowed) and iceServers (none by default: no\n' +
      'STUN or TURN server is contacted; a comma-separated list of stun: URLs, or a JSON array of\n' +
      '{"url","username","credential"} for TURN, or none).',
    options: { ...json },
    positionals: [0, 3],
    async run(inv) {
      const [verb = 'get', key, value] = inv.positionals;
      let settings: Record<string, unknown>;
      if (verb === 'set') {
        if (key === undefined || value === undefined)
          throw new CliError(ExitCode.Usage, 'usage: burrow settings set KEY VALUE');
        if (isNetworkKey(key)) {
          const now = await networkPolicy(inv);
          const policy = { ...(now ?? { direct: 'allowed', iceServers: [] }), ...networkPatch(key, value) };
          const r = await call<{ policy: NetworkPolicyView }>(inv, (c) =>
            c.request('network-policy-set', { policy }),
          );
          settings = { ...(await alarmSettings(inv)), ...r.policy };
        } else {
          const v = parseSettingValue(value);
          const r = await call<{ settings: AlertSettings }>(inv, (c) =>
            c.request('settings-set', { key, value: v }),
          );
          settings = { ...r.settings, ...((await networkPolicy(inv)) ?? {}) };
        }
      } else if (verb === 'get' && value === undefined) {
        settings = { ...(await alarmSettings(inv)), ...((await networkPolicy(inv)) ?? {}) };
        if (key !== undefined) {
          if (!Object.hasOwn(settings, key)) throw new CliError(ExitCode.Usage, `unknown setting ${key}`);
          const one = settings[key];
          print(inv, inv.values.json ? JSON.stringify(one) : settingText(key, one));
          return ExitCode.Ok;
        }
      } else
        throw new CliError(
          ExitCode.Usage,
          'usage: burrow settings [get [KEY]] | burrow settings set KEY VALUE',
        );
      print(inv, inv.values.json ? JSON.stringify(settings) : settingsText(settings));
      return ExitCode.Ok;
    },
  },
];
