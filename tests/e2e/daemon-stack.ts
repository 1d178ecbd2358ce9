/**
 * What the daemon-driven browser files share: Pocket's production build served by a relay under `wrangler dev`,
 * a real daemon (the built CLI; bash with a plain prompt) enrolled at it, and a phone browser of the file's
 * engine — set up before the file's first test, reported on when a test fails, torn down after its last.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon } from '../helpers/burrow-daemon.js';
import { stopAll } from '../helpers/stop-all.js';
import type { Phone } from './phone/phone.js';
import { launchPhone } from './phone/project.js';
import { POCKET_DIST, preparePocket, reportFailures } from './pocket-browser.js';

export interface DaemonStack {
  readonly relay: RelayHandle;
  readonly daemon: BurrowDaemon;
  readonly phone: Phone;
}

/** Registers the hooks; the stack's fields are there from the file's first `beforeAll` on. */
export function useDaemonStack(prefix: string): DaemonStack {
  const stack: { -readonly [K in keyof DaemonStack]?: DaemonStack[K] } = {};
  beforeAll(async () => {
    await preparePocket();
    stack.relay = await startRelay({ assetsDir: POCKET_DIST });
    stack.daemon = await BurrowDaemon.start({ env: { PS1: '$ ', HISTFILE: '/dev/null' } });
    await stack.daemon.enroll(stack.relay.url);
    stack.phone = await launchPhone();
  }, 180_000);
  reportFailures(
    prefix,
    () => stack.phone,
    () => `daemon log:\n${stack.daemon?.log.slice(-4000)}`,
  );
  afterAll(() =>
    stopAll(
      async () => stack.phone?.close(),
      async () => {
        if (stack.daemon !== undefined) expect(await stack.daemon.stop()).toBe(0);
      },
      async () => stack.relay?.stop(),
    ),
  );
  return stack as DaemonStack;
}
