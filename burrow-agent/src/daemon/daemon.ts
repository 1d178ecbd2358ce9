/**
 * `burrow daemon`: owns the sessions, the control socket, the attention host and the remote side (relay link,
 * pairing, devices, push) (DESIGN §6). Shutdown is idempotent and ordered (standalone-host-spec "Shutdown"):
 * stop accepting and close every local viewer, then the relay link (phones hear `shutting down`), then the
 * session roster (sessions.json keeps the list for the next start — after one last look at which coding-agent
 * conversations the sessions are in, src/recovery/), the attention host (flushes attention.json, cancels
 * awaits), then hooks registered by callers, then end every PTY.
 */
import { hostname } from 'node:os';
import { isValidWatchRule } from '../attention/watch-rules.js';
import { AttentionHost } from '../attention-host/index.js';
import { publicNotification } from '../attention-host/public-state.js';
import type { StatusResult } from '../control/control-messages.js';
import { controlSocketPath } from '../control/control-paths.js';
import { assertNoDaemonOn, ControlServer } from '../control/control-server.js';
import { loadOrCreateControlToken } from '../control/control-token.js';
import { AGENT_VERSION, PROGRAM_ROOT, versionOnDisk } from '../program/program.js';
import { type PushReason, pushBodyOf } from '../push/push-payload.js';
import { AgentRecovery } from '../recovery/agent-recovery.js';
import { RecoverySettings } from '../recovery/recovery-settings.js';
import { RemoteService } from '../remote/remote-service.js';
import { setScreenWorkerLog } from '../screen/worker-screen-host.js';
import type { Logger } from '../session/activity.js';
import { SessionRegistry } from '../session/session-registry.js';
import { type BurrowState, openSettingsStore, openStateStore } from '../state/burrow-state.js';
import { ensureOwnerOnlyDir, StateDirError } from '../state/state-dir.js';
import { StorageHealth, type StorageHealthView } from '../state/storage-health.js';
import { daemonVerbs } from './daemon-verbs.js';
import { SessionRoster } from './session-roster.js';
import { startStorageWatch } from './storage-watch.js';

export interface DaemonOptions {
  readonly stateDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  readonly now?: () => number;
}

/**
 * `burrow status`: the control protocol's StatusResult plus whether the state directory is writable and which
 * program runs: its root and the version installed there now (newer than `version` after an upgrade on disk
 * that this daemon has not been restarted for; null when its package.json is gone).
 */
export type DaemonStatus = StatusResult & {
  readonly storage: StorageHealthView;
  readonly program: { readonly root: string; readonly installedVersion: string | null };
};

export interface RunningDaemon {
  readonly registry: SessionRegistry;
  readonly attention: AttentionHost;
  readonly recovery: AgentRecovery;
  readonly remote: RemoteService;
  readonly socketPath: string;
  /** burrow.json as read at start (RemoteService owns it afterwards: ask it, not this, for current state). */
  readonly state: BurrowState;
  /** Registers work for shutdown, run after viewers close and before PTYs are killed. */
  onShutdown(hook: () => Promise<void> | void): void;
  /** Orderly shutdown; safe to call more than once. */
  stop(): Promise<void>;
}

/** The version this daemon runs (program/program.ts), re-exported for the CLI. */
export { AGENT_VERSION };

/**
 * BURROW_PARK_AFTER_MS: how long an unwatched session stays quiet before its screen model is parked (default
 * HIBERNATE_AFTER_MS, 30 s). For tests that watch parking happen, and for a machine short of memory.
 */
function parkAfterMs(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const raw = env.BURROW_PARK_AFTER_MS;
  if (raw === undefined || raw === '') return undefined;
  const ms = Number(raw);
  if (!Number.isSafeInteger(ms) || ms < 0)
    throw new RangeError('BURROW_PARK_AFTER_MS must be a whole number of ms');
  return ms;
}

