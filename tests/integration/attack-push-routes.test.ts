/**
 * Crafted attacks (issue 8, "Hostile input") on the relay's push routes, against a real relay (`wrangler
 * dev`, VAPID configured, loopback push allowed for the local push service), a real `burrow daemon` with two
 * paired phones that hold Web Push subscriptions, and a second Burrow enrolled at the same relay:
 *  - a subscription PUT / DELETE under one phone's deliveryId with another phone's deliveryToken, a made-up
 *    token, and a token of the other Burrow: refused 401 (RL-HTTP-7), and the phone's subscription untouched;
 *  - the other Burrow, authenticated with its own token, naming the daemon's deliveryIds in a push send:
 *    nothing reaches the daemon's phones, and the answer is the one random ids get (RL-PUSH-2).
 */
import { randomBytes } from 'node:crypto';
import {
  decodePushSendResponse,
  decodeRelayInfo,
  encodeBase64url,
  type PushSendResponse,
} from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { BurrowDaemon, type PairedPhone } from '../helpers/burrow-daemon.js';
import { type IssuedSubscription, LocalPushService } from '../helpers/push-service.js';

let relay: RelayHandle;
let service: LocalPushService;
let daemon: BurrowDaemon;
let vapidPublicKey: string;
/** The daemon's two phones and the subscriptions they registered. */
let phones: Array<PairedPhone & { subscription: IssuedSubscription }>;
/** Another Burrow at the same relay, with one subscribed phone of its own. */
let other: BurrowCredentials;
let otherPhone: Delivery & { subscription: IssuedSubscription };

beforeAll(async () => {
  service = await LocalPushService.start();
  const { secret } = await generateVapidKeys();
  relay = await startRelay({
    vars: { VAPID_PRIVATE_KEY: secret, VAPID_SUBJECT: 'mailto:it@example.com', DEV_ALLOW_LOOPBACK_PUSH: '1' },
  });
  vapidPublicKey = decodeRelayInfo(await (await fetch(`${relay.url}/v1/info`)).json()).vapidPublicKey!;
  daemon = await BurrowDaemon.start();
  const enrolled = await daemon.cli('enroll', '--relay', relay.url);
  expect(enrolled.code, enrolled.stderr).toBe(0);
  phones = [];
  for (const label of ['phone one', 'phone two']) {
    const phone = await daemon.pairPhone(label);
    const subscription = service.subscribe(vapidPublicKey);
    const put = await putSubscription(relay.url, phone.pairing.burrowId, phone.pairing, subscription);
    expect(put.status, await put.text()).toBe(204);
    phones.push({ ...phone, subscription });
  }
  other = await enroll(relay.url);
  const delivery = await registerDelivery(relay.url, other);
  const subscription = service.subscribe(vapidPublicKey);
  expect((await putSubscription(relay.url, other.burrowId, delivery, subscription)).status).toBe(204);
  otherPhone = { ...delivery, subscription };
});

afterAll(async () => {
  await daemon?.stop();
  await relay?.stop();
  await service?.close();
});

/** Sends of each kind timed for the side-channel figure (within the 60-a-minute push budget, RL-PUSH-5). */
const TIMING_ROUNDS = 10;
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const randomId = () => encodeBase64url(randomBytes(16));
const randomToken = () => encodeBase64url(randomBytes(32));
const envelope = () => encodeBase64url(randomBytes(1200));
const receivedAt = (endpoint: string) => service.received.filter((p) => p.endpoint === endpoint).length;

