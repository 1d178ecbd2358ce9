/**
 * The control socket's verbs beyond sessions, as the daemon answers them: remote ones through RemoteService
 * (`burrow enroll`, `devices`, `devices revoke`, `push test`, pairing) and attention ones through the
 * attention host (`await`, `todo`, `dismiss`, `watch`, `settings`). Results are plain JSON for the CLI (no
 * keys, no delivery ids).
 */
import type { AlertVerb } from '../attention/alert-manager.js';
import type { AwaitCause, CommandExit } from '../attention/awaits.js';
import type { SessionAlertView } from '../attention/engine.js';
import { ALERT_SETTINGS_RANGES, type AlertSettings } from '../attention/settings.js';
import type { DeviceRowResult, Params } from '../control/control-messages.js';
import type { DaemonVerbs } from '../control/daemon-verbs.js';
import type { PushSendReport } from '../push/push-sender.js';
import { type RecoveryRecord, recoveryView } from '../recovery/recovery-record.js';
import { RESUME_SETTING } from '../recovery/recovery-settings.js';
import type { RemoteService } from '../remote/remote-service.js';
import type { SessionInfo } from '../session/session.js';
import type { SessionRegistry } from '../session/session-registry.js';

/** What `burrow push test` prints with --json. */
export interface PushTestResult {
  readonly outcome: PushSendReport['outcome'];
  readonly targets: number;
  readonly delivered: number;
  readonly gone: number;
  readonly noSubscription: number;
  readonly failed: number;
  readonly dropped: number;
  readonly relayError: string | null;
}

export function pushTestResult(r: PushSendReport): PushTestResult {
  return {
    outcome: r.outcome,
    targets: r.targets,
    delivered: r.delivered,
    gone: r.gone.length,
    noSubscription: r.noSubscription.length,
    failed: r.failed.length,
    dropped: r.dropped,
    relayError: r.relayError?.message ?? null,
  };
}

/** The part of the attention host (src/attention-host/README.md) the CLI verbs use. */
export interface AttentionVerbsHost {
  view(sessionId: string): SessionAlertView | null;
  verb(sessionId: string, verb: AlertVerb): void;
  awaitResult(
    realmId: string,
    sessionId: string,
    opts: { until: 'quiet' | 'exit'; timeoutMs: number; signal?: AbortSignal },
  ): Promise<CommandExit & { readonly cause: AwaitCause }>;
  realmGone(realmId: string): void;
  settings(): AlertSettings;
  updateSettings(patch: unknown): AlertSettings;
  watchRules(): readonly string[];
  addWatchRule(rule: string): readonly string[];
  removeWatchRule(rule: string): readonly string[];
}

/** Agent recovery as the CLI verbs use it (src/recovery/): `resume`, the list's conversation, one setting. */
export interface RecoveryVerbsHost {
  resume(ref: string): Promise<SessionInfo>;
  /** The conversation a session would be resumed on (running: captured so far; restored: remembered). */
  recordOf(sessionId: string): RecoveryRecord | null;
  readonly settings: {
    readonly resumeAgentsAtStart: boolean;
    setResumeAgentsAtStart(value: boolean): void;
  };
}

/** `burrow settings`: the alarm settings and the recovery setting, one flat object. */
function allSettings(attention: AttentionVerbsHost, recovery: RecoveryVerbsHost | undefined) {
  const alert = attention.settings();
  return recovery === undefined
    ? alert
    : { ...alert, [RESUME_SETTING]: recovery.settings.resumeAgentsAtStart };
}

/** `burrow settings set KEY VALUE` accepts exactly the alarm settings' own keys. */
function settingsPatch(current: AlertSettings, key: string, value: boolean | number): Partial<AlertSettings> {
  if (!Object.hasOwn(current, key))
    throw new RangeError(`unknown setting ${JSON.stringify(key)}; see \`burrow settings\``);
  const now = current[key as keyof AlertSettings];
  if (typeof now !== typeof value) throw new TypeError(`${key} takes a ${typeof now}`);
  // Out of range is refused with the range (issue 17 item 6), not silently clamped as a file read is.
  const range = Object.hasOwn(ALERT_SETTINGS_RANGES, key)
    ? ALERT_SETTINGS_RANGES[key as keyof typeof ALERT_SETTINGS_RANGES]
    : undefined;
  if (range !== undefined && typeof value === 'number' && !(value >= range.min && value <= range.max))
    throw new RangeError(`${key} must be ${range.min}…${range.max} (milliseconds), not ${value}`);
  return { [key]: value };
}

const TODO_VERBS = { on: 'todo-on', off: 'todo-off', toggle: 'todo-toggle' } as const;

/**
 * The fields `burrow ls --json` puts over each session's SessionInfo (issue 6): `status` is the alert spec's
 * PUBLIC STATUS and `command` the running command line, both from the engine; the process state moves to
 * `state` and the spawned argv to `argv`. The control server spreads this over the SessionInfo, so these
 * names win.
 */
