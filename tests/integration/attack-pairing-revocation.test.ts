/**
 * Crafted attacks (issue 8, "Hostile input") on pairing and revocation, against a real relay (`wrangler dev`)
 * and a real `burrow daemon`:
 *  - a valid pairing link used a second time, by Pocket's core and by a phone that ignores its own checks;
 *  - a link used while a newer `burrow pair` is open (it must not burn the newer offer);
 *  - a link used after it expired (a phone whose clock lies, so only the Burrow's expiry stands in the way);
 *  - a revoked phone reconnecting with its old keys, again and again.
 * Each is refused with its close code (`protocol/src/close-codes.ts`, P-CLOSE-1), learns nothing (no message
 * 2, no directory), and nothing is added to the ACL (`burrow devices --json`).
 */
import {
  type Clock,
  MemoryPairingStorage,
  PairingError,
  type PairingRecord,
  pairWithOffer,
  parsePairingLink,
  systemClock,
} from '@burrow/pocket/core';
import { CloseCode } from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { connectAttempt, openPairing } from '../helpers/attack-phone.js';
import { BurrowDaemon, until } from '../helpers/burrow-daemon.js';
import { nodeSocketFactory, recordingSocketFactory } from '../helpers/node-socket.js';
import { phoneConnection } from '../helpers/phone-connection.js';
import { startRemoteBurrow } from '../helpers/remote-burrow.js';

/** Reconnects a revoked phone tries (each must be refused the same way). */
const REVOKED_ATTEMPTS = 5;
/** The shortest pairing expiry the Burrow accepts (`pairing-offer.ts`), for the expired-link case. */
const SHORT_TTL_MS = 1_000;

let relay: RelayHandle;
let daemon: BurrowDaemon;

interface DeviceRow {
  readonly deviceId: string;
  readonly label: string;
  readonly connected: boolean;
}

const devices = () => daemon.json<DeviceRow[]>('devices', '--json');

beforeAll(async () => {
  relay = await startRelay();
  daemon = await BurrowDaemon.start();
  const enrolled = await daemon.cli('enroll', '--relay', relay.url);
  expect(enrolled.code, enrolled.stderr).toBe(0);
});

afterAll(async () => {
  await daemon?.stop();
  await relay?.stop();
});

function pairWith(link: string, label: string, clock: Clock = systemClock): Promise<PairingRecord> {
  return pairWithOffer({
    offer: parsePairingLink(link),
    socketFactory: nodeSocketFactory(),
    storage: new MemoryPairingStorage(),
    label,
    platform: 'node',
    userAgent: 'vitest',
    onCode: () => {},
    clock,
  });
}

/** A phone whose clock is an hour behind: its own expiry check passes, so only the Burrow's applies. */
const lyingClock: Clock = { ...systemClock, now: () => Date.now() - 60 * 60_000 };

async function pairingFailure(promise: Promise<unknown>): Promise<PairingError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PairingError);
  return error as PairingError;
}

