import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, openPushEnvelope, PushEnvelopeError } from '@burrow/crypto';
import {
  decodeBase64url,
  decodePushNotification,
  decodePushSendRequest,
  encodeBase64url,
  MAX_PUSH_TARGETS,
  type PushSendRequest,
  type PushTargetResult,
  RelayCodecError,
} from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUSH_BODIES, pushTopicFor } from './push-payload.js';
import { type PushDevice, type PushDeviceStore, PushSender } from './push-sender.js';

const NOW = 1_800_000_000_000;
const burrowIdBytes = crypto.getRandomValues(new Uint8Array(16));
const burrowId = encodeBase64url(burrowIdBytes);
const burrowToken = encodeBase64url(crypto.getRandomValues(new Uint8Array(32)));
const burrowStatic = generateKeyPair();

interface Phone extends PushDevice {
  readonly keyPair: ReturnType<typeof generateKeyPair>;
  lastSeen: number;
}
function phone(label: string): Phone {
  const keyPair = generateKeyPair();
  return {
    deliveryId: encodeBase64url(crypto.getRandomValues(new Uint8Array(16))),
    label,
    clientPublicKey: keyPair.publicKey,
    psk: crypto.getRandomValues(new Uint8Array(32)),
    keyPair,
    lastSeen: 0,
  };
}

/** An in-memory devices store; `seqs` stands for what the real store persists. */
class MemoryDevices implements PushDeviceStore {
  readonly seqs = new Map<string, number>();
  constructor(public devices: Phone[]) {}
  activeDevices() {
    return this.devices;
  }
  reservePushSeq(deliveryId: string) {
    const next = (this.seqs.get(deliveryId) ?? 0) + 1;
    this.seqs.set(deliveryId, next);
    return next;
  }
}

