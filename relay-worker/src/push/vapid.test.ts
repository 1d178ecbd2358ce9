import { decodeBase64url, encodeBase64url } from '@burrow/protocol';
import fc from 'fast-check';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  signVapidJwt,
  VAPID_TOKEN_LIFETIME_SECONDS,
  vapidAudience,
  vapidSubjectProblem,
} from './vapid-jwt.js';
import { generateVapidKeys, importVapidKeys } from './vapid-keys.js';
import { MAX_VAPID_CACHE_ENTRIES, VAPID_REFRESH_BEFORE_EXPIRY_SECONDS, VapidSigner } from './vapid-signer.js';
import rfc8291 from './vectors/rfc8291.json' with { type: 'json' };

const example = rfc8291.rfc8292_vapid_example;
const NOW_MS = 1_800_000_000_000;

function publicJwk(k: string) {
  const point = decodeBase64url(k);
  return {
    kty: 'EC',
    crv: 'P-256',
    x: encodeBase64url(point.subarray(1, 33)),
    y: encodeBase64url(point.subarray(33)),
  };
}

describe('VAPID JWT', () => {
  it('verifies the RFC 8292 §2.4 example token with its k (raw r‖s signature)', async () => {
    expect(publicJwk(example.k)).toMatchObject(example.jwk);
    const key = await importJWK(publicJwk(example.k), 'ES256');
    const { payload, protectedHeader } = await jwtVerify(example.t, key, {
      currentDate: new Date(1453523768_000 - 60_000),
    });
    expect(protectedHeader).toEqual(example.jwt_header);
    expect(payload).toEqual(example.jwt_claims);
    expect(decodeBase64url(example.t.split('.')[2]!)).toHaveLength(64);
  });

  it('signs a token jose verifies: ES256, aud, exp, sub', async () => {
    const { keys } = await generateVapidKeys();
    const exp = Math.floor(NOW_MS / 1000) + VAPID_TOKEN_LIFETIME_SECONDS;
    const token = await signVapidJwt(keys, {
      aud: 'https://push.example.net',
      exp,
      sub: 'mailto:ops@example.com',
    });
    expect(decodeProtectedHeader(token)).toEqual({ typ: 'JWT', alg: 'ES256' });
    const { payload } = await jwtVerify(token, await importJWK(publicJwk(keys.publicKeyText), 'ES256'), {
      audience: 'https://push.example.net',
      currentDate: new Date(NOW_MS),
    });
    expect(payload).toEqual({ aud: 'https://push.example.net', exp, sub: 'mailto:ops@example.com' });
  });

  it('accepts real mailto: / https: subjects and rejects localhost-ish or other ones', () => {
    for (const ok of [
      'mailto:push@example.com',
      'https://burrow.example.org/contact',
      'mailto:a.b+c@mail.co.uk',
    ]) {
      expect(vapidSubjectProblem(ok)).toBeNull();
    }
    for (const bad of [
      'mailto:me@localhost',
      'mailto:me@host.local',
      'mailto:me@127.0.0.1',
      'mailto:nobody',
      'https://localhost',
      'https://127.0.0.1/x',
      'https://[::1]/',
      'https://burrow.localhost',
      'http://example.com',
      'example.com',
      'https://user:pw@example.com',
      `mailto:a@${'x'.repeat(300)}.com`,
    ]) {
      expect(vapidSubjectProblem(bad), bad).not.toBeNull();
    }
    expect(() => new VapidSigner({} as never, 'mailto:me@localhost')).toThrow(RangeError);
  });

  it('audience is the endpoint origin', () => {
    expect(vapidAudience('https://fcm.googleapis.com/fcm/send/abc?x=1')).toBe('https://fcm.googleapis.com');
    expect(vapidAudience('http://127.0.0.1:8123/push/1')).toBe('http://127.0.0.1:8123');
    expect(() => vapidAudience('nope')).toThrow(RangeError);
  });
});