function deleteSubscription(burrowId: string, deliveryId: string, token: string): Promise<Response> {
  return fetch(`${relay.url}/v1/burrows/${burrowId}/deliveries/${deliveryId}/subscription`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${token}` },
  });
}

/** `burrow push test --json`: a sealed push to every paired phone through the relay. */
async function pushTest() {
  const r = await daemon.cli('push', 'test', '--json');
  return JSON.parse(r.stdout) as { outcome: string; targets: number; delivered: number };
}

describe('subscription PUT / DELETE with a token that is not the phone’s own [RL-HTTP-7]', () => {
  it('is refused 401 with one answer for every wrong token, and the phone keeps its subscription', async () => {
    const [victim, accomplice] = [phones[0]!.pairing, phones[1]!.pairing];
    const burrowId = victim.burrowId;
    const attacker = service.subscribe(vapidPublicKey);
    const forged = (deliveryToken: string) =>
      putSubscription(relay.url, burrowId, { deliveryId: victim.deliveryId, deliveryToken }, attacker);
    const attempts: Array<[string, Response]> = [
      ['PUT, the other phone’s token', await forged(accomplice.deliveryToken)],
      ['PUT, a made-up token', await forged(randomToken())],
      ['PUT, a token of another Burrow', await forged(otherPhone.deliveryToken)],
      [
        'PUT, another Burrow’s delivery and token under this Burrow',
        await putSubscription(relay.url, burrowId, otherPhone, attacker),
      ],
      [
        'PUT, this Burrow’s delivery under the other Burrow',
        await putSubscription(relay.url, other.burrowId, victim, attacker),
      ],
      [
        'DELETE, the other phone’s token',
        await deleteSubscription(burrowId, victim.deliveryId, accomplice.deliveryToken),
      ],
      ['DELETE, a made-up token', await deleteSubscription(burrowId, victim.deliveryId, randomToken())],
      [
        'PUT, an unknown delivery',
        await putSubscription(
          relay.url,
          burrowId,
          { deliveryId: randomId(), deliveryToken: randomToken() },
          attacker,
        ),
      ],
    ];
    const answers = await Promise.all(
      attempts.map(async ([what, r]) => ({ what, status: r.status, body: await r.text() })),
    );
    for (const a of answers) expect(a.status, a.what).toBe(401);
    // Same body whichever token was wrong and whether the delivery exists: the caller learns nothing.
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    // Nor from the time (a figure, not asserted: the machine is shared). Interleaved so load hits both alike.
    const timed = async (deliveryId: string) => {
      const started = performance.now();
      const r = await putSubscription(
        relay.url,
        burrowId,
        { deliveryId, deliveryToken: randomToken() },
        attacker,
      );
      await r.text();
      expect(r.status).toBe(401);
      return performance.now() - started;
    };
    const timings = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < TIMING_ROUNDS; i++) {
      timings.known.push(await timed(victim.deliveryId));
      timings.unknown.push(await timed(randomId()));
    }

    // Untouched: the daemon's test push reaches both phones at their own endpoints, the attacker's gets none.
    const before = phones.map((p) => receivedAt(p.subscription.endpoint));
    const total = service.received.length;
    const push = await pushTest();
    expect(push).toMatchObject({ outcome: 'delivered', targets: 2, delivered: 2 });
    await service.waitForReceived(total + 2, 5_000);
    expect(phones.map((p) => receivedAt(p.subscription.endpoint))).toEqual(before.map((n) => n + 1));
    expect(receivedAt(attacker.endpoint)).toBe(0);
    const listed = await daemon.json<Array<{ deviceId: string; subscribed: boolean }>>('devices', '--json');
    expect(listed.map((d) => d.subscribed)).toEqual([true, true]);
    console.log(
      `[figure] forged subscription PUT/DELETE: ${answers.length}/${answers.length} refused 401 with one identical body; ` +
        `median over ${TIMING_ROUNDS} wrong-token PUTs ${median(timings.known).toFixed(1)} ms (known delivery) vs ${median(timings.unknown).toFixed(1)} ms (unknown); ` +
        `afterwards push test delivered ${push.delivered}/${push.targets} to the phones' own endpoints, 0 to the attacker's`,
    );
  });
});

describe('a push send naming another Burrow’s deliveryIds [RL-PUSH-2]', () => {
  it('reaches nothing, reports no_subscription, and answers as it does for random ids', async () => {
    const victims = phones.map((p) => p.pairing.deliveryId);
    const before = service.received.length;
    const send = async (ids: readonly string[]) => {
      const started = performance.now();
      const body = pushSendBody(ids.map((deliveryId) => ({ deliveryId, envelope: envelope() })));
      const response = await sendPush(relay.url, other.burrowId, body, other.burrowToken);
      const text = await response.text();
      expect(response.status, text).toBe(200);
      return { results: decodePushSendResponse(JSON.parse(text)).results, ms: performance.now() - started };
    };
    const outcomes = (r: PushSendResponse['results']) => r.map(({ deliveryId: _, ...rest }) => rest);
    const named = await send(victims);
    const random = await send([randomId(), randomId()]);
    expect(named.results).toEqual(victims.map((deliveryId) => ({ deliveryId, outcome: 'no_subscription' })));
    expect(outcomes(named.results)).toEqual(outcomes(random.results));
    // Mixed with its own phone: its own is delivered, the daemon's are not.
    const mixed = await send([otherPhone.deliveryId, ...victims]);
    expect(outcomes(mixed.results)).toEqual([
      { outcome: 'accepted' },
      { outcome: 'no_subscription' },
      { outcome: 'no_subscription' },
    ]);
    // Timing, interleaved so load hits both alike (a figure, not asserted: the machine is shared).
    const timings = { named: [] as number[], random: [] as number[] };
    for (let i = 0; i < TIMING_ROUNDS; i++) {
      timings.named.push((await send(victims)).ms);
      timings.random.push((await send([randomId(), randomId()])).ms);
    }
    await service.waitForReceived(before + 1, 5_000);
    // Give a stray push time to arrive before counting what the daemon's phones got: nothing.
    await new Promise((r) => setTimeout(r, 500));
    expect(service.received.length).toBe(before + 1);
    expect(phones.map((p) => receivedAt(p.subscription.endpoint))).toEqual(
      phones.map(
        (p) => service.received.slice(0, before).filter((x) => x.endpoint === p.subscription.endpoint).length,
      ),
    );
    console.log(
      `[figure] cross-Burrow push send: the daemon's 2 deliveryIds → no_subscription ×2, random ids → no_subscription ×2, ` +
        `identical answers; median over ${TIMING_ROUNDS} sends ${median(timings.named).toFixed(1)} ms vs ${median(timings.random).toFixed(1)} ms; ` +
        `0 pushes reached the daemon's phones`,
    );
  });
});

