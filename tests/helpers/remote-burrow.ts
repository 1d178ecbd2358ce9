/**
 * An in-process Burrow remote side for integration tests: real state files in a temp BURROW_STATE_DIR, real
 * bash sessions, and the daemon's own RemoteService (relay link, endpoint, pairing, devices). The daemon
 * process itself is wired by the lead; this runs the same objects it will.
 */

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AlertSettings } from '@burrow/protocol';
import { DEFAULT_ALERT_SETTINGS } from '../../burrow-agent/src/attention/settings.js';
import { QUIET_PUBLIC_STATE } from '../../burrow-agent/src/attention-host/public-state.js';
import type { AttentionPort, PublicAttentionState } from '../../burrow-agent/src/remote/attention-port.js';
import type { PairApprover } from '../../burrow-agent/src/remote/remote-endpoint.js';
import { RemoteService, type RemoteServiceOptions } from '../../burrow-agent/src/remote/remote-service.js';
import { enrollCommand } from '../../burrow-agent/src/remote-cli/enroll-command.js';
import { SessionRegistry } from '../../burrow-agent/src/session/session-registry.js';
import { openStateStore } from '../../burrow-agent/src/state/burrow-state.js';
import { testHome } from '../../burrow-agent/test/test-home.js';
import { stateDirWithoutDirect } from './burrow-daemon.js';

const IDLE: PublicAttentionState = QUIET_PUBLIC_STATE;
type AlarmsPort = NonNullable<RemoteServiceOptions['alarms']>;

/** Records every verb the remote API routes to the engine, so tests can check the routing. */
export class RecordingAttention implements AttentionPort {
  readonly calls: string[] = [];
  publicState(): PublicAttentionState {
    return IDLE;
  }
  acknowledge(s: string, _v: string, withInput: boolean): void {
    this.calls.push(`ack ${s} ${withInput}`);
  }
  todo(s: string, a: string): void {
    this.calls.push(`todo ${s} ${a}`);
  }
  dismiss(s: string): void {
    this.calls.push(`dismiss ${s}`);
  }
  presence(_v: string, r: { state: string }): void {
    this.calls.push(`presence ${r.state}`);
  }
  focus(_v: string, s: string | null): void {
    this.calls.push(`focus ${s}`);
  }
  viewerGone(): void {}
  onChange(): () => void {
    return () => {};
  }
}

/**
 * The settings port the daemon wires in (what the remote API's `push-test` / `push-status` / settings go
 * through), holding the alert settings in memory as the attention host would after a fresh start.
 */
export function memoryAlarms(): AlarmsPort {
  let settings: AlertSettings = DEFAULT_ALERT_SETTINGS;
  let rules: readonly string[] = [];
  return {
    settings: () => settings,
    updateSettings: (patch) => {
      settings = { ...settings, ...patch };
      return settings;
    },
    watchRules: () => rules,
    setWatchRules: (next) => {
      rules = [...next];
      return rules;
    },
  };
}

export interface RemoteBurrowOptions {
  /** The daemon's settings port; without it the remote API answers settings and push verbs `unknown_message`. */
  readonly alarms?: AlarmsPort;
}

export async function startRemoteBurrow(relayUrl: string, options: RemoteBurrowOptions = {}) {
  const stateDir = mkdtempSync(join(tmpdir(), 'burrow-state-'));
  // No direct path: a browser phone would open WebRTC on this machine's own interfaces (issue 25's tests run
  // it inside a test network instead).
  stateDirWithoutDirect(stateDir);
  const store = openStateStore(stateDir);
  await enrollCommand({ relayUrl, secret: null }, store);
  const enrollment = store.load().enrollment!;
  const logs: string[] = [];
  const registry = new SessionRegistry({
    now: Date.now,
    env: { ...process.env, HOME: testHome(), PS1: '$ ', HISTFILE: '/dev/null' },
    defaultShell: '/bin/bash',
    log: (_l, m) => logs.push(m),
  });
  const attention = new RecordingAttention();
  const service = new RemoteService({
    stateDir,
    burrowName: 'test burrow',
    registry,
    attention,
    log: (m) => logs.push(m),
    ...(options.alarms === undefined ? {} : { alarms: options.alarms }),
  });
  service.start();
  let approver: PairApprover = async () => true;
  return {
    stateDir,
    enrollment,
    registry,
    service,
    attention,
    logs,
    setApprover(a: PairApprover) {
      approver = a;
    },
    async newPairingLink(): Promise<string> {
      const started = await service.startPairing({
        label: null,
        approve: (r) => approver(r),
        done: () => {},
      });
      return started.link;
    },
    async stop() {
      service.stop();
      await registry.killAll();
    },
  };
}
