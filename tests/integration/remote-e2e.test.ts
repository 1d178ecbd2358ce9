/**
 * Enroll → pair (auto-approved) → connect → list → attach → `echo hello` → revoke, through a real relay under
 * `wrangler dev`, real bash, and Pocket's own client core on Node `ws`.
 */
import {
  MemoryPairingStorage,
  type PairingRecord,
  pairWithOffer,
  parsePairingLink,
} from '@burrow/pocket/core';
import { CloseCode } from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { nodeSocketFactory } from '../helpers/node-socket.js';
import { phoneConnection } from '../helpers/phone-connection.js';
import { startRemoteBurrow } from '../helpers/remote-burrow.js';
import { until } from '../helpers/until.js';

let relay: RelayHandle;
let burrow: Awaited<ReturnType<typeof startRemoteBurrow>>;

beforeAll(async () => {
  relay = await startRelay();
  burrow = await startRemoteBurrow(relay.url);
  await until(() => burrow.service.linkStatus.kind === 'connected', 'the relay link');
});

afterAll(async () => {
  await burrow?.stop();
  await relay?.stop();
});

describe('remote end to end', () => {
  const storage = new MemoryPairingStorage();
  const message1s: Uint8Array[] = [];
  let pairing: PairingRecord;

  it('pairs with a link; both sides show the same code; the link works once', async () => {
    const burrowCodes: string[] = [];
    burrow.setApprover(async (req) => {
      burrowCodes.push(req.code);
      return true;
    });
    const link = await burrow.newPairingLink();
    const offer = parsePairingLink(link);
    let phoneCode = '';
    pairing = await pairWithOffer({
      offer,
      socketFactory: nodeSocketFactory(),
      storage,
      label: 'test phone',
      platform: 'node',
      userAgent: 'vitest',
      onCode: (c) => {
        phoneCode = c;
      },
    });
    expect(phoneCode).toMatch(/^\d{6}$/);
    expect(burrowCodes).toEqual([phoneCode]);
    expect(burrow.service.listDevices().map((d) => d.label)).toEqual(['test phone']);
    await expect(
      pairWithOffer({
        offer,
        socketFactory: nodeSocketFactory(),
        storage,
        label: 'x',
        platform: 'x',
        userAgent: 'x',
        onCode: () => {},
      }),
    ).rejects.toMatchObject({ reason: 'unavailable' });
  });

  it('connects, lists, attaches, types echo hello and reads it back', async () => {
    const session = burrow.registry.create({
      name: 'shell',
      cwd: burrow.stateDir,
      command: ['/bin/bash', '--norc', '--noprofile'],
      cols: 80,
      rows: 24,
    });
    const conn = phoneConnection({ pairing, storage }, { socketFactory: nodeSocketFactory(message1s) });
    conn.start();
    try {
      await until(() => conn.sessions.has(session.id), 'the directory');
      expect(conn.statusText).toBe('connected');
      let out = '';
      let snapshots = 0;
      const term = conn.attach(
        session.id,
        { cols: 100, rows: 30 },
        {
          onSnapshot: () => {
            snapshots++;
          },
          onOutput: (d) => {
            out += new TextDecoder().decode(d);
          },
        },
      );
      await until(() => snapshots === 1, 'the attach snapshot');
      term.input('echo hel""lo\r');
      await until(() => out.includes('hello'), 'echo output');
      await until(() => session.info().cols === 100, 'the attach size');
      // Session control from the phone: create, rename, kill — each reflected in the directory.
      const created = await conn.create({
        argv: ['/bin/sh', '-c', 'sleep 30'],
        cwd: null,
        name: 'made-remotely',
        cols: 80,
        rows: 24,
      });
      await until(() => conn.sessions.get(created)?.name === 'made-remotely', 'the created session');
      await conn.rename(created, 'renamed-remotely');
      await until(() => conn.sessions.get(created)?.name === 'renamed-remotely', 'the rename');
      await conn.kill(created);
      await until(() => !conn.sessions.has(created), 'the kill');
      await expect(conn.rename('nosuchid', 'x')).rejects.toThrow('no such session');
      const page = await conn.history(session.id, 0, 10);
      expect(page).toMatchObject({ endLine: 0, hasOlder: false });
      conn.acknowledge(session.id, false);
      await until(() => burrow.attention.calls.includes(`ack ${session.id} false`), 'acknowledge routed');
    } finally {
      conn.stop();
    }
  });

  it('refuses a replayed message 1', async () => {
    expect(message1s.length).toBeGreaterThan(0);
    const ws = new WebSocket(`${relay.wsUrl}/v1/burrows/${pairing.burrowId}/client`);
    const code = await new Promise<number>((resolve) => {
      ws.on('open', () => ws.send(message1s[0]!));
      ws.on('close', (c) => resolve(c));
    });
    expect(code).toBe(CloseCode.STALE_HANDSHAKE);
  });

  it('revocation drops the live connection and refuses the next connect', async () => {
    const stored = (await storage.get(pairing.burrowId))!;
    const conn = phoneConnection({ pairing: stored, storage });
    let revoked = 0;
    conn.subscribe((e) => {
      if (e.type === 'revoked') revoked++;
    });
    conn.start();
    await until(() => conn.status.kind === 'connected', 'connect');
    expect(await burrow.service.revokeDevice(stored.deviceId)).toEqual({
      revoked: true,
      closed: 1,
      deliveryRevoked: true,
    });
    await until(() => revoked === 1, 'the revocation close');
    expect(conn.statusText).toBe('this phone was removed');
    const again = phoneConnection({ pairing: (await storage.get(pairing.burrowId))!, storage });
    let refused = '';
    again.subscribe((e) => {
      if (e.type === 'status' && e.status.kind === 'closed') refused = e.status.reason;
    });
    again.start();
    await until(() => refused !== '', 'the refused connect');
    expect(refused).toBe('this phone is not paired with that computer');
    again.stop();
  });
});

describe('handshake budget', () => {
  it('closes a phone socket that never finishes the handshake', async () => {
    const ws = new WebSocket(`${relay.wsUrl}/v1/burrows/${burrow.enrollment.burrowId}/client`);
    const started = Date.now();
    const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
    expect(code).toBe(CloseCode.HANDSHAKE_TIMEOUT);
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
  }, 30_000);
});

describe('relay outage', () => {
  it('sessions keep running and the link says what is wrong in words', async () => {
    const session = burrow.registry.create({
      name: 'outage',
      cwd: burrow.stateDir,
      command: ['/bin/bash', '--norc', '--noprofile'],
    });
    await relay.stop();
    await until(() => burrow.service.linkStatus.kind === 'reconnecting', 'the link to notice');
    expect(burrow.service.statusText()).toMatch(
      /^reconnecting in \d+ s: (the connection dropped|the relay refused the connection|network error|the relay stopped answering|your computer is shutting down Burrow|the other side went away)$/,
    );
    const before = session.info().offset;
    session.input('local', new TextEncoder().encode('echo still""alive\r'));
    await until(() => session.info().offset > before, 'the session to keep producing output');
    expect(session.info().status).toBe('running');
  });
});
