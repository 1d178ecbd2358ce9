/**
 * The relay's push code (relay-worker/src/push, run here in Node) against the local push service: VAPID
 * verified by jose, RFC 8291 decrypted by http_ece, real HTTP on loopback, and inside it a real sealed
 * envelope the phone opens.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPair, openPushEnvelope, sealPushEnvelope } from '@burrow/crypto';
import {
  decodeBase64url,
  decodePushNotification,
  encodeBase64url,
  encodePushNotification,
} from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HeldSubscription,
  handlePushSend,
  type PushSendDeps,
} from '../../relay-worker/src/push/push-send.js';
import { sendWebPush } from '../../relay-worker/src/push/send-web-push.js';
import { signVapidJwt, vapidAuthorization } from '../../relay-worker/src/push/vapid-jwt.js';
import { generateVapidKeys, type VapidKeys } from '../../relay-worker/src/push/vapid-keys.js';
import { VapidSigner } from '../../relay-worker/src/push/vapid-signer.js';
import { encryptWebPush } from '../../relay-worker/src/push/web-push-encryption.js';
import { freePort, REPO_ROOT } from '../../relay-worker/test/harness.js';
import { type IssuedSubscription, LocalPushService } from '../helpers/push-service.js';

let service: LocalPushService;
let keys: VapidKeys;
let vapid: VapidSigner;
const burrowId = crypto.getRandomValues(new Uint8Array(16));
const burrowStatic = generateKeyPair();

beforeAll(async () => {
  service = await LocalPushService.start();
  keys = (await generateVapidKeys()).keys;
  vapid = new VapidSigner(keys, 'mailto:relay-operator@example.com');
});
afterAll(() => service.close());

interface Phone {
  readonly deliveryId: string;
  readonly staticKeyPair: ReturnType<typeof generateKeyPair>;
  readonly psk: Uint8Array;
  readonly subscription: IssuedSubscription;
}

function phone(applicationServerKey: string | null = null): Phone {
  return {
    deliveryId: encodeBase64url(crypto.getRandomValues(new Uint8Array(16))),
    staticKeyPair: generateKeyPair(),
    psk: crypto.getRandomValues(new Uint8Array(32)),
    subscription: service.subscribe(applicationServerKey),
  };
}

function envelopeFor(p: Phone, seq: number): string {
  const payload = encodePushNotification({
    v: 1,
    sessionId: 's1',
    label: 'build',
    body: 'Needs you',
    ts: Date.now(),
  });
  return encodeBase64url(
    sealPushEnvelope({
      burrowId,
      deliveryId: p.deliveryId,
      senderStaticKeyPair: burrowStatic,
      recipientStaticKey: p.staticKeyPair.publicKey,
      psk: p.psk,
      seq,
      payload,
    }),
  );
}

function deps(phones: Phone[], extra: Partial<PushSendDeps> = {}) {
  const held = new Map<string, HeldSubscription>(
    phones.map((p) => [p.deliveryId, { deliveryId: p.deliveryId, ...p.subscription }]),
  );
  const d: PushSendDeps = {
    subscriptionsFor: (ids) => ids.flatMap((id) => (held.has(id) ? [held.get(id)!] : [])),
    deleteSubscription: (id, endpoint) => {
      if (held.get(id)?.endpoint === endpoint) held.delete(id);
    },
    vapid,
    fetch: (url, init) => fetch(url, init),
    clock: Date.now,
    allowLoopbackForDev: true,
    ...extra,
  };
  return { held, deps: d };
}

const sendBody = (targets: { deliveryId: string; envelope: string }[]) => ({
  targets,
  sessionTopic: 'dG9waWMtczE',
  ttlSeconds: 120,
  urgency: 'high',
});

describe('relay push → local push service', () => {
  it('delivers each sealed envelope; the service verifies VAPID, decrypts, and the phone opens it', async () => {
    const phones = [phone(keys.publicKeyText), phone()];
    const before = service.received.length;
    const envelopes = phones.map((p) => envelopeFor(p, 1));
    const result = await handlePushSend(
      sendBody(phones.map((p, i) => ({ deliveryId: p.deliveryId, envelope: envelopes[i]! }))),
      deps(phones).deps,
    );
    expect(result).toEqual({
      ok: true,
      value: { results: phones.map((p) => ({ deliveryId: p.deliveryId, outcome: 'accepted' })) },
    });
    const got = service.received.slice(before);
    expect(got).toHaveLength(2);
    for (const [i, p] of phones.entries()) {
      const push = got.find((r) => r.endpoint === p.subscription.endpoint)!;
      expect(push).toMatchObject({
        ttl: 120,
        urgency: 'high',
        topic: 'dG9waWMtczE',
        vapidPublicKey: keys.publicKeyText,
      });
      expect(push.claims.aud).toBe(service.origin);
      expect(push.claims.sub).toBe('mailto:relay-operator@example.com');
      expect(push.bodyBytes).toBeLessThanOrEqual(4096);
      // RL-PUSH-TEXT: the push message is the envelope's base64url text as the Burrow sent it.
      expect(Buffer.from(push.plaintext).toString('ascii')).toBe(envelopes[i]);
      const opened = openPushEnvelope(push.envelope!, {
        burrowId,
        deliveryId: p.deliveryId,
        recipientStaticKeyPair: p.staticKeyPair,
        senderStaticKey: burrowStatic.publicKey,
        psk: p.psk,
        lastSeenSeq: 0,
      });
      expect(decodePushNotification(opened.payload)).toMatchObject({ sessionId: 's1', label: 'build' });
    }
  });

  it('gone (404/410) deletes the subscription; 500 and a wrong VAPID key are failures, their status kept back', async () => {
    const [gone404, gone410, broken, otherKey, fine] = [
      phone(),
      phone(),
      phone(),
      phone('B'.repeat(87)),
      phone(),
    ];
    service.respondWith(gone404!.subscription.endpoint, 404);
    service.respondWith(gone410!.subscription.endpoint, 410);
    service.respondWith(broken!.subscription.endpoint, 500);
    const phones = [gone404!, gone410!, broken!, otherKey!, fine!];
    const { held, deps: d } = deps(phones);
    const result = await handlePushSend(
      sendBody(phones.map((p) => ({ deliveryId: p.deliveryId, envelope: envelopeFor(p, 7) }))),
      d,
    );
    // Only the outcome reaches the Burrow, never the push service's status (issue 16.1, RL-PUSH-2).
    expect(result.ok && result.value.results.map((r) => r.outcome)).toEqual([
      'gone',
      'gone',
      'failed',
      'failed',
      'accepted',
    ]);
    expect(
      result.ok && result.value.results.every((r) => Object.keys(r).sort().join() === 'deliveryId,outcome'),
    ).toBe(true);
    expect([...held.keys()]).toEqual([broken!.deliveryId, otherKey!.deliveryId, fine!.deliveryId]);
  });

  it('a push service that never answers is a failure without a status once the timeout passes', async () => {
    const p = phone();
    service.respondWith(p.subscription.endpoint, 'stall');
    const result = await sendWebPush(
      p.subscription,
      decodeBase64url(envelopeFor(p, 1)),
      { vapid, ttlSeconds: 60, urgency: 'normal', timeoutMs: 300, allowLoopbackForDev: true },
      (url, init) => fetch(url, init),
      Date.now,
    );
    expect(result).toEqual({ outcome: 'failed', status: null, reason: 'push service timed out' });
  });

  it('without the development switch the relay never posts to loopback', async () => {
    const p = phone();
    const before = service.received.length + service.refused.length;
    const result = await handlePushSend(
      sendBody([{ deliveryId: p.deliveryId, envelope: envelopeFor(p, 1) }]),
      deps([p], { allowLoopbackForDev: false }).deps,
    );
    expect(result.ok && result.value.results).toEqual([{ deliveryId: p.deliveryId, outcome: 'failed' }]);
    expect(service.received.length + service.refused.length).toBe(before);
  });
});

describe('the local push service refuses what a real one would', () => {
  async function post(sub: IssuedSubscription, body: Uint8Array, headers: Record<string, string>) {
    return fetch(sub.endpoint, {
      method: 'POST',
      body,
      headers: { 'Content-Encoding': 'aes128gcm', TTL: '60', ...headers },
    });
  }
  const recipient = (sub: IssuedSubscription) => ({
    p256dh: decodeBase64url(sub.keys.p256dh),
    auth: decodeBase64url(sub.keys.auth),
  });

  it('a token with exp over 24 h, another audience, or a missing TTL; a tampered body', async () => {
    const sub = service.subscribe();
    const body = await encryptWebPush(new Uint8Array(10), recipient(sub));
    const now = Math.floor(Date.now() / 1000);
    const token = (aud: string, exp: number) => signVapidJwt(keys, { aud, exp, sub: 'mailto:a@example.com' });
    const auth = async (aud: string, exp: number) =>
      vapidAuthorization(await token(aud, exp), keys.publicKeyText);
    expect(
      (await post(sub, body, { Authorization: await auth(service.origin, now + 25 * 3600) })).status,
    ).toBe(401);
    expect(
      (await post(sub, body, { Authorization: await auth('https://push.example.net', now + 3600) })).status,
    ).toBe(401);
    expect((await post(sub, body, { Authorization: await auth(service.origin, now - 10) })).status).toBe(401);
    const good = await auth(service.origin, now + 3600);
    expect((await post(sub, body, { Authorization: good, TTL: '' })).status).toBe(400);
    expect((await post(sub, body, { Authorization: good, Urgency: 'asap' })).status).toBe(400);
    const tampered = body.slice();
    tampered[tampered.length - 1]! ^= 1;
    expect((await post(sub, tampered, { Authorization: good })).status).toBe(400);
    expect((await post(sub, new Uint8Array(4097), { Authorization: good })).status).toBe(413);
    expect((await post(sub, body, { Authorization: good })).status).toBe(201);
    service.unsubscribe(sub.endpoint);
    expect((await post(sub, body, { Authorization: good })).status).toBe(410);
  });
});

describe("the same push code on workerd (wrangler's dev server) → local push service", () => {
  const CONFIG = join(REPO_ROOT, 'relay-worker', 'src', 'push', 'workerd-check', 'wrangler.toml');
  const READY_TIMEOUT_MS = 120_000;
  let child: ChildProcess | undefined;
  let persistDir = '';
  let url = '';

  beforeAll(async () => {
    const port = await freePort();
    persistDir = await mkdtemp(join(tmpdir(), 'burrow-push-workerd-'));
    // The relay's own dev server (no inspector, no Local Explorer, owner-only loopback: issues 16.3, 24.1).
    const args = [
      '--config',
      CONFIG,
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--persist-to',
      persistDir,
    ];
    child = spawn(process.execPath, [join(REPO_ROOT, 'relay-worker', 'dev', 'serve-relay.mjs'), ...args], {
      cwd: persistDir,
      stdio: 'ignore',
      detached: true,
      env: {
        ...process.env,
        CLOUDFLARE_CF_FETCH_ENABLED: 'false',
        WRANGLER_SEND_METRICS: 'false',
        NO_UPDATE_NOTIFIER: '1',
      },
    });
    url = `http://127.0.0.1:${port}/`;
    const end = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      try {
        if ((await fetch(url)).status === 405) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > end)
        throw new Error(`wrangler dev did not serve ${CONFIG} within ${READY_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  });
  afterAll(async () => {
    if (child?.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    if (persistDir !== '') await rm(persistDir, { recursive: true, force: true });
  });

  it('reproduces RFC 8291 Appendix A, reaches loopback only with the dev switch, and the service accepts it', async () => {
    const subscription = service.subscribe();
    const before = service.received.length;
    const res = await fetch(url, { method: 'POST', body: JSON.stringify({ subscription }) });
    const out = (await res.json()) as Record<string, unknown>;
    expect(out).toMatchObject({
      rfc8291: true,
      delivered: { outcome: 'delivered', status: 201 },
      refused: { outcome: 'failed', status: null },
    });
    const push = service.received.slice(before).find((r) => r.endpoint === subscription.endpoint)!;
    expect(push).toMatchObject({
      ttl: 30,
      urgency: 'low',
      topic: 'd29ya2VyZA',
      vapidPublicKey: out.vapidPublicKey,
    });
    // sendWebPush itself, below the push-send route: the plaintext is exactly the bytes it was given.
    expect(push.plaintext).toEqual(new Uint8Array(300).fill(9));
  });
});
