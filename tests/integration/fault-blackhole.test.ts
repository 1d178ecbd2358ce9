/**
 * Issue 8 "Faults", bullet 2: the network is cut WITHOUT a close (tests/helpers/fault-proxy.ts drops every
 * byte both ways and swallows FIN/RST), first between the phone and the relay, then between the Burrow and
 * the relay. Both ends must notice within the liveness policy's bound and say so (phone: status
 * "reconnecting"; Burrow: `burrow status --json`), then recover once bytes pass again, proven by an echo
 * roundtrip through the real relay, daemon and bash.
 * Bounds under test (the shipped constants, not test overrides):
 * - phone: POCKET_KEEPALIVE — an end-to-end ping every 5 s, dead after 15 s without any message;
 * - Burrow, its relay link: RELAY_LINK_KEEPALIVE — a relay ping every 5 s of silence, dead after 15 s;
 * - Burrow, a phone connection: PHONE_SILENCE_CLOSE_MS — closed after 20 s without a frame from the phone.
 * Each is asserted with DETECTION_SLACK_MS on top for timers and `burrow status` polling on a loaded machine.
 * Not covered: the relay noticing a dead client or agent socket itself (it has no liveness of its own; it
 * relies on the Burrow closing the phone or a newer agent socket replacing the dead one), a cut that heals
 * before the bound (TCP would then deliver late bytes; this proxy resets instead), packet loss or delay short
 * of a cut, and NAT/mobile handover.
 */

import type { BurrowConnection } from '@burrow/pocket/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_LINK_KEEPALIVE } from '../../burrow-agent/src/relay-link/relay-link.js';
import { PHONE_SILENCE_CLOSE_MS } from '../../burrow-agent/src/remote/api-connection.js';
import { POCKET_KEEPALIVE } from '../../pocket-pwa/src/core/burrow-connection.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { type BurrowDaemon, until } from '../helpers/burrow-daemon.js';
import { attachedShell, daemonStatus, enrolledDaemon, figure } from '../helpers/fault-fixture.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { phoneConnection } from '../helpers/phone-connection.js';

/** Timer latency plus one `burrow status --json` call (a node process start) on a loaded 2-core machine. */
const DETECTION_SLACK_MS = 6_000;
/** After the heal: backoff (the next retry is at most a few seconds away) plus the handshake. */
const RECOVERY_BUDGET_MS = 20_000;

let relay: RelayHandle;
let burrowPath: FaultProxy;
let phonePath: FaultProxy;
let daemon: BurrowDaemon;
let conn: BurrowConnection;
let shell: Awaited<ReturnType<typeof attachedShell>>;

/** Resolves with the ms from `since` until `cond` holds (polled), or fails after `ms`. */
async function timeUntil(since: number, cond: () => boolean | Promise<boolean>, what: string, ms: number) {
  await until(cond, what, ms);
  return Date.now() - since;
}

beforeAll(async () => {
  relay = await startRelay();
  burrowPath = await startFaultProxy(relay.port);
  phonePath = await startFaultProxy(relay.port);
  daemon = await enrolledDaemon(burrowPath.url);
  const phone = await daemon.pairPhone('phone');
  conn = phoneConnection(phone, { relayUrl: phonePath.url });
  conn.start();
  shell = await attachedShell(daemon, conn);
  await shell.echo();
}, 120_000);

afterAll(async () => {
  conn?.stop();
  if (daemon !== undefined) await daemon.stop();
  await phonePath?.stop();
  await burrowPath?.stop();
  await relay?.stop();
});

describe('a network cut without a close', () => {
  it('phone ↔ relay: the phone and the Burrow both notice within the bound, then recover', async () => {
    const cutAt = Date.now();
    phonePath.blackhole();
    const phoneMs = await timeUntil(
      cutAt,
      () => conn.status.kind === 'reconnecting',
      'the phone to notice',
      POCKET_KEEPALIVE.deadAfterMs + DETECTION_SLACK_MS,
    );
    expect(conn.status).toMatchObject({ reason: 'your computer stopped answering' });
    const burrowMs = await timeUntil(
      cutAt,
      async () => (await daemonStatus(daemon)).devices.connected === 0,
      'the Burrow to drop the silent phone',
      PHONE_SILENCE_CLOSE_MS + DETECTION_SLACK_MS,
    );
    expect(daemon.log).toContain(`sent nothing for ${PHONE_SILENCE_CLOSE_MS} ms`);
    const healAt = Date.now();
    phonePath.heal();
    const recoverMs = await timeUntil(
      healAt,
      () => conn.status.kind === 'connected',
      'the phone back',
      RECOVERY_BUDGET_MS,
    );
    const echoMs = await shell.echo();
    expect((await daemonStatus(daemon)).devices.connected).toBe(1);
    figure('blackhole phone-relay', {
      phoneDetectMs: phoneMs,
      phoneBoundMs: POCKET_KEEPALIVE.deadAfterMs,
      burrowDropsPhoneMs: burrowMs,
      burrowBoundMs: PHONE_SILENCE_CLOSE_MS,
      recoverAfterHealMs: recoverMs,
      echoMs,
      droppedBytes: phonePath.stats().droppedBytes,
    });
    // The cut really swallowed traffic (the pings), rather than the path simply being idle.
    expect(phonePath.stats().droppedBytes).toBeGreaterThan(0);
  }, 60_000);

  it('Burrow ↔ relay: the Burrow and the phone both notice within the bound, then recover', async () => {
    const cutAt = Date.now();
    burrowPath.blackhole();
    let burrowText = '';
    const burrowMs = await timeUntil(
      cutAt,
      async () => {
        const s = await daemonStatus(daemon);
        burrowText = s.relay.text;
        return s.relay.state !== 'connected';
      },
      'the Burrow to notice',
      RELAY_LINK_KEEPALIVE.deadAfterMs + DETECTION_SLACK_MS,
    );
    // "reconnecting in 1 s: …" for about a second, then "connecting again: …" while the retry hangs.
    expect(burrowText).toMatch(/^(reconnecting in \d+ s|connecting again): the relay stopped answering$/);
    const phoneMs = await timeUntil(
      cutAt,
      () => conn.status.kind !== 'connected',
      'the phone to notice',
      POCKET_KEEPALIVE.deadAfterMs + DETECTION_SLACK_MS,
    );
    const healAt = Date.now();
    burrowPath.heal();
    const burrowBackMs = await timeUntil(
      healAt,
      async () => (await daemonStatus(daemon)).relay.state === 'connected',
      'the Burrow back',
      RECOVERY_BUDGET_MS,
    );
    const phoneBackMs = await timeUntil(
      healAt,
      () => conn.status.kind === 'connected',
      'the phone back',
      RECOVERY_BUDGET_MS,
    );
    const echoMs = await shell.echo();
    figure('blackhole burrow-relay', {
      burrowDetectMs: burrowMs,
      burrowBoundMs: RELAY_LINK_KEEPALIVE.deadAfterMs,
      phoneDetectMs: phoneMs,
      phoneBoundMs: POCKET_KEEPALIVE.deadAfterMs,
      burrowBackAfterHealMs: burrowBackMs,
      phoneBackAfterHealMs: phoneBackMs,
      echoMs,
      droppedBytes: burrowPath.stats().droppedBytes,
    });
    expect(burrowPath.stats().droppedBytes).toBeGreaterThan(0);
  }, 60_000);
});
