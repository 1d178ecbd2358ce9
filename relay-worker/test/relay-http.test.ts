/**
 * The relay's HTTP surface on workerd (`wrangler dev`): info, enrollment (open and operator-gated, rate
 * limited), deliveries and push subscriptions, JSON errors, body limits, static assets with CSP and the SPA
 * fallback. [SPEC: RL-HTTP-*, RL-LIM-*, RL-ASSET-*]
 */
import { createECDH, createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import {
  decodeDeliveryListResponse,
  decodeErrorBody,
  decodeRelayInfo,
  encodeBase64url,
  PROTOCOL_VERSION,
} from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../src/security-headers.js';
import { type RelayHandle, startRelay } from './harness.js';
import { enroll, freshSource } from './relay-client.js';

const SECRET = 'operator-secret-for-tests';
let relay: RelayHandle;
let gated: RelayHandle;
beforeAll(async () => {
  // The gated relay runs as deployed: its secret, and no development flag.
  const started = await Promise.allSettled([
    startRelay(),
    startRelay({ vars: { ENROLL_SECRET: SECRET }, openEnrollment: false }),
  ]);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
    throw failed.reason;
  }
  [relay, gated] = started.map((s) => (s as PromiseFulfilledResult<RelayHandle>).value) as [
    RelayHandle,
    RelayHandle,
  ];
});
afterAll(async () => {
  await Promise.all([relay?.stop(), gated?.stop()]);
});

/**
 * One request on a connection of its own (node:http, no keep-alive): a stalled relay shows as "no answer in
 * RAW_REQUEST_TIMEOUT_MS" instead of a request queued behind another on a reused connection.
 */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer | null,
  chunked: boolean,
): Promise<string> {
  return new Promise((resolve) => {
    const length = body !== null && !chunked ? { 'content-length': String(body.length) } : {};
    const req = httpRequest(url, { method, agent: false, headers: { ...headers, ...length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
      res.on('error', (error) => resolve(`response error ${error.message}`));
    });
    req.setTimeout(RAW_REQUEST_TIMEOUT_MS, () => {
      req.destroy();
      resolve(`no answer in ${RAW_REQUEST_TIMEOUT_MS} ms`);
    });
    // The relay may answer and close before the whole body is sent: that is a refusal, not a failure.
    req.on('error', () => undefined);
    req.end(body ?? undefined);
  });
}
/** Far above any answer here (milliseconds on a loaded machine); the stall this catches never ended. */
const RAW_REQUEST_TIMEOUT_MS = 10_000;

const b64 = (n: number) => encodeBase64url(randomBytes(n));
const sha256 = (token: string) =>
  encodeBase64url(createHash('sha256').update(Buffer.from(token, 'base64url')).digest());

async function expectError(response: Response, status: number, code: string): Promise<void> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
  expect(decodeErrorBody(JSON.parse(text)).error.code).toBe(code);
}

function validSubscription() {
  const ecdh = createECDH('prime256v1');
  return {
    endpoint: 'https://fcm.googleapis.com/fcm/send/abc123',
    expirationTime: null,
    keys: { p256dh: encodeBase64url(ecdh.generateKeys()), auth: b64(16) },
  };
}

describe('GET /v1/info [RL-HTTP-1]', () => {
  it('reports the service, protocol version, gating and limits', async () => {
    const info = decodeRelayInfo(await (await fetch(`${relay.url}/v1/info`)).json());
    expect(info).toMatchObject({
      service: 'burrow-relay',
      protocolVersion: PROTOCOL_VERSION,
      vapidPublicKey: null,
      enrollmentGated: false,
    });
    expect(info.limits.clientFrameMaxBytes).toBe(65535);
    expect(decodeRelayInfo(await (await fetch(`${gated.url}/v1/info`)).json()).enrollmentGated).toBe(true);
  });
});