export async function startDaemon(opts: DaemonOptions): Promise<RunningDaemon> {
  const now = opts.now ?? Date.now;
  const startedAt = now();
  ensureOwnerOnlyDir(opts.stateDir);
  // Fail closed before binding anything: a corrupt or exposed state file stops the daemon with words.
  const stateStore = openStateStore(opts.stateDir);
  const state = stateStore.load();
  const settings = openSettingsStore(opts.stateDir).load();
  const recoverySettings = new RecoverySettings(opts.stateDir);
  const token = loadOrCreateControlToken(opts.stateDir);
  const socketPath = controlSocketPath(opts.stateDir);
  // Before the attention host reads (and may later write) attention.json: it belongs to a running daemon.
  await assertNoDaemonOn(socketPath);
  setScreenWorkerLog((message) => opts.log('error', message));
  const registry = new SessionRegistry({
    now,
    env: opts.env,
    defaultShell: settings.defaultShell ?? opts.env.SHELL ?? '/bin/sh',
    log: opts.log,
    parkAfterMs: parkAfterMs(opts.env),
  });
  const burrowLog = (line: string) => opts.log('info', line);
  // The host's push-due hook is called synchronously from its effects; the send runs on its own and only
  // ever reports (PushSender never throws for relay trouble; anything else is logged).
  let remote: RemoteService | undefined;
  const attention = new AttentionHost({
    registry,
    stateDir: opts.stateDir,
    log: opts.log,
    now,
    onPushDue: (sessionId, _episodeId, view) => {
      if (remote === undefined || !attention.settings().pushEnabled) return;
      let label = sessionId;
      try {
        label = registry.get(sessionId).info().name;
      } catch {
        // exited and cleared meanwhile: the id is label enough
      }
      // The ring's detail as the directory shows it (what the program said, or the screen's words).
      const body = pushBodyOf(publicNotification(view.notification));
      remote.sendPush({ sessionId, label, reason: pushReasonOf(view), body }).catch((err: unknown) => {
        opts.log('error', `push failed: ${(err as Error).message}`);
      });
    },
  });
  // After the attention host, which brings back the sessions holding a TODO: the roster adds the rest.
  let recovery: AgentRecovery | undefined;
  const roster = new SessionRoster(opts.stateDir, registry, opts.log, (id) => recovery?.lookup(id) ?? null);
  recovery = new AgentRecovery({
    registry,
    env: opts.env,
    log: opts.log,
    now,
    onChange: () => roster.schedule(),
  });
  const agents = recovery;
  try {
    const back = roster.restore();
    if (back > 0) opts.log('info', `${back} session(s) of the previous daemon listed as ended`);
  } catch (err) {
    agents.close();
    roster.dispose();
    attention.dispose();
    throw err;
  }
  remote = new RemoteService({
    stateDir: opts.stateDir,
    burrowName: hostname(),
    registry,
    attention,
    log: burrowLog,
    now,
    alarms: {
      settings: () => attention.settings(),
      updateSettings: (patch) => attention.updateSettings(patch),
      watchRules: () => attention.watchRules(),
      setWatchRules: (rules) => replaceWatchRules(attention, rules),
    },
    resume: (ref) => agents.resume(ref),
  });
  const service = remote;
  const storage = startStorageWatch({ stateDir: opts.stateDir, now, log: opts.log });
  const status = (): DaemonStatus => {
    const sessions = registry.list();
    const running = sessions.filter((s) => s.status === 'running').length;
    const link = service.linkStatus;
    const enrollment = service.enrollment();
    const devices = service.listDevices();
    return {
      pid: process.pid,
      startedAt,
      uptimeMs: now() - startedAt,
      version: AGENT_VERSION,
      stateDir: opts.stateDir,
      sessions: { total: sessions.length, running, exited: sessions.length - running },
      relay: {
        state: link.kind === 'not-enrolled' ? 'not-configured' : link.kind,
        text: service.statusText(),
      },
      enrollment: {
        enrolled: enrollment !== null,
        relayUrl: enrollment?.relayUrl ?? null,
        burrowId: enrollment?.burrowId ?? null,
      },
      devices: { paired: devices.length, connected: devices.filter((d) => d.connected).length },
      push: { last: service.push.last, warnings: service.push.warnings },
      direct: { policy: service.network.get().direct, connections: service.paths() },
      storage: storage.view(),
      program: { root: PROGRAM_ROOT, installedVersion: versionOnDisk() },
    };
  };
  const control = new ControlServer({
    socketPath,
    token,
    registry,
    status,
    verbs: daemonVerbs(service, registry, attention, {
      resume: (ref) => agents.resume(ref),
      recordOf: (id) => agents.lookup(id),
      settings: recoverySettings,
    }),
    log: opts.log,
  });
  try {
    await control.listen();
  } catch (err) {
    storage.stop();
    agents.close();
    roster.dispose();
    attention.dispose();
    throw unwritableDirError(err, opts.stateDir, socketPath, now());
  }
  service.start();
  agents.start();
  opts.log('info', `burrow daemon ${AGENT_VERSION} (pid ${process.pid}) listening on ${socketPath}`);
  if (recoverySettings.resumeAgentsAtStart) {
    void agents.resumeAll().then((n) => {
      if (n > 0) opts.log('info', `recovery: ${n} coding-agent session(s) resumed (resumeAgentsAtStart)`);
    });
  }

  const hooks: Array<() => Promise<void> | void> = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      opts.log('info', 'shutting down');
      await control.close();
      service.stop();
      // Before the PTYs end: which conversation each agent is in right now, then the sessions stay remembered,
      // so after a reboot they are listed as ended — or resumable.
      agents.captureAll();
      agents.close();
      roster.close();
      attention.dispose();
      for (const hook of hooks) {
        try {
          await hook();
        } catch (err) {
          opts.log('error', `shutdown hook failed: ${(err as Error).message}`);
        }
      }
      await registry.killAll();
      storage.stop();
      // State is written through on every change (atomic rename), so nothing is pending here; saving the
      // current view once more would only risk overwriting a newer file written by a successor.
      opts.log('info', 'stopped');
    })();
    return stopping;
  };
  return {
    registry,
    attention,
    recovery: agents,
    remote: service,
    socketPath,
    state,
    onShutdown: (h) => void hooks.push(h),
    stop,
  };
}

