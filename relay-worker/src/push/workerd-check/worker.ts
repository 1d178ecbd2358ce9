/**
 * A test-only Worker that runs the relay's push code on workerd (DESIGN §8: the relay's code is tested on
 * the runtime it ships on). `tests/integration/push-service.test.ts` serves it with `wrangler dev` and POSTs
 * `{ subscription }` from the local push service; it answers what happened. Never deployed.
 */
import { decodeBase64url, encodeBase64url } from '@burrow/protocol';
import { sendWebPush, type WebPushSubscription } from '../send-web-push.js';
import { generateVapidKeys } from '../vapid-keys.js';
import { VapidSigner } from '../vapid-signer.js';
import rfc8291 from '../vectors/rfc8291.json' with { type: 'json' };
import { encryptWebPush } from '../web-push-encryption.js';

/** The envelope stand-in it pushes: 300 bytes of 0x09. */
const TEST_PLAINTEXT = new Uint8Array(300).fill(9);

export default {
  async fetch(request: Request): Promise<Response> {
    if (request.method !== 'POST') return new Response('POST { subscription }', { status: 405 });
    const { subscription } = (await request.json()) as { subscription: WebPushSubscription };
    const i = rfc8291.inputs;
    const vector = await encryptWebPush(
      decodeBase64url(i.plaintext),
      { p256dh: decodeBase64url(i.ua_public), auth: decodeBase64url(i.auth_secret) },
      {
        salt: decodeBase64url(i.salt),
        senderPrivateKey: decodeBase64url(i.as_private),
        senderPublicKey: decodeBase64url(i.as_public),
      },
    );
    const { keys } = await generateVapidKeys();
    const vapid = new VapidSigner(keys, 'mailto:relay-operator@example.com');
    const fetchFn = (url: string, init: RequestInit) => fetch(url, init);
    const options = { vapid, ttlSeconds: 30, urgency: 'low', topic: 'd29ya2VyZA' } as const;
    const delivered = await sendWebPush(
      subscription,
      TEST_PLAINTEXT,
      { ...options, allowLoopbackForDev: true },
      fetchFn,
      Date.now,
    );
    const refused = await sendWebPush(subscription, TEST_PLAINTEXT, options, fetchFn, Date.now);
    return Response.json({
      rfc8291: encodeBase64url(vector) === rfc8291.output.body,
      vapidPublicKey: keys.publicKeyText,
      delivered,
      refused,
    });
  },
};
