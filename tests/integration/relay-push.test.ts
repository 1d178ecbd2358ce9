/**
 * The relay's push send end to end on workerd (`wrangler dev`), against the local push service (VAPID
 * verified by jose, RFC 8291 decrypted by http_ece): subscription PUT under the development switch, the
 * Burrow's send, per-target results, gone subscriptions deleted, limits, authentication, configuration.
 * [SPEC: RL-PUSH-1..7]
 */
import { randomBytes } from 'node:crypto';
import {
  decodeDeliveryListResponse,
  decodeErrorBody,
  decodePushSendResponse,
  decodeRelayInfo,
  encodeBase64url,
  MAX_PUSH_ENVELOPE_BYTES,
  MAX_PUSH_ENVELOPE_CHARS,
  MAX_PUSH_TARGETS,
} from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PUSH_SEND_BODY_BYTES } from '../../relay-worker/src/push/push-send.js';
import { generateVapidKeys } from '../../relay-worker/src/push/vapid-keys.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import {
  type BurrowCredentials,
  type Delivery,
  enroll,
  pushSendBody,
  putSubscription,
  registerDelivery,
  sendPush,
} from '../../relay-worker/test/relay-client.js';
import { type IssuedSubscription, LocalPushService } from '../helpers/push-service.js';

const SUBJECT = 'mailto:relay-operator@example.com';
let service: LocalPushService;
let vapidPublicKey: string;
/** VAPID configured and the development switch on. */
let relay: RelayHandle;
/** Neither: push unavailable, loopback endpoints refused. */
let plain: RelayHandle;

beforeAll(async () => {
  service = await LocalPushService.start();
  const { keys, secret } = await generateVapidKeys();
  vapidPublicKey = keys.publicKeyText;
  const started = await Promise.allSettled([
    startRelay({
      vars: { VAPID_PRIVATE_KEY: secret, VAPID_SUBJECT: SUBJECT, DEV_ALLOW_LOOPBACK_PUSH: '1' },
    }),
    startRelay(),
  ]);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
    throw failed.reason;
  }
  [relay, plain] = started.map((s) => (s as PromiseFulfilledResult<RelayHandle>).value) as [
    RelayHandle,
    RelayHandle,
  ];
});
afterAll(async () => {
  await Promise.all([relay?.stop(), plain?.stop(), service?.close()]);
});

const envelope = (bytes = 1200) => randomBytes(bytes);

interface Phone {
  readonly delivery: Delivery;
  readonly subscription: IssuedSubscription;
}

/** Pairs a phone with `burrow` and registers its subscription at the local push service. */
async function subscribedPhone(burrow: BurrowCredentials): Promise<Phone> {
  const delivery = await registerDelivery(relay.url, burrow);
  const subscription = service.subscribe(vapidPublicKey);
  const put = await putSubscription(relay.url, burrow.burrowId, delivery, subscription);
  expect(put.status, await put.text()).toBe(204);
  return { delivery, subscription };
}

async function results(response: Response) {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return decodePushSendResponse(JSON.parse(text)).results;
}

async function expectError(response: Response, status: number, code: string): Promise<void> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(decodeErrorBody(JSON.parse(text)).error.code).toBe(code);
}

const receivedFor = (endpoint: string) => service.received.filter((p) => p.endpoint === endpoint);

describe('GET /v1/info publishes the VAPID key [RL-PUSH-7]', () => {
  it('is the configured key as an uncompressed P-256 point, or null without one', async () => {
    const info = decodeRelayInfo(await (await fetch(`${relay.url}/v1/info`)).json());
    expect(info.vapidPublicKey).toBe(vapidPublicKey);
    const point = Buffer.from(info.vapidPublicKey!, 'base64url');
    expect([point.length, point[0]]).toEqual([65, 0x04]);
    expect(info.limits.maxPushTargets).toBe(MAX_PUSH_TARGETS);
    expect(decodeRelayInfo(await (await fetch(`${plain.url}/v1/info`)).json()).vapidPublicKey).toBeNull();
  });
});

