/**
 * Cost of one Web Push at the relay (run: `npx tsx --conditions=source relay-worker/src/push/web-push.bench.ts`).
 * Prints µs per operation and ratios against a baseline in the same run: one bare AES-128-GCM encryption of
 * the same 3978-byte envelope (the least any RFC 8291 sender must do).
 */
import { encodeBase64url } from '@burrow/protocol';
import { sendWebPush } from './send-web-push.js';
import { generateVapidKeys } from './vapid-keys.js';
import { VapidSigner } from './vapid-signer.js';
import { encryptWebPush } from './web-push-encryption.js';

const ROUNDS = 300;
const envelope = crypto.getRandomValues(new Uint8Array(3978));

async function time(name: string, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await fn(i);
  const start = performance.now();
  for (let i = 0; i < ROUNDS; i++) await fn(i);
  const us = ((performance.now() - start) * 1000) / ROUNDS;
  console.log(`${name.padEnd(44)} ${us.toFixed(1).padStart(8)} µs/op`);
  return us;
}

const ua = (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits'])) as {
  publicKey: Parameters<typeof crypto.subtle.exportKey>[1];
};
const p256dh = new Uint8Array((await crypto.subtle.exportKey('raw', ua.publicKey)) as ArrayBuffer);
const auth = crypto.getRandomValues(new Uint8Array(16));
const { keys } = await generateVapidKeys();
const signer = new VapidSigner(keys, 'mailto:ops@example.com');
const aesKey = await crypto.subtle.importKey('raw', new Uint8Array(16), 'AES-GCM', false, ['encrypt']);
const subscription = {
  endpoint: 'https://fcm.googleapis.com/fcm/send/p1',
  keys: { p256dh: encodeBase64url(p256dh), auth: encodeBase64url(auth) },
};
const accept = async () => new Response(null, { status: 201 });
const now = Date.now();

const base = await time('baseline: AES-128-GCM of 3978 bytes', () =>
  crypto.subtle.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12) }, aesKey, envelope),
);
const enc = await time('RFC 8291 encryptWebPush (3978 bytes)', () =>
  encryptWebPush(envelope, { p256dh, auth }),
);
const cold = await time('VAPID authorization, new audience (signs)', (i) =>
  signer.authorization(`https://p${i % 10_000}.example.net`, now + i * 10),
);
const warm = await time('VAPID authorization, cached audience', () =>
  signer.authorization('https://fcm.googleapis.com', now),
);
const push = await time('sendWebPush (encrypt + cached JWT + stub)', () =>
  sendWebPush(subscription, envelope, { vapid: signer, ttlSeconds: 60, urgency: 'high' }, accept, () => now),
);
console.log(
  `ratios vs baseline: encrypt ${(enc / base).toFixed(1)}×, sign ${(cold / base).toFixed(1)}×, cached ${(warm / base).toFixed(2)}×, whole push ${(push / base).toFixed(1)}×`,
);
