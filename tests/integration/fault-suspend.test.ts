/**
 * Issue 8 "Faults", bullet 4: the machine suspends, simulated by SIGSTOP of the daemon for SUSPEND_MS, longer
 * than every liveness window (RELAY_LINK_KEEPALIVE.deadAfterMs 15 s, POCKET_KEEPALIVE.deadAfterMs 15 s,
 * PHONE_SILENCE_CLOSE_MS 20 s), then SIGCONT. The network goes with it: the Burrow's path to the relay is
 * blackholed (tests/helpers/fault-proxy.ts) for the length of the sleep, so on wake its socket still looks
 * open but is dead. A ring was pushed before the stop (real relay with VAPID, the local push service, the
 * phone subscribed). After the wake:
 * - `burrow status --json` stops saying "connected" within RELAY_LINK_KEEPALIVE.wakeProbeMs (the overdue
 *   deadline probes once instead of trusting the old socket), and once the network is back converges to
 *   "connected" with a link that really works: a fresh session is attached from the phone and an echo comes
 *   back through relay, daemon and bash;
 * - the phone, which noticed the silence while the daemon was stopped, is connected again by itself;
 * - the ring produced exactly one push in total: nothing re-sent on wake, after a quiet period longer than
 *   the push delay.
 * Figures: phone detection during the stop, each status answer after the wake, link and phone back after
 * the network heals, pushes counted.
 * Not covered here: a wake where the link survived (relay-link.test.ts "after a freeze it probes…"), a real
 * suspend (kernel and NIC asleep too), the wall clock jumping, a push that came due DURING the stop, the
 * relay evicting the Durable Object meanwhile.
 */
import type { BurrowConnection } from '@burrow/pocket/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_LINK_KEEPALIVE } from '../../burrow-agent/src/relay-link/relay-link.js';
import { PHONE_SILENCE_CLOSE_MS } from '../../burrow-agent/src/remote/api-connection.js';
import { POCKET_KEEPALIVE } from '../../pocket-pwa/src/core/burrow-connection.js';
import { generateVapidKeys } from '../../relay-worker/src/push/vapid-keys.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { putSubscription } from '../../relay-worker/test/relay-client.js';
import { type BurrowDaemon, until } from '../helpers/burrow-daemon.js';
import { attachedShell, daemonStatus, enrolledDaemon, figure } from '../helpers/fault-fixture.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { phoneConnection } from '../helpers/phone-connection.js';
import { LocalPushService } from '../helpers/push-service.js';

const PUSH_DELAY_MS = 2_000;
/** Longer than the longest liveness window, so every timer of every side has expired at the wake. */
const SUSPEND_MS =
  Math.max(RELAY_LINK_KEEPALIVE.deadAfterMs, POCKET_KEEPALIVE.deadAfterMs, PHONE_SILENCE_CLOSE_MS) + 2_000;
/** After SIGCONT: a dropped link's first retry plus the handshake, with room for a loaded machine. */
const WAKE_BUDGET_MS = 20_000;
/** Timer latency plus one `burrow status --json` call (a node process start) on a loaded 2-core machine. */
const STATUS_SLACK_MS = 5_000;
/** How long after the link is back nothing more may be pushed (the push delay twice over). */
const QUIET_AFTER_WAKE_MS = 2 * PUSH_DELAY_MS;

let relay: RelayHandle;
let pushService: LocalPushService;
let burrowPath: FaultProxy;
let daemon: BurrowDaemon;
let conn: BurrowConnection;

beforeAll(async () => {
  pushService = await LocalPushService.start();
  const { secret } = await generateVapidKeys();
  relay = await startRelay({
    vars: { VAPID_PRIVATE_KEY: secret, VAPID_SUBJECT: 'mailto:it@example.com', DEV_ALLOW_LOOPBACK_PUSH: '1' },
  });
  burrowPath = await startFaultProxy(relay.port);
  daemon = await enrolledDaemon(burrowPath.url);
  const set = await daemon.cli('settings', 'set', 'pushDelayMs', String(PUSH_DELAY_MS));
  expect(set.code, set.stderr).toBe(0);
  const phone = await daemon.pairPhone('phone');
  const put = await putSubscription(
    relay.url,
    phone.pairing.burrowId,
    phone.pairing,
    pushService.subscribe(),
  );
  expect(put.status).toBe(204);
  conn = phoneConnection(phone);
  conn.start();
  await until(() => conn.status.kind === 'connected', 'the phone');
}, 120_000);