/** Stands in for the relay's `POST /v1/burrows/:id/push` on real loopback HTTP. */
let server: Server;
let relayUrl: string;
let requests: { url: string; authorization: string | undefined; body: PushSendRequest }[] = [];
let answer: (send: PushSendRequest) => { status: number; json: unknown } = (send) => ({
  status: 200,
  json: { results: send.targets.map((t) => ({ deliveryId: t.deliveryId, outcome: 'accepted' })) },
});

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = decodePushSendRequest(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    requests.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
    const { status, json } = answer(body);
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relayUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function sender(devices: PushDeviceStore, fetchFn: typeof fetch = fetch) {
  requests = [];
  return new PushSender({
    relayUrl,
    burrowId,
    burrowToken,
    staticKeyPair: burrowStatic,
    devices,
    fetch: fetchFn,
    clock: () => NOW,
  });
}

/** What the phone's service worker does with its envelope. */
function open(p: Phone, envelope: string) {
  const opened = openPushEnvelope(decodeBase64url(envelope), {
    burrowId: burrowIdBytes,
    deliveryId: p.deliveryId,
    recipientStaticKeyPair: p.keyPair,
    senderStaticKey: burrowStatic.publicKey,
    psk: p.psk,
    lastSeenSeq: p.lastSeen,
  });
  p.lastSeen = opened.seq;
  return { seq: opened.seq, notification: decodePushNotification(opened.payload) };
}

const respond = (fn: (id: string, i: number) => PushTargetResult) => (send: PushSendRequest) => ({
  status: 200,
  json: { results: send.targets.map((t, i) => fn(t.deliveryId, i)) },
});

describe('PushSender', () => {
  it('seals one envelope per active device and makes one authenticated relay call', async () => {
    const phones = [phone('pixel'), phone('iphone')];
    answer = respond((deliveryId) => ({ deliveryId, outcome: 'accepted' }));
    const report = await sender(new MemoryDevices(phones)).send({
      sessionId: 'sess-1',
      label: 'npm\u0007 test\u202e',
      reason: 'exit',
    });
    expect(report).toMatchObject({
      outcome: 'delivered',
      targets: 2,
      delivered: 2,
      dropped: 0,
      relayError: null,
    });
    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(req!.url).toBe(`/v1/burrows/${burrowId}/push`);
    expect(req!.authorization).toBe(`Bearer ${burrowToken}`);
    expect(req!.body.sessionTopic).toBe(pushTopicFor(burrowStatic.privateKey, 'sess-1'));
    expect(req!.body.sessionTopic).toHaveLength(32);
    expect(req!.body).toMatchObject({ ttlSeconds: 3600, urgency: 'high' });
    for (const [i, p] of phones.entries()) {
      const { seq, notification } = open(p, req!.body.targets[i]!.envelope);
      expect(seq).toBe(1);
      expect(notification).toEqual({
        v: 1,
        sessionId: 'sess-1',
        label: 'npm test',
        body: PUSH_BODIES.exit,
        ts: NOW,
      });
    }
    // Another phone cannot open this one's envelope.
    expect(() => open(phones[1]!, req!.body.targets[0]!.envelope)).toThrow(PushEnvelopeError);
  });

  it('sequence numbers climb per device across sends; a replayed envelope is refused by the phone', async () => {
    const p = phone('pixel');
    const store = new MemoryDevices([p]);
    const s = sender(store);
    await s.send({ sessionId: 's', label: '', reason: 'report' });
    await s.send({ sessionId: 's', label: '', reason: 'watching' });
    const [first, second] = requests.map((r) => r.body.targets[0]!.envelope);
    expect(open(p, first!).seq).toBe(1);
    const later = open(p, second!);
    expect(later.seq).toBe(2);
    expect(later.notification.label).toBe('terminal');
    expect(() => open(p, first!)).toThrow(/seen/);
    expect(store.seqs.get(p.deliveryId)).toBe(2);
  });

  it('reads the devices at send time: a revoked one is not a target', async () => {
    const [a, b] = [phone('a'), phone('b')];
    const store = new MemoryDevices([a, b]);
    const s = sender(store);
    store.devices = [b];
    await s.send({ sessionId: 's', label: 'x', reason: 'report' });
    expect(requests[0]!.body.targets.map((t) => t.deliveryId)).toEqual([b.deliveryId]);
  });

  it('clamps to MAX_PUSH_TARGETS and reports how many were dropped', async () => {
    const phones = Array.from({ length: MAX_PUSH_TARGETS + 3 }, (_, i) => phone(`p${i}`));
    const report = await sender(new MemoryDevices(phones)).send({
      sessionId: 's',
      label: 'x',
      reason: 'test',
    });
    expect(requests[0]!.body.targets).toHaveLength(MAX_PUSH_TARGETS);
    expect(report).toMatchObject({ outcome: 'delivered', targets: MAX_PUSH_TARGETS, dropped: 3 });
  });

  it('classifies partial, gone, no_subscriptions and zero_delivered', async () => {
    const phones = [phone('a'), phone('b'), phone('c')];
    const outcomes: PushTargetResult['outcome'][] = ['accepted', 'gone', 'failed'];
    answer = respond((deliveryId, i) => ({ deliveryId, outcome: outcomes[i]! }));
    const partial = await sender(new MemoryDevices(phones)).send({
      sessionId: 's',
      label: 'x',
      reason: 'report',
    });
    expect(partial).toMatchObject({
      outcome: 'partial',
      delivered: 1,
      gone: [phones[1]!.deliveryId],
      failed: [phones[2]!.deliveryId],
    });
    answer = respond((deliveryId) => ({ deliveryId, outcome: 'no_subscription' }));
    expect(
      (await sender(new MemoryDevices(phones)).send({ sessionId: 's', label: 'x', reason: 'test' })).outcome,
    ).toBe('no_subscriptions');
    answer = respond((deliveryId, i) =>
      i === 0 ? { deliveryId, outcome: 'gone' } : { deliveryId, outcome: 'no_subscription' },
    );
    expect(
      (await sender(new MemoryDevices(phones)).send({ sessionId: 's', label: 'x', reason: 'test' })).outcome,
    ).toBe('zero_delivered');
  });

  it('no devices: no relay call', async () => {
    const report = await sender(new MemoryDevices([])).send({ sessionId: 's', label: 'x', reason: 'test' });
    expect(report).toMatchObject({ outcome: 'no_devices', targets: 0, delivered: 0 });
    expect(requests).toHaveLength(0);
  });

  it('a refused, malformed or unreachable relay is zero_delivered with the reason, never a throw', async () => {
    const phones = [phone('a')];
    answer = () => ({ status: 503, json: { error: { code: 'push_unavailable', message: 'no VAPID' } } });
    expect(
      await sender(new MemoryDevices(phones)).send({ sessionId: 's', label: 'x', reason: 'test' }),
    ).toMatchObject({
      outcome: 'zero_delivered',
      relayError: { status: 503, message: 'relay refused the push: push_unavailable' },
    });
    answer = () => ({ status: 200, json: { results: [{ deliveryId: 'nope', outcome: 'accepted' }] } });
    expect(
      await sender(new MemoryDevices(phones)).send({ sessionId: 's', label: 'x', reason: 'test' }),
    ).toMatchObject({
      outcome: 'zero_delivered',
      relayError: { status: 200, message: 'relay answered a malformed push result' },
    });
    // The relay answered for another delivery only: ours counts as failed.
    const other = phone('z').deliveryId;
    answer = () => ({ status: 200, json: { results: [{ deliveryId: other, outcome: 'accepted' }] } });
    expect(
      await sender(new MemoryDevices(phones)).send({ sessionId: 's', label: 'x', reason: 'test' }),
    ).toMatchObject({
      outcome: 'zero_delivered',
      failed: [phones[0]!.deliveryId],
    });
    const closed = new PushSender({
      relayUrl: 'http://127.0.0.1:9',
      burrowId,
      burrowToken,
      staticKeyPair: burrowStatic,
      devices: new MemoryDevices(phones),
      fetch,
      clock: () => NOW,
    });
    expect(await closed.send({ sessionId: 's', label: 'x', reason: 'test' })).toMatchObject({
      outcome: 'zero_delivered',
      relayError: { status: null, message: 'relay unreachable' },
    });
  });

  it('rejects a bad session id or burrowId as programming errors', async () => {
    await expect(
      sender(new MemoryDevices([phone('a')])).send({ sessionId: 'bad id', label: 'x', reason: 'test' }),
    ).rejects.toThrow(RelayCodecError);
    expect(
      () =>
        new PushSender({
          relayUrl,
          burrowId: 'AAAA',
          burrowToken,
          staticKeyPair: burrowStatic,
          devices: new MemoryDevices([]),
          fetch,
          clock: Date.now,
        }),
    ).toThrow(RangeError);
  });
});
