import { createECDH, type ECDH } from 'node:crypto';
import { createRequire } from 'node:module';
import { encodeBase64url, MAX_PUSH_TARGETS } from '@burrow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type HeldSubscription, handlePushSend, type PushSendDeps } from './push-send.js';
import type { FetchFn } from './send-web-push.js';
import { generateVapidKeys } from './vapid-keys.js';
import { VapidSigner } from './vapid-signer.js';

interface HttpEce {
  decrypt(buffer: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: Buffer }): Buffer;
}
const ece = createRequire(import.meta.url)('http_ece') as HttpEce;

const NOW = 1_800_000_000_000;
const id = (n: number) => encodeBase64url(new Uint8Array(16).fill(n));
const { keys } = await generateVapidKeys();
const vapid = new VapidSigner(keys, 'mailto:ops@example.com');

interface Phone {
  readonly ua: ECDH;
  readonly auth: Uint8Array;
  readonly subscription: HeldSubscription;
}
function phone(n: number, host = 'fcm.googleapis.com'): Phone {
  const ua = createECDH('prime256v1');
  ua.generateKeys();
  const auth = crypto.getRandomValues(new Uint8Array(16));
  return {
    ua,
    auth,
    subscription: {
      deliveryId: id(n),
      endpoint: `https://${host}/p/${n}`,
      keys: { p256dh: encodeBase64url(new Uint8Array(ua.getPublicKey())), auth: encodeBase64url(auth) },
    },
  };
}

interface Seen {
  readonly url: string;
  readonly init: RequestInit;
}
function harness(phones: Phone[], answer: (url: string) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const deleted: [string, string][] = [];
  const fetch: FetchFn = async (url, init) => {
    seen.push({ url, init });
    return answer(url);
  };
  const deps: PushSendDeps = {
    subscriptionsFor: (ids) => phones.map((p) => p.subscription).filter((s) => ids.includes(s.deliveryId)),
    deleteSubscription: (deliveryId, endpoint) => {
      deleted.push([deliveryId, endpoint]);
    },
    vapid,
    fetch,
    clock: () => NOW,
  };
  return { seen, deleted, deps };
}
const send = (ids: number[], extra: object = {}) => ({
  targets: ids.map((n) => ({ deliveryId: id(n), envelope: encodeBase64url(new Uint8Array(300).fill(n)) })),
  sessionTopic: 'c2Vzc2lvbg',
  ttlSeconds: 90,
  urgency: 'high',
  ...extra,
});