afterAll(async () => {
  conn?.stop();
  if (daemon !== undefined) {
    daemon.signal('SIGCONT'); // never leave a stopped daemon behind a failed assertion
    await daemon.stop();
  }
  await burrowPath?.stop();
  await relay?.stop();
  await pushService?.close();
});

describe('the daemon suspended past the keep-alive', () => {
  it('wakes to a working link, a reconnected phone and no duplicate push', async () => {
    const ring = await daemon.cli(
      'new',
      '--name',
      'ringer',
      '--',
      '/bin/sh',
      '-c',
      "printf '\\033]9;ring\\007'; sleep 600",
    );
    expect(ring.code, ring.stderr).toBe(0);
    await pushService.waitForReceived(1, 15_000);
    expect(pushService.received).toHaveLength(1);

    const stoppedAt = Date.now();
    daemon.signal('SIGSTOP');
    // The network goes too while it sleeps (the usual case: Wi-Fi off, NAT state expired): no FIN, no RST.
    burrowPath.blackhole();
    let phoneDetectMs = 0;
    await until(
      () => {
        if (phoneDetectMs === 0 && conn.status.kind !== 'connected') phoneDetectMs = Date.now() - stoppedAt;
        return Date.now() - stoppedAt >= SUSPEND_MS;
      },
      'the suspend to last',
      SUSPEND_MS + 5_000,
    );
    expect(phoneDetectMs, 'the phone noticed the silent Burrow').toBeGreaterThan(0);
    expect(phoneDetectMs).toBeLessThanOrEqual(POCKET_KEEPALIVE.deadAfterMs + 2_000);

    const wokeAt = Date.now();
    daemon.signal('SIGCONT');
    // The link is dead (blackholed during the sleep), yet its socket looks open: the status must stop saying
    // "connected" within the wake probe, not stay on it. Every answer is kept (one CLI call is a node start,
    // a second or more on a loaded machine: that is the resolution of these figures).
    const answers: string[] = [];
    let deadSeenMs = 0;
    await until(
      async () => {
        const s = await daemonStatus(daemon);
        answers.push(`${s.relay.state}@${Date.now() - wokeAt}`);
        if (s.relay.state !== 'connected') deadSeenMs = Date.now() - wokeAt;
        return deadSeenMs !== 0;
      },
      'the status to stop saying connected',
      RELAY_LINK_KEEPALIVE.wakeProbeMs + STATUS_SLACK_MS,
    );
    expect(daemon.log).toContain('the relay stopped answering');
    const healAt = Date.now();
    burrowPath.heal();
    await until(
      async () => (await daemonStatus(daemon)).relay.state === 'connected',
      'the link',
      WAKE_BUDGET_MS,
    );
    const linkMs = Date.now() - healAt;
    await until(() => conn.status.kind === 'connected', 'the phone back', WAKE_BUDGET_MS);
    const phoneMs = Date.now() - healAt;
    // "connected" must mean a working path: a new session, attached from the phone, echoes through it all.
    const shell = await attachedShell(daemon, conn);
    const echoMs = await shell.echo();
    const workingMs = Date.now() - healAt;

    // Anything the wake could re-send (a late timer, a retry) would go out once the link is back.
    await new Promise((r) => setTimeout(r, Math.max(0, healAt + linkMs + QUIET_AFTER_WAKE_MS - Date.now())));
    figure('suspend', {
      suspendMs: SUSPEND_MS,
      phoneDetectMs,
      statusAfterWake: answers.join(','),
      notConnectedAfterWakeMs: deadSeenMs,
      wakeProbeBoundMs: RELAY_LINK_KEEPALIVE.wakeProbeMs,
      linkBackAfterHealMs: linkMs,
      phoneBackAfterHealMs: phoneMs,
      echoWorkingAfterHealMs: workingMs,
      echoMs,
      pushes: pushService.received.length,
      droppedBytes: burrowPath.stats().droppedBytes,
    });
    expect(pushService.received, 'one push for the one ring, nothing re-sent on wake').toHaveLength(1);
    // The wake probe's ping (at least) went into the blackhole: the link was really dead, not idle.
    expect(burrowPath.stats().droppedBytes).toBeGreaterThan(0);
    expect((await daemonStatus(daemon)).relay.state).toBe('connected');
  }, 90_000);
});
