/**
 * Push latency bench (part of `npm run bench -w relay-worker`): time from the Burrow's push-send request
 * leaving for the relay (workerd, `wrangler dev`) to that push being accepted by a local push service
 * (tests/helpers/push-service.ts: VAPID verified, RFC 8291 decrypted, so every sample is a valid push).
 * Baseline in the same run: the same push sent straight from Node with the relay's own sender
 * (`sendWebPush`) to the same service. Target (issue 7): relay p99 ≤ 200 ms on loopback.
 * The service records a push after verifying and decrypting it, so both columns include that (~1 ms) and
 * are upper bounds on "the POST reaching the push service". Bounded: SENDS sequential sends, ~10 s.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { encodeBase64url } from '@burrow/protocol';
import { LocalPushService } from '../../tests/helpers/push-service.js';
import { sendWebPush } from '../src/push/send-web-push.js';
import { generateVapidKeys } from '../src/push/vapid-keys.js';
import { VapidSigner } from '../src/push/vapid-signer.js';
import { startRelay } from '../test/harness.js';
import { enroll, pushSendBody, putSubscription, registerDelivery, sendPush } from '../test/relay-client.js';

/** Measured sends per path (well under the relay's 60-per-minute burst, so none is rate limited). */
const SENDS = 48;
const WARMUP = 10;
/** A realistic sealed envelope: a notification with its text bounded (DESIGN §4.4). */
const ENVELOPE_BYTES = 1500;
const SUBJECT = 'mailto:bench@example.com';
const TARGET_P99_MS = 200;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** Runs `send` WARMUP + SENDS times; each sample ends when the service has accepted one more push. */
async function sample(service: LocalPushService, send: () => Promise<void>) {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + SENDS; i++) {
    const expected = service.received.length + 1;
    const t = performance.now();
    const accepted = service.waitForReceived(expected, 10_000);
    await send();
    await accepted;
    if (i >= WARMUP) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

async function main(): Promise<void> {
  const started = performance.now();
  const service = await LocalPushService.start();
  const { keys, secret } = await generateVapidKeys();
  const relay = await startRelay({
    vars: { VAPID_PRIVATE_KEY: secret, VAPID_SUBJECT: SUBJECT, DEV_ALLOW_LOOPBACK_PUSH: '1' },
  });
  try {
    const signer = new VapidSigner(keys, SUBJECT);
    const direct = service.subscribe(keys.publicKeyText);
    const baseline = await sample(service, async () => {
      const result = await sendWebPush(
        direct,
        randomBytes(ENVELOPE_BYTES),
        { vapid: signer, ttlSeconds: 600, urgency: 'high', topic: 'YmVuY2g', allowLoopbackForDev: true },
        (url, init) => fetch(url, init),
        Date.now,
      );
      if (result.outcome !== 'delivered') throw new Error(`direct push: ${result.outcome}`);
    });

    const burrow = await enroll(relay.url);
    const delivery = await registerDelivery(relay.url, burrow);
    const put = await putSubscription(
      relay.url,
      burrow.burrowId,
      delivery,
      service.subscribe(keys.publicKeyText),
    );
    if (put.status !== 204) throw new Error(`subscription PUT: HTTP ${put.status}`);
    const viaRelay = await sample(service, async () => {
      const body = pushSendBody(
        [{ deliveryId: delivery.deliveryId, envelope: encodeBase64url(randomBytes(ENVELOPE_BYTES)) }],
        { sessionTopic: 'YmVuY2g' },
      );
      const response = await sendPush(relay.url, burrow.burrowId, body, burrow.burrowToken);
      if (response.status !== 200)
        throw new Error(`push send: HTTP ${response.status} ${await response.text()}`);
      await response.body?.cancel();
    });

    const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
    console.log('push send → accepted by the push service   direct (Node)   via relay (workerd)   ratio');
    for (const [name, b, r] of [
      ['p50', baseline.p50, viaRelay.p50],
      ['p99', baseline.p99, viaRelay.p99],
    ] as const) {
      console.log(
        `${name.padEnd(42)} ${fmt(b).padStart(13)}   ${fmt(r).padStart(19)}   ${(r / b).toFixed(2)}`,
      );
    }
    console.log(
      `relay p99 ${viaRelay.p99 <= TARGET_P99_MS ? 'meets' : 'MISSES'} the ${TARGET_P99_MS} ms target ` +
        `(${SENDS} sends of ${ENVELOPE_BYTES}-byte envelopes after ${WARMUP} warm-up; total ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  } finally {
    await relay.stop();
    await service.close();
  }
}

await main();