describe('POST /v1/burrows [RL-HTTP-2, RL-HTTP-3]', () => {
  it('enrolls with fresh random ids and tokens', async () => {
    const a = await enroll(relay.url);
    const b = await enroll(relay.url);
    expect(a.burrowId).not.toBe(b.burrowId);
    expect(a.burrowToken).not.toBe(b.burrowToken);
  });

  it('on a gated relay, needs the operator secret', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${gated.url}/v1/burrows`, {
        method: 'POST',
        headers: { 'CF-Connecting-IP': freshSource(), ...headers },
      });
    await expectError(await post({}), 401, 'unauthorized');
    await expectError(await post({ Authorization: 'Bearer wrong' }), 401, 'unauthorized');
    await expectError(await post({ Authorization: `Bearer ${SECRET}x` }), 401, 'unauthorized');
    await expectError(await post({ Authorization: SECRET }), 401, 'unauthorized');
    const ok = await post({ Authorization: `Bearer ${SECRET}` });
    expect(ok.status).toBe(201);
    // The secret reached the relay without being on any command line of its process group (ps shows those to
    // every local user): the harness passes vars in an owner-only env file.
    const group = readdirSync('/proc').filter((pid) => {
      if (!/^\d+$/.test(pid)) return false;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === gated.processGroup;
      } catch {
        return false; // gone meanwhile
      }
    });
    expect(group.length).toBeGreaterThanOrEqual(2); // the serve-relay process and workerd
    for (const pid of group) {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      expect(cmdline, `process ${pid}`).not.toContain(SECRET);
    }
  });

  it('limits enrollments per source to a burst of 5, wrong secrets included', async () => {
    const source = freshSource();
    const post = (url: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/v1/burrows`, { method: 'POST', headers: { 'CF-Connecting-IP': source, ...headers } });
    for (let i = 0; i < 5; i++) expect((await post(relay.url)).status).toBe(201);
    const limited = await post(relay.url);
    await expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    // Another source is unaffected.
    expect((await post(relay.url, { 'CF-Connecting-IP': freshSource() })).status).toBe(201);
    // Guessing the operator secret spends the same tokens.
    for (let i = 0; i < 5; i++)
      expect((await post(gated.url, { Authorization: 'Bearer guess' })).status).toBe(401);
    await expectError(await post(gated.url, { Authorization: `Bearer ${SECRET}` }), 429, 'rate_limited');
  });
});

