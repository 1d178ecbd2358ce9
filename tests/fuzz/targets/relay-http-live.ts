/**
 * Target: the real relay's HTTP API under `wrangler dev` (workerd), via `startRelay()`: what anyone on the
 * internet can send it (DESIGN §4.1, [SPEC: RL-HTTP-*, RL-LIM-5]).
 *
 * Each case is one request to a body-taking route — register a delivery (PUT), put a push subscription
 * (PUT), the push send (POST) — with a mutated valid body, random bytes, random JSON or an oversized body,
 * with the right, a wrong, a malformed or no bearer token, the right or a wrong Content-Type, and a real or
 * garbage id in the path. Expected: a 4xx whose body is the relay's JSON error (`decodeErrorBody`), or the
 * route's documented success when the mutation left the body valid. Findings: a 5xx or any other status, a
 * 4xx that is not the JSON error shape, a 2xx that is not the route's; after each batch the relay must still
 * answer `GET /v1/info` and the Burrow's `GET …/status`; and its log must show no uncaught error.
 */
import { decodeErrorBody, decodePushSendResponse, decodeRelayInfo, encodeBase64url } from '@burrow/protocol';
import fc from 'fast-check';
import { generateVapidKeys } from '../../../relay-worker/src/push/vapid-keys.js';
import { type RelayHandle, startRelay } from '../../../relay-worker/test/harness.js';
import { enroll, freshSource, registerDelivery } from '../../../relay-worker/test/relay-client.js';
import { FuzzFinding, type FuzzTarget, invariant } from '../fuzz-target.js';
import { mutatedBytes } from '../mutate.js';
import { randomId, VALID_BODIES } from './relay-http-bodies.js';

/** The relay's JSON body bound is 4 KiB (MAX_JSON_BODY_BYTES) and the push send's 32 KiB: go past both. */
const OVERSIZED_BYTES = [4097, 40_000];
/** Per-request bound: a hung request is a finding, not a hung test. */
const REQUEST_TIMEOUT_MS = 15_000;
/** Log lines that mean the Worker failed rather than refused. */
const ERROR_LOG = /relay error on|Uncaught|Internal Server Error/;

type Route = 'register' | 'subscription' | 'push';
interface Case {
  readonly route: Route;
  readonly body: Uint8Array;
  readonly contentType: string | null;
  readonly auth: 'right' | 'wrong' | 'malformed' | 'none';
  readonly garbagePath: boolean;
}

const encoder = new TextEncoder();
const jsonBytes = (arb: fc.Arbitrary<unknown>) => arb.map((v) => encoder.encode(JSON.stringify(v)));
const VALID_BY_ROUTE: Record<Route, fc.Arbitrary<Uint8Array>> = {
  register: jsonBytes(VALID_BODIES.registerDelivery),
  subscription: jsonBytes(VALID_BODIES.subscription),
  push: jsonBytes(VALID_BODIES.pushSend),
};

const input: fc.Arbitrary<Case> = fc.constantFrom<Route>('register', 'subscription', 'push').chain((route) =>
  fc.record({
    route: fc.constant(route),
    body: fc.oneof(
      { weight: 5, arbitrary: mutatedBytes(VALID_BY_ROUTE[route]).map((m) => m.bytes) },
      { weight: 1, arbitrary: VALID_BY_ROUTE[route] },
      { weight: 1, arbitrary: jsonBytes(fc.jsonValue({ maxDepth: 3 })) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(...OVERSIZED_BYTES).map((n) => encoder.encode(`{"x":"${'a'.repeat(n)}"}`)),
      },
    ),
    contentType: fc.oneof(
      { weight: 6, arbitrary: fc.constant('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          null,
          'text/plain',
          'application/json; charset=utf-8',
          'application/jsonx',
        ),
      },
    ),
    auth: fc.constantFrom('right', 'right', 'right', 'wrong', 'malformed', 'none'),
    garbagePath: fc.oneof(
      { weight: 5, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(true) },
    ),
  }),
);