/**
 * The control socket is the one file the daemon cannot do without: on a full, read-only or foreign state
 * directory it cannot start, and says so with the same words `burrow status` would use (a service manager
 * restarting it then logs something the owner can act on). Other errors pass through unchanged.
 */
function unwritableDirError(err: unknown, stateDir: string, socketPath: string, at: number): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (!(err instanceof Error) || !['EROFS', 'ENOSPC', 'EDQUOT', 'EACCES', 'EPERM'].includes(String(code))) {
    return err;
  }
  const health = new StorageHealth(stateDir);
  health.recordFailure(socketPath, err, at);
  const v = health.view();
  return new StateDirError(`cannot create the control socket: ${v.text.split(';')[0]}; ${v.advice}`, {
    cause: err,
  });
}

/** The phone sends the whole list; the host adds and removes one rule at a time (each validated, persisted). */
function replaceWatchRules(host: AttentionHost, rules: readonly string[]): readonly string[] {
  // All or nothing: an invalid rule refuses the whole list before anything changes.
  const bad: string | undefined = rules.find((r: string) => !isValidWatchRule(r));
  if (bad !== undefined) throw new RangeError(`not a watch key: ${JSON.stringify(String(bad).slice(0, 64))}`);
  const wanted = new Set(rules);
  for (const old of host.watchRules()) if (!wanted.has(old)) host.removeWatchRule(old);
  const have = new Set(host.watchRules());
  for (const rule of rules) if (!have.has(rule)) host.addWatchRule(rule);
  return host.watchRules();
}

/**
 * Which fixed push body fits what rang (push-payload.ts PUSH_BODIES), for a ring without words: a report, a
 * quiet watched command, an exit.
 */
export function pushReasonOf(view: {
  exited: boolean;
  notification: unknown;
  watchKey: string | null;
}): PushReason {
  if (view.exited) return 'exit';
  if (view.notification === null && view.watchKey !== null) return 'watching';
  return 'report';
}
