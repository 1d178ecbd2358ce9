/**
 * `burrow daemon`: owns the sessions and the control socket (DESIGN §6). Shutdown is idempotent and ordered
 * (standalone-host-spec "Shutdown"): stop accepting and close every viewer, then run the hooks later parts
 * register (relay link, attention engine), then end every PTY, then flush state, then resolve.
 */
import { readFileSync } from 'node:fs';
import type { StatusResult } from '../control/control-messages.js';
import { controlSocketPath } from '../control/control-paths.js';
import { ControlServer } from '../control/control-server.js';
import { loadOrCreateControlToken } from '../control/control-token.js';
import type { Logger } from '../session/activity.js';
import { SessionRegistry } from '../session/session-registry.js';
import { type BurrowState, openSettingsStore, openStateStore } from '../state/burrow-state.js';
import { ensureOwnerOnlyDir } from '../state/state-dir.js';

export interface DaemonOptions {
  readonly stateDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  readonly now?: () => number;
}

export interface RunningDaemon {
  readonly registry: SessionRegistry;
  readonly socketPath: string;
  readonly state: BurrowState;
  /** Registers work for shutdown, run after viewers close and before PTYs are killed. */
  onShutdown(hook: () => Promise<void> | void): void;
  /** Orderly shutdown; safe to call more than once. */
  stop(): Promise<void>;
}

export const AGENT_VERSION: string = readVersion();

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export async function startDaemon(opts: DaemonOptions): Promise<RunningDaemon> {
  const now = opts.now ?? Date.now;
  const startedAt = now();
  ensureOwnerOnlyDir(opts.stateDir);
  // Fail closed before binding anything: a corrupt or exposed state file stops the daemon with words.
  const stateStore = openStateStore(opts.stateDir);
  const state = stateStore.load();
  const settings = openSettingsStore(opts.stateDir).load();
  const token = loadOrCreateControlToken(opts.stateDir);
  const socketPath = controlSocketPath(opts.stateDir);
  const registry = new SessionRegistry({
    now,
    env: opts.env,
    defaultShell: settings.defaultShell ?? opts.env.SHELL ?? '/bin/sh',
    log: opts.log,
  });
  const status = (): StatusResult => {
    const sessions = registry.list();
    const running = sessions.filter((s) => s.status === 'running').length;
    const current = stateStore.load();
    return {
      pid: process.pid,
      startedAt,
      uptimeMs: now() - startedAt,
      version: AGENT_VERSION,
      stateDir: opts.stateDir,
      sessions: { total: sessions.length, running, exited: sessions.length - running },
      relay: { state: 'not-configured' },
      enrollment: { enrolled: current.enrollment !== null },
      devices: { paired: current.acl.length },
    };
  };
  const control = new ControlServer({ socketPath, token, registry, status, log: opts.log });
  await control.listen();
  opts.log('info', `burrow daemon ${AGENT_VERSION} (pid ${process.pid}) listening on ${socketPath}`);

  const hooks: Array<() => Promise<void> | void> = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      opts.log('info', 'shutting down');
      await control.close();
      for (const hook of hooks) {
        try {
          await hook();
        } catch (err) {
          opts.log('error', `shutdown hook failed: ${(err as Error).message}`);
        }
      }
      await registry.killAll();
      // State is written through on every change (atomic rename), so nothing is pending here; saving the
      // current view once more would only risk overwriting a newer file written by a successor.
      opts.log('info', 'stopped');
    })();
    return stopping;
  };
  return { registry, socketPath, state, onShutdown: (h) => void hooks.push(h), stop };
}