const SUCCESS: Record<Route, readonly number[]> = { register: [201, 204], subscription: [204], push: [200] };

export const relayHttpLiveTarget: FuzzTarget<Case> = {
  name: 'relay-http-live',
  about: 'real relay under wrangler dev: mutated / random / oversized bodies PUT and POSTed, any bearer',
  async: true,
  testRuns: 100,
  async start() {
    // VAPID configured, so a push send that passes validation gets as far as the Burrow's object (without it
    // every send is 503 push_unavailable, a documented answer that would hide the rest of the route).
    const { secret } = await generateVapidKeys();
    const relay: RelayHandle = await startRelay({
      vars: { VAPID_PRIVATE_KEY: secret, VAPID_SUBJECT: 'mailto:fuzz@example.com' },
    });
    const statuses: Record<number, number> = {};
    try {
      const burrow = await enroll(relay.url);
      const delivery = await registerDelivery(relay.url, burrow);
      const request = async (c: Case) => {
        const burrowId = c.garbagePath ? 'not-a-burrow-id' : burrow.burrowId;
        const path =
          c.route === 'register'
            ? `/v1/burrows/${burrowId}/deliveries/${randomId(16)}`
            : c.route === 'subscription'
              ? `/v1/burrows/${burrowId}/deliveries/${delivery.deliveryId}/subscription`
              : `/v1/burrows/${burrowId}/push`;
        const rightToken = c.route === 'subscription' ? delivery.deliveryToken : burrow.burrowToken;
        const headers: Record<string, string> = { 'CF-Connecting-IP': freshSource() };
        if (c.contentType !== null) headers['Content-Type'] = c.contentType;
        if (c.auth === 'right') headers.Authorization = `Bearer ${rightToken}`;
        else if (c.auth === 'wrong')
          headers.Authorization = `Bearer ${encodeBase64url(new Uint8Array(32).fill(7))}`;
        else if (c.auth === 'malformed') headers.Authorization = `Bearer ${'!'.repeat(300)}`;
        const response = await fetch(`${relay.url}${path}`, {
          method: c.route === 'push' ? 'POST' : 'PUT',
          headers,
          body: c.body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        return { status: response.status, text: await response.text() };
      };
      return {
        input,
        isExpected: () => false,
        async run(c) {
          const { status, text } = await request(c);
          statuses[status] = (statuses[status] ?? 0) + 1;
          invariant(status < 500, `HTTP ${status} from ${c.route}`);
          if (status >= 400) {
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              throw new FuzzFinding(`HTTP ${status} from ${c.route} without a JSON body`);
            }
            decodeErrorBody(json); // throws RelayCodecError: not the error shape, which is a finding here
            return 'rejected';
          }
          invariant(SUCCESS[c.route].includes(status), `HTTP ${status} from ${c.route}`);
          if (c.route === 'push') decodePushSendResponse(JSON.parse(text));
          return 'accepted';
        },
        async afterBatch() {
          const info = await fetch(`${relay.url}/v1/info`, {
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          invariant(info.status === 200, `GET /v1/info answered ${info.status} after a batch`);
          decodeRelayInfo(await info.json());
          const status = await fetch(`${relay.url}/v1/burrows/${burrow.burrowId}/status`, {
            headers: { Authorization: `Bearer ${burrow.burrowToken}`, 'CF-Connecting-IP': freshSource() },
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          invariant(status.status === 200, `the Burrow's status answered ${status.status} after a batch`);
          await status.arrayBuffer();
          const logged = relay
            .log()
            .split('\n')
            .find((line) => ERROR_LOG.test(line));
          invariant(logged === undefined, `relay log: ${logged?.slice(0, 200)}`);
        },
        figures: () => {
          const figures: Record<string, number> = {};
          for (const [status, n] of Object.entries(statuses)) figures[`HTTP ${status}`] = n;
          return figures;
        },
        async stop() {
          await relay.stop();
        },
      };
    } catch (error) {
      await relay.stop();
      throw error;
    }
  },
};