describe('POST /v1/burrows/:id/push [RL-PUSH-1..4]', () => {
  it("sends one valid Web Push whose plaintext is the envelope's base64url text [RL-PUSH-TEXT]", async () => {
    const burrow = await enroll(relay.url);
    const phone = await subscribedPhone(burrow);
    const sealed = envelope(MAX_PUSH_ENVELOPE_BYTES);
    const body = pushSendBody(
      [{ deliveryId: phone.delivery.deliveryId, envelope: encodeBase64url(sealed) }],
      {
        sessionTopic: 'dGVybWluYWwtNw',
        ttlSeconds: 3600,
        urgency: 'high',
      },
    );
    const sentAt = Math.floor(Date.now() / 1000);
    expect(await results(await sendPush(relay.url, burrow.burrowId, body, burrow.burrowToken))).toEqual([
      { deliveryId: phone.delivery.deliveryId, outcome: 'accepted' },
    ]);
    const pushes = receivedFor(phone.subscription.endpoint);
    expect(pushes).toHaveLength(1);
    const push = pushes[0]!;
    expect(push.vapidPublicKey).toBe(vapidPublicKey);
    expect(push.claims.aud).toBe(service.origin);
    expect(push.claims.sub).toBe(SUBJECT);
    // DESIGN §4.4: exp at most 12 h ahead.
    expect(push.claims.exp).toBeGreaterThan(sentAt);
    expect(push.claims.exp).toBeLessThanOrEqual(sentAt + 12 * 3600 + 5);
    expect([push.ttl, push.urgency, push.topic]).toEqual([3600, 'high', 'dGVybWluYWwtNw']);
    expect(Buffer.from(push.plaintext).toString('ascii')).toBe(encodeBase64url(sealed));
    expect(push.plaintext.length).toBeLessThanOrEqual(MAX_PUSH_ENVELOPE_CHARS);
    expect(push.bodyBytes).toBeLessThanOrEqual(4096);
    expect(service.refused.filter((r) => r.endpoint === phone.subscription.endpoint)).toEqual([]);
  });

  it('gives each of two phones its own envelope', async () => {
    const burrow = await enroll(relay.url);
    const [a, b] = [await subscribedPhone(burrow), await subscribedPhone(burrow)];
    const [ea, eb] = [envelope(), envelope()];
    const body = pushSendBody([
      { deliveryId: a.delivery.deliveryId, envelope: encodeBase64url(ea) },
      { deliveryId: b.delivery.deliveryId, envelope: encodeBase64url(eb) },
    ]);
    expect(await results(await sendPush(relay.url, burrow.burrowId, body, burrow.burrowToken))).toEqual([
      { deliveryId: a.delivery.deliveryId, outcome: 'accepted' },
      { deliveryId: b.delivery.deliveryId, outcome: 'accepted' },
    ]);
    const [pa, pb] = [receivedFor(a.subscription.endpoint), receivedFor(b.subscription.endpoint)];
    expect([pa.length, pb.length]).toEqual([1, 1]);
    expect(Buffer.from(pa[0]!.envelope!).equals(ea)).toBe(true);
    expect(Buffer.from(pb[0]!.envelope!).equals(eb)).toBe(true);
    expect(Buffer.from(pa[0]!.plaintext).equals(Buffer.from(pb[0]!.plaintext))).toBe(false);
  });

  it('deletes a subscription its push service reports gone, and reports failures without their status (issue 16.1)', async () => {
    const burrow = await enroll(relay.url);
    const [gone, broken, fine] = [
      await subscribedPhone(burrow),
      await subscribedPhone(burrow),
      await subscribedPhone(burrow),
    ];
    service.respondWith(gone.subscription.endpoint, 404);
    service.respondWith(broken.subscription.endpoint, 500);
    const targets = [gone, broken, fine].map((p) => ({
      deliveryId: p.delivery.deliveryId,
      envelope: encodeBase64url(envelope()),
    }));
    expect(
      await results(await sendPush(relay.url, burrow.burrowId, pushSendBody(targets), burrow.burrowToken)),
    ).toEqual([
      { deliveryId: gone.delivery.deliveryId, outcome: 'gone' },
      // The relay does not pass on what the push service answered: it is no way to read other servers.
      { deliveryId: broken.delivery.deliveryId, outcome: 'failed' },
      { deliveryId: fine.delivery.deliveryId, outcome: 'accepted' },
    ]);
    const list = decodeDeliveryListResponse(
      await (
        await fetch(`${relay.url}/v1/burrows/${burrow.burrowId}/deliveries`, {
          headers: { Authorization: `Bearer ${burrow.burrowToken}` },
        })
      ).json(),
    );
    const byId = new Map(list.deliveries.map((d) => [d.deliveryId, d.subscriptionUpdatedAt]));
    // The delivery stays (the phone is still paired); only its dead subscription is gone.
    expect(byId.has(gone.delivery.deliveryId)).toBe(true);
    expect(byId.get(gone.delivery.deliveryId)).toBeNull();
    expect(byId.get(broken.delivery.deliveryId)).not.toBeNull();
    expect(byId.get(fine.delivery.deliveryId)).not.toBeNull();
    // A second send finds nothing to send to for the gone phone, and the push service sees no new POST.
    const again = await results(
      await sendPush(relay.url, burrow.burrowId, pushSendBody([targets[0]!]), burrow.burrowToken),
    );
    expect(again).toEqual([{ deliveryId: gone.delivery.deliveryId, outcome: 'no_subscription' }]);
    // The phone re-subscribes (a new endpoint) and is reachable again.
    const fresh = service.subscribe(vapidPublicKey);
    const put = await putSubscription(relay.url, burrow.burrowId, gone.delivery, fresh);
    expect(put.status).toBe(204);
    expect(
      await results(
        await sendPush(relay.url, burrow.burrowId, pushSendBody([targets[0]!]), burrow.burrowToken),
      ),
    ).toEqual([{ deliveryId: gone.delivery.deliveryId, outcome: 'accepted' }]);
    expect(receivedFor(fresh.endpoint)).toHaveLength(1);
  });

  it('treats 410 from an unsubscribed browser as gone', async () => {
    const burrow = await enroll(relay.url);
    const phone = await subscribedPhone(burrow);
    service.unsubscribe(phone.subscription.endpoint);
    const body = pushSendBody([
      { deliveryId: phone.delivery.deliveryId, envelope: encodeBase64url(envelope()) },
    ]);
    expect(await results(await sendPush(relay.url, burrow.burrowId, body, burrow.burrowToken))).toEqual([
      { deliveryId: phone.delivery.deliveryId, outcome: 'gone' },
    ]);
    expect(await results(await sendPush(relay.url, burrow.burrowId, body, burrow.burrowToken))).toEqual([
      { deliveryId: phone.delivery.deliveryId, outcome: 'no_subscription' },
    ]);
  });

  it("reaches nothing when naming another Burrow's deliveries", async () => {
    const [owner, other] = [await enroll(relay.url), await enroll(relay.url)];
    const phone = await subscribedPhone(owner);
    const before = service.received.length + service.refused.length;
    const body = pushSendBody([
      { deliveryId: phone.delivery.deliveryId, envelope: encodeBase64url(envelope()) },
    ]);
    expect(await results(await sendPush(relay.url, other.burrowId, body, other.burrowToken))).toEqual([
      { deliveryId: phone.delivery.deliveryId, outcome: 'no_subscription' },
    ]);
    // Nor may the other Burrow's token send as the owner.
    await expectError(
      await sendPush(relay.url, owner.burrowId, body, other.burrowToken),
      401,
      'unauthorized',
    );
    expect(service.received.length + service.refused.length).toBe(before);
  });

  it(`refuses more than ${MAX_PUSH_TARGETS} targets whole, and malformed sends`, async () => {
    const burrow = await enroll(relay.url);
    const targets = Array.from({ length: MAX_PUSH_TARGETS + 1 }, () => ({
      deliveryId: encodeBase64url(randomBytes(16)),
      envelope: encodeBase64url(envelope(16)),
    }));
    const send = (body: unknown) => sendPush(relay.url, burrow.burrowId, body, burrow.burrowToken);
    await expectError(await send(pushSendBody(targets)), 422, 'limit_exceeded');
    await expectError(await send({ targets: targets.slice(0, 1) }), 400, 'bad_request');
    await expectError(
      await send(pushSendBody(targets.slice(0, 1), { sessionTopic: 'x'.repeat(33) })),
      400,
      'bad_request',
    );
    const tooBig = encodeBase64url(envelope(MAX_PUSH_ENVELOPE_BYTES + 1));
    await expectError(
      await send(pushSendBody([{ deliveryId: targets[0]!.deliveryId, envelope: tooBig }])),
      400,
      'bad_request',
    );
  });

  it('bounds the body before reading it', async () => {
    const burrow = await enroll(relay.url);
    // Refused for its size, and read away before the answer (relay-worker/src/drain-body.ts).
    const huge = JSON.stringify({ pad: 'x'.repeat(MAX_PUSH_SEND_BODY_BYTES + 1024) });
    const response = await fetch(`${relay.url}/v1/burrows/${burrow.burrowId}/push`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${burrow.burrowToken}` },
      body: huge,
    });
    await expectError(response, 413, 'payload_too_large');
  });

  it('needs the Burrow token', async () => {
    const burrow = await enroll(relay.url);
    const phone = await subscribedPhone(burrow);
    const before = service.received.length + service.refused.length;
    const body = pushSendBody([
      { deliveryId: phone.delivery.deliveryId, envelope: encodeBase64url(envelope()) },
    ]);
    await expectError(await sendPush(relay.url, burrow.burrowId, body, null), 401, 'unauthorized');
    const wrong = encodeBase64url(randomBytes(32));
    await expectError(await sendPush(relay.url, burrow.burrowId, body, wrong), 401, 'unauthorized');
    // A phone's delivery token is not the Burrow's.
    await expectError(
      await sendPush(relay.url, burrow.burrowId, body, phone.delivery.deliveryToken),
      401,
      'unauthorized',
    );
    // An id nobody enrolled.
    const unknown = encodeBase64url(randomBytes(16));
    await expectError(await sendPush(relay.url, unknown, body, burrow.burrowToken), 404, 'not_found');
    expect(service.received.length + service.refused.length).toBe(before);
  });
});

describe('push rate per Burrow [RL-PUSH-5]', () => {
  it('refuses sends over the per-minute budget with 429 and Retry-After', async () => {
    const burrow = await enroll(relay.url);
    const info = decodeRelayInfo(await (await fetch(`${relay.url}/v1/info`)).json());
    const budget = info.limits.pushSendsPerMinutePerBurrow!;
    const body = pushSendBody([
      { deliveryId: encodeBase64url(randomBytes(16)), envelope: encodeBase64url(envelope(16)) },
    ]);
    // Sequential sends: the bucket also refills one send a second while they run, so count against time.
    const started = Date.now();
    let accepted = 0;
    let refused: Response | null = null;
    while (refused === null && accepted <= 2 * budget) {
      const response = await sendPush(relay.url, burrow.burrowId, body, burrow.burrowToken);
      if (response.status === 429) refused = response;
      else {
        expect(response.status).toBe(200);
        await response.body?.cancel();
        accepted += 1;
      }
    }
    const elapsedSeconds = Math.ceil((Date.now() - started) / 1000);
    expect(refused).not.toBeNull();
    expect(decodeErrorBody(await refused!.json()).error.code).toBe('rate_limited');
    expect(Number(refused!.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeGreaterThanOrEqual(budget);
    expect(accepted).toBeLessThanOrEqual(budget + elapsedSeconds);
    // Another Burrow's budget is its own.
    const other = await enroll(relay.url);
    const theirs = await sendPush(relay.url, other.burrowId, body, other.burrowToken);
    expect(theirs.status).toBe(200);
    await theirs.body?.cancel();
  });
});

describe('without VAPID and without the development switch [RL-PUSH-6]', () => {
  it('answers 503 push_unavailable to an authenticated send', async () => {
    const burrow = await enroll(plain.url);
    const body = pushSendBody([
      { deliveryId: encodeBase64url(randomBytes(16)), envelope: encodeBase64url(envelope(16)) },
    ]);
    await expectError(
      await sendPush(plain.url, burrow.burrowId, body, burrow.burrowToken),
      503,
      'push_unavailable',
    );
    // Authentication still comes first.
    await expectError(await sendPush(plain.url, burrow.burrowId, body, null), 401, 'unauthorized');
  });

  it('refuses a loopback endpoint at subscription PUT', async () => {
    const burrow = await enroll(plain.url);
    const delivery = await registerDelivery(plain.url, burrow);
    const subscription = service.subscribe(null);
    await expectError(
      await putSubscription(plain.url, burrow.burrowId, delivery, subscription),
      400,
      'bad_request',
    );
    const https = { ...subscription, endpoint: subscription.endpoint.replace('http:', 'https:') };
    await expectError(await putSubscription(plain.url, burrow.burrowId, delivery, https), 400, 'bad_request');
  });
});