describe('deliveries and subscriptions [RL-HTTP-4, RL-HTTP-6..8]', () => {
  it('registers, lists, subscribes, unsubscribes and revokes', async () => {
    const { burrowId, burrowToken } = await enroll(relay.url);
    const base = `${relay.url}/v1/burrows/${burrowId}/deliveries`;
    const burrowAuth = { Authorization: `Bearer ${burrowToken}` };
    const json = { 'Content-Type': 'application/json' };
    const deliveryId = b64(16);
    const deliveryToken = b64(32);
    const phoneAuth = { Authorization: `Bearer ${deliveryToken}` };
    const list = async () =>
      decodeDeliveryListResponse(await (await fetch(base, { headers: burrowAuth })).json());

    expect((await list()).deliveries).toEqual([]);
    const put = await fetch(`${base}/${deliveryId}`, {
      method: 'PUT',
      headers: { ...burrowAuth, ...json },
      body: JSON.stringify({ tokenHash: sha256(deliveryToken) }),
    });
    expect(put.status).toBe(201);
    const [registered] = (await list()).deliveries;
    expect(registered).toMatchObject({ deliveryId, subscriptionUpdatedAt: null });

    const sub = await fetch(`${base}/${deliveryId}/subscription`, {
      method: 'PUT',
      headers: { ...phoneAuth, ...json },
      body: JSON.stringify(validSubscription()),
    });
    expect(sub.status).toBe(204);
    const [subscribed] = (await list()).deliveries;
    expect(subscribed?.subscriptionUpdatedAt).toBeGreaterThan(0);

    expect(
      (await fetch(`${base}/${deliveryId}/subscription`, { method: 'DELETE', headers: phoneAuth })).status,
    ).toBe(204);
    expect((await list()).deliveries[0]?.subscriptionUpdatedAt).toBeNull();
    await expectError(
      await fetch(`${base}/${deliveryId}/subscription`, { method: 'DELETE', headers: phoneAuth }),
      404,
      'not_found',
    );

    expect((await fetch(`${base}/${deliveryId}`, { method: 'DELETE', headers: burrowAuth })).status).toBe(
      204,
    );
    expect((await list()).deliveries).toEqual([]);
    // Revoked: the phone's token no longer works.
    await expectError(
      await fetch(`${base}/${deliveryId}/subscription`, {
        method: 'PUT',
        headers: { ...phoneAuth, ...json },
        body: JSON.stringify(validSubscription()),
      }),
      401,
      'unauthorized',
    );
  });

  it('refuses wrong and missing tokens, on both the Burrow and the phone routes', async () => {
    const a = await enroll(relay.url);
    const b = await enroll(relay.url);
    const base = `${relay.url}/v1/burrows/${a.burrowId}/deliveries`;
    await expectError(await fetch(base), 401, 'unauthorized');
    await expectError(
      await fetch(base, { headers: { Authorization: `Bearer ${b.burrowToken}` } }),
      401,
      'unauthorized',
    );
    await expectError(await fetch(base, { headers: { Authorization: 'Bearer x' } }), 401, 'unauthorized');
    const deliveryId = b64(16);
    const deliveryToken = b64(32);
    await fetch(`${base}/${deliveryId}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${a.burrowToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ tokenHash: sha256(deliveryToken) }),
    });
    const putSub = (token: string | null, id = deliveryId) =>
      fetch(`${base}/${id}/subscription`, {
        method: 'PUT',
        headers: {
          'Content-Type': 'application/json',
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(validSubscription()),
      });
    await expectError(await putSub(null), 401, 'unauthorized');
    await expectError(await putSub(b64(32)), 401, 'unauthorized');
    // The Burrow's own token is not the phone's.
    await expectError(await putSub(a.burrowToken), 401, 'unauthorized');
    // An unknown delivery answers exactly like a wrong token.
    await expectError(await putSub(deliveryToken, b64(16)), 401, 'unauthorized');
    expect((await putSub(deliveryToken)).status).toBe(204);
  });

  it('validates subscriptions and bounds bodies', async () => {
    const { burrowId, burrowToken } = await enroll(relay.url);
    const base = `${relay.url}/v1/burrows/${burrowId}/deliveries`;
    const deliveryId = b64(16);
    const deliveryToken = b64(32);
    await fetch(`${base}/${deliveryId}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${burrowToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ tokenHash: sha256(deliveryToken) }),
    });
    const put = (body: string, type = 'application/json') =>
      fetch(`${base}/${deliveryId}/subscription`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${deliveryToken}`, 'Content-Type': type },
        body,
      });
    const good = validSubscription();
    const bad = (patch: object) => JSON.stringify({ ...good, ...patch });
    const offCurve = encodeBase64url(Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 0xff)]));
    for (const body of [
      '{',
      '[]',
      'null',
      bad({ endpoint: 'http://fcm.googleapis.com/x' }),
      bad({ endpoint: 'https://127.0.0.1/x' }),
      bad({ endpoint: 'https://[::1]/x' }),
      bad({ endpoint: 'https://localhost/x' }),
      bad({ endpoint: 'https://user:pw@push.example.com/x' }),
      bad({ endpoint: `https://fcm.googleapis.com/${'a'.repeat(2100)}` }),
      // Public names that resolve to loopback / link-local, and public URLs that are no push service: the
      // relay would be a POST reflector (issue 16.1). Only Web Push services pass (RL-HTTP-8).
      bad({ endpoint: 'https://127.0.0.1.nip.io/x' }),
      bad({ endpoint: 'https://localtest.me/x' }),
      bad({ endpoint: 'https://169.254.169.254.nip.io/latest/meta-data/' }),
      bad({ endpoint: 'https://api.telegram.org/bot1:x/sendMessage?chat_id=1&text=hi' }),
      bad({ endpoint: 'https://example.com/push' }),
      bad({ keys: { p256dh: good.keys.p256dh.slice(1), auth: good.keys.auth } }),
      bad({ keys: { p256dh: offCurve, auth: good.keys.auth } }),
      bad({ keys: { p256dh: good.keys.p256dh, auth: b64(15) } }),
      bad({ keys: { p256dh: good.keys.p256dh } }),
    ]) {
      await expectError(await put(body), 400, 'bad_request');
    }
    await expectError(await put(JSON.stringify(good), 'text/plain'), 415, 'unsupported_media_type');
    await expectError(
      await put(JSON.stringify({ ...good, pad: 'x'.repeat(5000) })),
      413,
      'payload_too_large',
    );
    const stored = await put(JSON.stringify(good));
    expect(stored.status, await stored.text()).toBe(204);
    for (const endpoint of [
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk',
      'https://web.push.apple.com/QGxvbmc',
      'https://wns2-par02p.notify.windows.com/w/?token=BQYAAAB',
    ]) {
      const other = await put(JSON.stringify({ ...good, endpoint }));
      expect(other.status, `${endpoint}: ${await other.text()}`).toBe(204);
    }

    await expectError(
      await fetch(`${base}/${b64(16)}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${burrowToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ tokenHash: 'short' }),
      }),
      400,
      'bad_request',
    );
  });
});

describe('routing, errors and assets [RL-HTTP-9, RL-ASSET-1, RL-ASSET-2]', () => {
  it('answers unknown /v1 routes and unknown Burrows with JSON 404', async () => {
    await expectError(await fetch(`${relay.url}/v1/nope`), 404, 'not_found');
    await expectError(await fetch(`${relay.url}/v1`), 404, 'not_found');
    await expectError(await fetch(`${relay.url}/v1/info`, { method: 'DELETE' }), 404, 'not_found');
    await expectError(
      await fetch(`${relay.url}/v1/burrows/${b64(16)}/deliveries`, {
        headers: { Authorization: `Bearer ${b64(32)}` },
      }),
      404,
      'not_found',
    );
  });

  it('says nosniff on every response: JSON answers, errors, refusals and upgrades refused over HTTP (24.8)', async () => {
    const enrolled = await enroll(relay.url);
    const bearer = { Authorization: `Bearer ${enrolled.burrowToken}` };
    const json = { 'content-type': 'application/json' };
    const requests: [string, RequestInit][] = [
      ['/v1/info', {}],
      ['/v1/nope', {}],
      ['/v1/burrows', { method: 'POST', headers: { 'CF-Connecting-IP': freshSource() } }],
      [`/v1/burrows/${enrolled.burrowId}/deliveries`, { headers: bearer }],
      [`/v1/burrows/${enrolled.burrowId}/deliveries`, { headers: { Authorization: `Bearer ${b64(32)}` } }],
      [
        `/v1/burrows/${enrolled.burrowId}/tickets`,
        { method: 'PUT', headers: { ...bearer, ...json }, body: '{' },
      ],
      [`/v1/burrows/${enrolled.burrowId}/tickets`, { method: 'PUT', headers: bearer, body: '{}' }],
      [`/v1/burrows/${enrolled.burrowId}/agent`, {}],
      [`/v1/burrows/${enrolled.burrowId}/client`, {}],
      ['/v1/burrows/not-an-id/client', {}],
      ['/', {}],
    ];
    const statuses: number[] = [];
    for (const [path, init] of requests) {
      const response = await fetch(`${relay.url}${path}`, init);
      await response.arrayBuffer();
      statuses.push(response.status);
      expect(response.headers.get('X-Content-Type-Options'), `${init.method ?? 'GET'} ${path}`).toBe(
        'nosniff',
      );
    }
    // Not vacuous: successes, client errors and refusals of several kinds.
    expect(new Set(statuses).size).toBeGreaterThanOrEqual(5);
  });

  it('a refused request body, of any size and to any path, never leaves the next request unanswered [RL-LIM-5]', async () => {
    // Under wrangler dev, wrangler's ProxyWorker streams each request body on to the relay; when the relay
    // answered before reading it all, the next request through the ProxyWorker, from anyone, got no answer
    // until its client gave up (workers-sdk #15203). Every 1 MiB case below did that before the fix; a small
    // body to the assets did it about one time in 400 under load, which is how attack-local met it.
    const mib = Buffer.alloc(1 << 20, 0x78);
    const enrolled = await enroll(relay.url);
    const tickets = `/v1/burrows/${enrolled.burrowId}/tickets`;
    const bearerJson = {
      Authorization: `Bearer ${enrolled.burrowToken}`,
      'content-type': 'application/json',
    };
    const refusals: [string, string, Record<string, string>, boolean][] = [
      ['POST', '/v1/no-such-route', {}, false], // JSON 404, the body never looked at
      ['POST', '/some/page', {}, false], // the assets answer 405 to anything but GET and HEAD
      ['PUT', '/app.js', {}, false],
      ['POST', '/v1/burrows', { 'CF-Connecting-IP': freshSource() }, false], // enrollment reads no body
      ['PUT', tickets, bearerJson, false], // over MAX_TICKET_SET_BODY_BYTES by its Content-Length
      ['PUT', tickets, bearerJson, true], // … and while streaming, with no length
    ];
    const answers: string[] = [];
    for (const [method, path, headers, chunked] of refusals) {
      const refused = await rawRequest(`${relay.url}${path}`, method, headers, mib, chunked);
      const next = await rawRequest(`${relay.url}/v1/info`, 'GET', {}, null, false);
      answers.push(`${method} ${path}${chunked ? ' (chunked)' : ''}: ${refused} then ${next}`);
    }
    expect(answers).toEqual([
      'POST /v1/no-such-route: 404 then 200',
      'POST /some/page: 405 then 200',
      'PUT /app.js: 405 then 200',
      'POST /v1/burrows: 201 then 200',
      `PUT ${tickets}: 413 then 200`,
      `PUT ${tickets} (chunked): 413 then 200`,
    ]);
  }, 120_000);

  it('serves assets and the SPA fallback with the CSP and security headers', async () => {
    for (const path of ['/', '/app.js', '/sessions/some-id', '/deep/link?x=1']) {
      const response = await fetch(`${relay.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('Content-Security-Policy'), path).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
      expect(response.headers.get('Referrer-Policy')).toBe('no-referrer');
      expect(response.headers.get('X-Frame-Options')).toBe('DENY');
      const text = await response.text();
      if (path === '/app.js') expect(text).toContain('fixture');
      else expect(text).toContain('fixture index');
    }
    const csp = CONTENT_SECURITY_POLICY;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
  });
});