describe('a revoked phone and push (DESIGN §2: "no later push reaches it")', () => {
  it('cannot put its subscription back with its old token, and the next push skips it', async () => {
    const [kept, revoked] = [phones[0]!, phones[1]!];
    const revoke = await daemon.cli('devices', 'revoke', revoked.pairing.deviceId);
    expect(revoke.code, revoke.stderr).toBe(0);
    // Its delivery is gone at the relay: the old token opens nothing, the same 401 as any wrong token.
    const again = await putSubscription(
      relay.url,
      revoked.pairing.burrowId,
      revoked.pairing,
      revoked.subscription,
    );
    const body = await again.text();
    expect(again.status, body).toBe(401);
    const wrong = await putSubscription(
      relay.url,
      revoked.pairing.burrowId,
      { deliveryId: revoked.pairing.deliveryId, deliveryToken: randomToken() },
      revoked.subscription,
    );
    expect(await wrong.text()).toBe(body);
    const before = phones.map((p) => receivedAt(p.subscription.endpoint));
    const total = service.received.length;
    const push = await pushTest();
    expect(push).toMatchObject({ outcome: 'delivered', targets: 1, delivered: 1 });
    await service.waitForReceived(total + 1, 5_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(receivedAt(kept.subscription.endpoint)).toBe(before[0]! + 1);
    expect(receivedAt(revoked.subscription.endpoint)).toBe(before[1]);
    console.log(
      `[figure] revoked phone and push: its old deliveryToken PUT → 401 (same body as a wrong token); next push test ${push.delivered}/${push.targets}, 0 to the revoked phone`,
    );
  });
});