export function describeSession(
  session: SessionInfo,
  view: SessionAlertView | null,
  recovery: RecoveryRecord | null = null,
): Record<string, unknown> {
  // `recovery`: the coding-agent conversation it is in (or was, for a resumable one); never its environment.
  const renamed = {
    state: session.status,
    argv: session.command,
    resumable: session.resumable !== undefined,
    recovery: recovery === null ? null : recoveryView(recovery),
  };
  if (view === null) return { ...renamed, status: null, command: session.command.join(' ') };
  return {
    ...renamed,
    status: view.status,
    exited: view.exited,
    ringing: view.ringing,
    ringingSince: view.ringingSince,
    episodeId: view.episodeId,
    todo: view.todo,
    notification: view.notification,
    awaited: view.awaited,
    watchKey: view.watchKey,
    command: view.command,
    /** Some present viewer looks at it: completions are held, and a program that asked hears focus-in. */
    engaged: view.engaged,
  };
}

export function daemonVerbs(
  remote: RemoteService,
  registry: SessionRegistry,
  attention: AttentionVerbsHost,
  recovery?: RecoveryVerbsHost,
): DaemonVerbs {
  const sessionId = (ref: string) => registry.get(ref).id;
  /** Which `burrow pair` holds the open offer (each new one replaces the last). */
  let pairingGeneration = 0;
  return {
    describe: (s) => describeSession(s, attention.view(s.id), recovery?.recordOf(s.id) ?? null),
    realmGone: (realmId) => attention.realmGone(realmId),
    async handle(method, params, ctx) {
      switch (method) {
        case 'todo': {
          const p = params as Params<'todo'>;
          const id = sessionId(p.session);
          attention.verb(id, TODO_VERBS[p.action]);
          return { session: id, todo: attention.view(id)?.todo ?? false };
        }
        case 'dismiss': {
          const id = sessionId((params as Params<'dismiss'>).session);
          attention.verb(id, 'dismiss');
          return { session: id };
        }
        case 'await': {
          const p = params as Params<'await'>;
          const id = sessionId(p.session);
          const r = await attention.awaitResult(ctx.realmId, id, {
            until: p.until,
            timeoutMs: p.timeoutMs,
            signal: ctx.signal,
          });
          // exitCode / command: the command an `exit` or `died` is about (issue 13), else null.
          return { session: id, cause: r.cause, exitCode: r.exitCode, command: r.command };
        }
        case 'watch-list':
          return { rules: attention.watchRules() };
        case 'watch-add':
          return { rules: attention.addWatchRule((params as Params<'watch-add'>).key) };
        case 'watch-remove':
          return { rules: attention.removeWatchRule((params as Params<'watch-remove'>).key) };
        case 'settings-get':
          return { settings: allSettings(attention, recovery) };
        case 'settings-set': {
          const p = params as Params<'settings-set'>;
          if (recovery !== undefined && p.key === RESUME_SETTING) {
            if (typeof p.value !== 'boolean') throw new TypeError(`${RESUME_SETTING} takes a boolean`);
            recovery.settings.setResumeAgentsAtStart(p.value);
          } else attention.updateSettings(settingsPatch(attention.settings(), p.key, p.value));
          return { settings: allSettings(attention, recovery) };
        }
        case 'resume': {
          if (recovery === undefined) throw new RangeError('this daemon cannot resume sessions');
          const info = await recovery.resume((params as Params<'resume'>).session);
          return {
            session: {
              ...info,
              ...describeSession(info, attention.view(info.id), recovery.recordOf(info.id)),
            },
          };
        }
        case 'network-policy-get':
          return { policy: remote.network.get() };
        case 'network-policy-set':
          return { policy: remote.network.set((params as Params<'network-policy-set'>).policy) };
        case 'enroll': {
          const p = params as { relayUrl: string; secret: string | null };
          return remote.enroll({ relayUrl: p.relayUrl, secret: p.secret });
        }
        case 'devices': {
          const { devices, relayError } = await remote.deviceRows();
          const rows: DeviceRowResult[] = devices.map((d) => ({
            deviceId: d.deviceId,
            label: d.label,
            pairedAt: d.pairedAt,
            lastSeenAt: d.lastSeenAt,
            connected: d.connected,
            subscribed: d.subscribed,
            subscriptionUpdatedAt: d.subscriptionUpdatedAt,
          }));
          return { devices: rows, relayError };
        }
        case 'devices-revoke':
          return remote.revokeDevice((params as { deviceId: string }).deviceId);
        case 'push-test': {
          const report = await remote.pushTest();
          if (report === null) throw new RangeError('not enrolled: run `burrow enroll --relay <url>` first');
          return pushTestResult(report);
        }
      }
      throw new RangeError(`unknown method ${String(method)}`);
    },
    async startPairing(options) {
      const mine = ++pairingGeneration;
      const started = await remote.startPairing(options);
      return {
        started,
        cancel: () => {
          if (pairingGeneration === mine) remote.cancelPairing();
        },
      };
    },
  };
}