describe('pairing links', () => {
  it('a link works once: a second use is refused PAIRING_UNAVAILABLE and adds nothing', async () => {
    const { link, exited } = await openPairing(daemon, 'first phone');
    const first = await pairWith(link, 'first phone');
    expect(await exited).toBe(0);
    expect((await devices()).map((d) => d.deviceId)).toEqual([first.deviceId]);

    const started = Date.now();
    const again = await pairingFailure(pairWith(link, 'thief'));
    const refusedMs = Date.now() - started;
    expect(again.reason).toBe('unavailable');
    expect(again.message).toBe('this pairing link was used or has expired');
    // A phone that ignores its own checks and retries gets the same answer.
    const third = await pairingFailure(pairWith(link, 'thief', lyingClock));
    expect(third.reason).toBe('unavailable');
    console.log(
      `[figure] pairing link reused: refused ${CloseCode.PAIRING_UNAVAILABLE} (${again.message}) in ${refusedMs} ms; ACL still 1 device`,
    );
    expect((await devices()).map((d) => d.deviceId)).toEqual([first.deviceId]);
  });

  it('an old link used while a newer `burrow pair` is open does not burn the new offer', async () => {
    const before = await devices();
    const old = await openPairing(daemon, 'old offer');
    old.pair.kill('SIGTERM');
    await old.exited;
    const fresh = await openPairing(daemon, 'new phone');
    // IKpsk2 mixes the psk only into message 2, so the Burrow answers message 1 with the open offer; the phone
    // holding the old secret cannot read message 2 and cannot confirm. The new offer must survive that.
    const stale = await pairingFailure(pairWith(old.link, 'thief', lyingClock));
    expect(stale.reason).toBe('protocol');
    const owner = await pairWith(fresh.link, 'new phone');
    expect(await fresh.exited).toBe(0);
    const after = await devices();
    expect(after.map((d) => d.deviceId).sort()).toEqual(
      [...before.map((d) => d.deviceId), owner.deviceId].sort(),
    );
    expect(after.find((d) => d.deviceId === owner.deviceId)?.label).toBe('new phone');
    console.log(
      `[figure] stale link during a newer offer: the thief failed with '${stale.reason}' (${stale.message}); the owner then paired with the new link`,
    );
  });

  it('an expired link is refused by the Burrow even when the phone clock lies', async () => {
    // `burrow pair` has no expiry option, so this uses the daemon's own RemoteService in-process (the same
    // objects the daemon runs: tests/helpers/remote-burrow.ts), which takes one.
    const burrow = await startRemoteBurrow(relay.url);
    try {
      await until(() => burrow.service.linkStatus.kind === 'connected', 'the relay link');
      let asked = 0;
      const started = await burrow.service.startPairing({
        label: null,
        ttlMs: SHORT_TTL_MS,
        approve: async () => {
          asked++;
          return true;
        },
        done: () => {},
      });
      await new Promise((r) => setTimeout(r, started.expiresAt - Date.now() + 200));
      // An honest phone refuses an expired link itself, without opening a socket.
      const honest = await pairingFailure(pairWith(started.link, 'late phone'));
      expect(honest.reason).toBe('expired');
      // A phone with a lying clock gets through to the Burrow, which refuses it.
      const liar = await pairingFailure(pairWith(started.link, 'late phone', lyingClock));
      expect(liar.reason).toBe('unavailable');
      expect(asked).toBe(0);
      expect(burrow.service.listDevices()).toEqual([]);
      console.log(
        `[figure] expired link (ttl ${SHORT_TTL_MS} ms): honest phone '${honest.reason}' locally; lying clock refused ${CloseCode.PAIRING_UNAVAILABLE} by the Burrow; ACL empty, owner never asked`,
      );
    } finally {
      await burrow.stop();
    }
  });
});

describe('a revoked phone', () => {
  it('is refused at the handshake every time with UNKNOWN_DEVICE and learns nothing', async () => {
    const { pairing, storage } = await daemon.pairPhone('soon revoked');
    const live = phoneConnection({ pairing, storage });
    const liveEvents: string[] = [];
    live.subscribe((e) => liveEvents.push(e.type));
    live.start();
    await until(() => live.status.kind === 'connected', 'the phone before revocation');
    const revoke = await daemon.cli('devices', 'revoke', pairing.deviceId);
    expect(revoke.code, revoke.stderr).toBe(0);
    await until(() => liveEvents.includes('revoked'), 'the live connection to close');
    live.stop();
    expect((await devices()).some((d) => d.deviceId === pairing.deviceId)).toBe(false);

    // Its old keys, fresh timestamps each time (as Pocket would send them): refused at message 1.
    const attempts = [];
    for (let i = 0; i < REVOKED_ATTEMPTS; i++)
      attempts.push(await connectAttempt(relay.wsUrl, pairing, Date.now()));
    for (const a of attempts) expect(a).toMatchObject({ code: CloseCode.UNKNOWN_DEVICE, frames: 0 });

    // Pocket's own client: the terminal close, no directory, and it does not retry.
    const sockets = recordingSocketFactory();
    const stored = (await storage.get(pairing.burrowId)) ?? pairing;
    const conn = phoneConnection(
      { pairing: stored, storage },
      {
        socketFactory: sockets.factory,
        backoff: { initialDelayMs: 100, growthFactor: 2, maxDelayMs: 500, jitter: 0 },
      },
    );
    const events: string[] = [];
    conn.subscribe((e) => events.push(e.type));
    conn.start();
    await until(() => events.includes('revoked'), 'Pocket to see the refusal');
    await new Promise((r) => setTimeout(r, 1_000));
    conn.stop();
    expect(events).not.toContain('directory');
    expect(conn.sessions.size).toBe(0);
    expect(sockets.sockets.length).toBe(1);
    const ms = attempts.map((a) => a.ms);
    console.log(
      `[figure] revoked phone: ${REVOKED_ATTEMPTS}/${REVOKED_ATTEMPTS} raw reconnects closed ${CloseCode.UNKNOWN_DEVICE} with 0 frames received ` +
        `(refusal ${Math.min(...ms)}..${Math.max(...ms)} ms); Pocket: 1 socket, no directory, status '${conn.status.kind}'`,
    );
    expect((await devices()).some((d) => d.deviceId === pairing.deviceId)).toBe(false);
  });
});
