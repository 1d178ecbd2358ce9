/**
 * The push e2e's Burrow: tests/helpers/remote-burrow.ts's in-process remote side (real state, real bash,
 * the daemon's RemoteService) plus the settings port the daemon wires in, which the remote API's
 * `push-test` / `push-status` go through (the shared helper has none, so it answers them `unknown_message`).
 * The port holds the alert settings in memory, as the attention host would after a fresh start; push-test
 * itself runs the service's real push path. Fold into the shared helper once it takes an `alarms` option.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AlertSettings } from '@burrow/protocol';
import { DEFAULT_ALERT_SETTINGS } from '../../burrow-agent/src/attention/settings.js';
import { RemoteService } from '../../burrow-agent/src/remote/remote-service.js';
import { enrollCommand } from '../../burrow-agent/src/remote-cli/enroll-command.js';
import { SessionRegistry } from '../../burrow-agent/src/session/session-registry.js';
import { openStateStore } from '../../burrow-agent/src/state/burrow-state.js';
import { RecordingAttention } from '../helpers/remote-burrow.js';

export async function startPushBurrow(relayUrl: string) {
  const stateDir = mkdtempSync(join(tmpdir(), 'burrow-push-state-'));
  const store = openStateStore(stateDir);
  await enrollCommand({ relayUrl, secret: null }, store);
  const enrollment = store.load().enrollment!;
  const logs: string[] = [];
  const registry = new SessionRegistry({
    now: Date.now,
    env: { ...process.env, PS1: '$ ', HISTFILE: '/dev/null' },
    defaultShell: '/bin/bash',
    log: (_l, m) => logs.push(m),
  });
  let settings: AlertSettings = DEFAULT_ALERT_SETTINGS;
  let rules: readonly string[] = [];
  const service = new RemoteService({
    stateDir,
    burrowName: 'test burrow',
    registry,
    attention: new RecordingAttention(),
    log: (m) => logs.push(m),
    alarms: {
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
    },
  });
  service.start();
  return {
    stateDir,
    enrollment,
    registry,
    service,
    logs,
    async newPairingLink(): Promise<string> {
      const started = await service.startPairing({ label: null, approve: async () => true, done: () => {} });
      return started.link;
    },
    async stop() {
      service.stop();
      await registry.killAll();
    },
  };
}
