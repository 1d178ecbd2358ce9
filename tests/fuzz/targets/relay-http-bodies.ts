/**
 * Target: the relay's HTTP body decoders, in process (protocol/src/relay/http-bodies.ts and push/push-send.ts,
 * push/notification-payload.ts, [SPEC: RL-HTTP-1..9, RL-PUSH-*]).
 *
 * Feeds structurally mutated valid bodies (members replaced by hostile values, deleted, added — `__proto__`
 * included — or wrapped), byte-mutated JSON text, and random JSON to every decoder. Expected rejection:
 * RelayCodecError with reason `bad_body` (what every decoder documents). Findings: any other exception, a
 * RelayCodecError with another reason (a check running on a value an earlier check already refused), an
 * accepted body whose output does not decode again to itself, an accepted push subscription keeping a member
 * other than endpoint and keys, or an accepted body breaking a bound the schema states.
 */
import { randomBytes } from 'node:crypto';
import {
  decodeDeliveryListResponse,
  decodeEnrollResponse,
  decodeErrorBody,
  decodePushNotification,
  decodePushSendRequest,
  decodePushSendResponse,
  decodePushSubscription,
  decodeRegisterDeliveryRequest,
  decodeRelayInfo,
  encodeBase64url,
  encodePushNotification,
  MAX_PUSH_TARGETS,
  type PushNotification,
  RelayCodecError,
} from '@burrow/protocol';
import fc from 'fast-check';
import { type FuzzTarget, invariant } from '../fuzz-target.js';
import { mutatedJson } from '../mutate.js';

const b64 = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => encodeBase64url(b));
const p256 = fc
  .uint8Array({ minLength: 64, maxLength: 64 })
  .map((b) => encodeBase64url(Uint8Array.of(4, ...b)));

/** One valid body per decoder: the generators the mutations start from. */
export const VALID_BODIES = {
  info: fc.record({
    service: fc.constant('burrow-relay'),
    protocolVersion: fc.integer({ min: 1, max: 3 }),
    vapidPublicKey: fc.option(p256, { nil: null }),
    enrollmentGated: fc.boolean(),
    limits: fc.dictionary(fc.string({ maxLength: 12 }), fc.nat(), { maxKeys: 4 }),
  }),
  enroll: fc.record({ burrowId: b64(16), burrowToken: b64(32) }),
  registerDelivery: fc.record({ tokenHash: b64(32) }),
  deliveryList: fc.record({
    deliveries: fc.array(
      fc.record({
        deliveryId: b64(16),
        registeredAt: fc.nat(),
        subscriptionUpdatedAt: fc.option(fc.nat(), { nil: null }),
      }),
      { maxLength: 3 },
    ),
  }),
  subscription: fc.record(
    {
      endpoint: fc.webUrl({ validSchemes: ['https'] }).filter((u) => u.length <= 2048),
      expirationTime: fc.option(fc.nat(), { nil: null }),
      keys: fc.record({ p256dh: p256, auth: b64(16) }),
    },
    { requiredKeys: ['endpoint', 'keys'] },
  ),
  error: fc.record({
    error: fc.record({
      code: fc.constantFrom('bad_request', 'not_found', 'unauthorized', 'rate_limited'),
      message: fc.string({ maxLength: 40 }),
    }),
  }),
  pushSend: fc.record({
    targets: fc.uniqueArray(
      fc.record({
        deliveryId: b64(16),
        envelope: fc.uint8Array({ minLength: 1, maxLength: 120 }).map(encodeBase64url),
      }),
      {
        minLength: 1,
        maxLength: 4,
        selector: (t) => t.deliveryId,
      },
    ),
    sessionTopic: fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/),
    ttlSeconds: fc.integer({ min: 0, max: 28 * 24 * 3600 }),
    urgency: fc.constantFrom('very-low', 'low', 'normal', 'high'),
  }),
  pushSendResponse: fc.record({
    results: fc.array(
      fc.record({
        deliveryId: b64(16),
        outcome: fc.constantFrom('accepted', 'no_subscription', 'gone', 'failed'),
      }),
      { maxLength: 4 },
    ),
  }),
  notification: fc.record({
    v: fc.constant(1),
    sessionId: fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/),
    label: fc.string({ minLength: 1, maxLength: 30 }),
    body: fc.string({ minLength: 1, maxLength: 60 }),
    ts: fc.integer({ min: 0, max: 9_000_000_000_000 }),
  }),
} as const satisfies Record<string, fc.Arbitrary<unknown>>;

type BodyName = keyof typeof VALID_BODIES;

const DECODERS: Record<BodyName, (json: unknown) => unknown> = {
  info: decodeRelayInfo,
  enroll: decodeEnrollResponse,
  registerDelivery: decodeRegisterDeliveryRequest,
  deliveryList: decodeDeliveryListResponse,
  subscription: decodePushSubscription,
  error: decodeErrorBody,
  pushSend: decodePushSendRequest,
  pushSendResponse: decodePushSendResponse,
  // The notification travels as bytes inside the envelope: re-encode the (mutated) JSON value, then decode.
  notification: (json) => decodePushNotification(new TextEncoder().encode(JSON.stringify(json) ?? 'null')),
};

interface Case {
  readonly body: BodyName;
  readonly json: unknown;
}

const NAMES = Object.keys(VALID_BODIES) as BodyName[];
const input: fc.Arbitrary<Case> = fc.oneof(
  ...NAMES.map((body) =>
    fc
      .oneof(
        { weight: 4, arbitrary: mutatedJson(VALID_BODIES[body]) },
        { weight: 1, arbitrary: VALID_BODIES[body] },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
      )
      .map((json) => ({ body, json })),
  ),
);

function checkBounds(body: BodyName, out: unknown): void {
  if (body === 'subscription') {
    const keys = Object.keys(out as object)
      .sort()
      .join(',');
    invariant(keys === 'endpoint,keys', `push subscription kept members ${keys}`);
    invariant(
      Object.keys((out as { keys: object }).keys)
        .sort()
        .join(',') === 'auth,p256dh',
      'subscription keys kept extra members',
    );
  }
  if (body === 'pushSend') {
    const targets = (out as { targets: { deliveryId: string }[] }).targets;
    invariant(
      targets.length >= 1 && targets.length <= MAX_PUSH_TARGETS,
      'push send target count out of bounds',
    );
    invariant(
      new Set(targets.map((t) => t.deliveryId)).size === targets.length,
      'push send names a deliveryId twice',
    );
  }
  if (body === 'notification') encodePushNotification(out as PushNotification);
}

export const relayHttpBodiesTarget: FuzzTarget<Case> = {
  name: 'relay-http-bodies',
  about: 'relay HTTP body / push-send / push-notification decoders in process: mutated-valid and random JSON',
  async: false,
  testRuns: 5_000,
  async start() {
    return {
      input,
      isExpected: (error) => error instanceof RelayCodecError && error.reason === 'bad_body',
      run({ body, json }) {
        const decode = DECODERS[body];
        const out = decode(json);
        checkBounds(body, out);
        const again = decode(body === 'notification' ? out : structuredClone(out));
        invariant(
          JSON.stringify(again) === JSON.stringify(out),
          `${body}: decoding the decoded body changed it`,
        );
        return 'accepted';
      },
    };
  },
};

/** For the live relay target: fresh random bytes, so two runs never share a delivery id. */
export const randomId = (bytes: number) => encodeBase64url(randomBytes(bytes));