describe('VAPID keys', () => {
  it('round-trips the documented secret format and rejects bad ones', async () => {
    const { keys, secret } = await generateVapidKeys();
    expect(Object.keys(JSON.parse(secret)).sort()).toEqual(['crv', 'd', 'kty', 'x', 'y']);
    const again = await importVapidKeys(secret);
    expect(again.publicKeyText).toBe(keys.publicKeyText);
    expect(again.publicKey).toHaveLength(65);
    const other = JSON.parse((await generateVapidKeys()).secret) as Record<string, string>;
    const mixed = JSON.stringify({ ...JSON.parse(secret), x: other.x, y: other.y });
    await expect(importVapidKeys(mixed)).rejects.toThrow(RangeError);
    await expect(importVapidKeys('not json')).rejects.toThrow(RangeError);
    await expect(importVapidKeys('{"kty":"RSA"}')).rejects.toThrow(RangeError);
    await expect(importVapidKeys('x'.repeat(2000))).rejects.toThrow(RangeError);
    await expect(importVapidKeys(42 as unknown as string)).rejects.toThrow(TypeError);
  });
});

describe('VAPID secret parsing', () => {
  it('random and mutated secrets are refused with RangeError only', async () => {
    const { secret } = await generateVapidKeys();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.json({ maxDepth: 2 }),
          fc
            .tuple(fc.nat(secret.length - 1), fc.string({ minLength: 1, maxLength: 1 }))
            .map(([at, ch]) => secret.slice(0, at) + ch + secret.slice(at + 1)),
        ),
        async (text) => {
          try {
            await importVapidKeys(text);
          } catch (error) {
            expect(error).toBeInstanceOf(RangeError);
          }
        },
      ),
      { seed: 8292, numRuns: 200 },
    );
  });
});

describe('VapidSigner cache', () => {
  it('reuses a token per audience until near expiry, then re-signs', async () => {
    const { keys } = await generateVapidKeys();
    const signer = new VapidSigner(keys, 'mailto:ops@example.com');
    const a = await signer.authorization('https://push.example.net', NOW_MS);
    expect(a).toMatch(new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${keys.publicKeyText}$`));
    expect(await signer.authorization('https://push.example.net', NOW_MS + 60_000)).toBe(a);
    const b = await signer.authorization('https://other.example.net', NOW_MS);
    expect(b).not.toBe(a);
    const nearExpiry = NOW_MS + (VAPID_TOKEN_LIFETIME_SECONDS - VAPID_REFRESH_BEFORE_EXPIRY_SECONDS) * 1000;
    const c = await signer.authorization('https://push.example.net', nearExpiry);
    expect(c).not.toBe(a);
    const token = c.slice('vapid t='.length, c.indexOf(','));
    const { payload } = await jwtVerify(token, await importJWK(publicJwk(keys.publicKeyText), 'ES256'), {
      currentDate: new Date(nearExpiry),
    });
    expect(payload.exp! - Math.floor(nearExpiry / 1000)).toBe(VAPID_TOKEN_LIFETIME_SECONDS);
  });

  it('concurrent requests for one audience share one signature', async () => {
    const { keys } = await generateVapidKeys();
    const signer = new VapidSigner(keys, 'mailto:ops@example.com');
    const headers = await Promise.all(
      Array.from({ length: 20 }, () => signer.authorization('https://push.example.net', NOW_MS)),
    );
    // ECDSA is randomized: separate signatures would differ.
    expect(new Set(headers).size).toBe(1);
  });

  it('stays bounded', async () => {
    const { keys } = await generateVapidKeys();
    const signer = new VapidSigner(keys, 'https://burrow.example.org/');
    for (let i = 0; i < MAX_VAPID_CACHE_ENTRIES + 5; i++)
      await signer.authorization(`https://p${i}.example.net`, NOW_MS);
    expect(signer.cachedAudiences).toBe(MAX_VAPID_CACHE_ENTRIES);
  });
});