describe('handlePushSend', () => {
  it('intersects targets with held subscriptions and sends each one encrypted for its phone', async () => {
    const phones = [phone(1), phone(2)];
    const { seen, deps } = harness(phones, () => new Response(null, { status: 201 }));
    const result = await handlePushSend(send([1, 2, 3]), deps);
    expect(result).toEqual({
      ok: true,
      value: {
        results: [
          { deliveryId: id(1), outcome: 'accepted' },
          { deliveryId: id(2), outcome: 'accepted' },
          { deliveryId: id(3), outcome: 'no_subscription' },
        ],
      },
    });
    expect(seen).toHaveLength(2);
    for (const request of seen) {
      // Sends run in parallel: match each request to its phone by endpoint.
      const i = phones.findIndex((p) => p.subscription.endpoint === request.url);
      const h = request.init.headers as Record<string, string>;
      expect(i).toBeGreaterThanOrEqual(0);
      expect(request.init.method).toBe('POST');
      expect(request.init.redirect).toBe('manual');
      expect(h.TTL).toBe('90');
      expect(h.Urgency).toBe('high');
      expect(h.Topic).toBe('c2Vzc2lvbg');
      expect(h['Content-Encoding']).toBe('aes128gcm');
      expect(h.Authorization).toMatch(/^vapid t=.+, k=/);
      const body = Buffer.from(request.init.body as Uint8Array);
      const p = phones[i]!;
      const plain = ece.decrypt(body, {
        version: 'aes128gcm',
        privateKey: p.ua,
        authSecret: Buffer.from(p.auth),
      });
      // RL-PUSH-TEXT: the push message is the envelope's base64url text, exactly as the Burrow sent it.
      expect(Buffer.from(plain).toString('ascii')).toBe(encodeBase64url(new Uint8Array(300).fill(i + 1)));
    }
  });

  it('maps statuses to outcomes only (never the status, issue 16.1) and deletes gone subscriptions', async () => {
    const phones = [phone(1), phone(2), phone(3), phone(4), phone(5)];
    const statuses: Record<string, number> = { '/p/1': 202, '/p/2': 404, '/p/3': 410, '/p/4': 500 };
    const { deleted, deps } = harness(phones, (url) => {
      const status = statuses[new URL(url).pathname];
      if (status === undefined) throw new DOMException('timed out', 'TimeoutError');
      return new Response('x', { status });
    });
    const result = await handlePushSend(send([1, 2, 3, 4, 5]), deps);
    expect(result.ok && result.value.results).toEqual([
      { deliveryId: id(1), outcome: 'accepted' },
      { deliveryId: id(2), outcome: 'gone' },
      { deliveryId: id(3), outcome: 'gone' },
      { deliveryId: id(4), outcome: 'failed' },
      { deliveryId: id(5), outcome: 'failed' },
    ]);
    // Sends run in parallel, so deletions come in completion order.
    expect(deleted).toHaveLength(2);
    expect(deleted).toEqual(
      expect.arrayContaining([
        [id(2), 'https://fcm.googleapis.com/p/2'],
        [id(3), 'https://fcm.googleapis.com/p/3'],
      ]),
    );
  });

  it('never posts to a refused endpoint; loopback only with the dev switch', async () => {
    // A loopback address, and a public host that is no push service (say, stored before the allowlist).
    const local = phone(1, '127.0.0.1');
    const elsewhere = phone(3, 'api.telegram.org');
    const { seen, deps } = harness([local, elsewhere], () => new Response(null, { status: 201 }));
    const refused = await handlePushSend(send([1, 3]), deps);
    expect(refused.ok && refused.value.results).toEqual([
      { deliveryId: id(1), outcome: 'failed' },
      { deliveryId: id(3), outcome: 'failed' },
    ]);
    expect(seen).toHaveLength(0);
    // The operator's extra hosts are honoured at send too.
    const extra = await handlePushSend(send([3]), { ...deps, extraServiceHosts: ['api.telegram.org'] });
    expect(extra.ok && extra.value.results).toEqual([{ deliveryId: id(3), outcome: 'accepted' }]);
    expect(seen).toHaveLength(1);
    const devPhone = phone(2);
    const dev = harness(
      [{ ...devPhone, subscription: { ...devPhone.subscription, endpoint: 'http://127.0.0.1:9/p/2' } }],
      () => new Response(null, { status: 201 }),
    );
    const allowed = await handlePushSend(send([2]), { ...dev.deps, allowLoopbackForDev: true });
    expect(allowed.ok && allowed.value.results).toEqual([{ deliveryId: id(2), outcome: 'accepted' }]);
  });

  it('refuses bad sends whole, over-limit ones as limit_exceeded, and everything without VAPID', async () => {
    const { seen, deps } = harness([phone(1)], () => new Response(null, { status: 201 }));
    const over = Array.from({ length: MAX_PUSH_TARGETS + 1 }, (_, i) => i + 1);
    expect(await handlePushSend(send(over), deps)).toMatchObject({ ok: false, code: 'limit_exceeded' });
    expect(await handlePushSend(send([1], { urgency: 'now' }), deps)).toMatchObject({
      ok: false,
      code: 'bad_request',
    });
    expect(await handlePushSend(null, deps)).toMatchObject({ ok: false, code: 'bad_request' });
    expect(await handlePushSend(send([1]), { ...deps, vapid: null })).toMatchObject({
      ok: false,
      code: 'push_unavailable',
    });
    expect(seen).toHaveLength(0);
  });

  it('random and mutated sends never throw: they are refused or answered per target', async () => {
    const { deps } = harness([phone(1)], () => new Response(null, { status: 201 }));
    const good = send([1, 2]);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc
            .record({
              k: fc.constantFrom('targets', 'sessionTopic', 'ttlSeconds', 'urgency'),
              v: fc.jsonValue(),
            })
            .map(({ k, v }) => ({ ...good, [k]: v })),
        ),
        async (json) => {
          const result = await handlePushSend(json, deps);
          if (!result.ok) expect(['bad_request', 'limit_exceeded']).toContain(result.code);
        },
      ),
      { seed: 8030, numRuns: 200 },
    );
  });
});
