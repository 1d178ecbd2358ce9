/**
 * The Burrow → relay push send (`POST /v1/burrows/:id/push`, Burrow bearer) and its per-target results
 * (DESIGN §4.4 steps 3–4). The Burrow names every target with the envelope only that phone can open; the
 * relay intersects the targets with the subscriptions it holds and answers one result per named target.
 * A send naming more than MAX_PUSH_TARGETS targets is refused whole (DESIGN §4.1) — the Burrow clamps first.
 */
import * as v from 'valibot';
import { decodeBase64url } from '../relay/base64url.js';
import { DeliveryIdSchema } from '../relay/http-bodies.js';
import { RelayCodecError } from '../relay/relay-codec-error.js';

/** Targets per send; over it the relay refuses the whole send (alert-spec: MAX_PUSH_QUERY_DELIVERY_IDS). */
export const MAX_PUSH_TARGETS = 20;
/**
 * base64url characters of the largest envelope: the text IS the Web Push plaintext (push-message.ts), and RFC
 * 8291 leaves 4096 − 86 (header) − 16 (tag) − 1 (delimiter) = 3993 bytes for it.
 */
export const MAX_PUSH_ENVELOPE_CHARS = 3993;
/** A sealed envelope is at most 2994 bytes (`PUSH_ENVELOPE_MAX_BYTES` in @burrow/crypto): 3993 chars × 3/4. */
export const MAX_PUSH_ENVELOPE_BYTES = Math.floor((MAX_PUSH_ENVELOPE_CHARS * 3) / 4);
/** RFC 8030 §5.4: a Topic is at most 32 characters of the base64url alphabet. */
export const MAX_PUSH_TOPIC_CHARS = 32;
/** RFC 8030 §5.2 TTL, seconds. Capped at 28 days (what the big push services keep at most). */
export const MAX_PUSH_TTL_SECONDS = 28 * 24 * 60 * 60;
/** RFC 8030 §5.3 urgency values. */
export const PUSH_URGENCIES = ['very-low', 'low', 'normal', 'high'] as const;
export type PushUrgency = (typeof PUSH_URGENCIES)[number];
const TOPIC_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

export const PushTopicSchema = v.pipe(
  v.string(),
  v.check(
    (s) => TOPIC_PATTERN.test(s),
    `sessionTopic must be 1..${MAX_PUSH_TOPIC_CHARS} base64url characters`,
  ),
);

export const PushEnvelopeTextSchema = v.pipe(
  v.string(),
  v.maxLength(MAX_PUSH_ENVELOPE_CHARS, 'envelope too long'),
  v.check(isCanonicalBase64url, 'envelope must be non-empty canonical base64url'),
);

export const PushTargetSchema = v.strictObject({
  deliveryId: DeliveryIdSchema,
  envelope: PushEnvelopeTextSchema,
});

export const PushSendRequestSchema = v.pipe(
  v.strictObject({
    targets: v.pipe(
      v.array(PushTargetSchema),
      v.minLength(1, 'a push send names at least one target'),
      v.maxLength(MAX_PUSH_TARGETS, `a push send names at most ${MAX_PUSH_TARGETS} targets`),
    ),
    sessionTopic: PushTopicSchema,
    ttlSeconds: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_PUSH_TTL_SECONDS)),
    urgency: v.picklist(PUSH_URGENCIES),
  }),
  v.check(
    (r) => new Set(r.targets.map((t) => t.deliveryId)).size === r.targets.length,
    'each deliveryId is named once',
  ),
);
export interface PushTarget {
  readonly deliveryId: string;
  readonly envelope: string;
}
export interface PushSendRequest {
  readonly targets: readonly PushTarget[];
  readonly sessionTopic: string;
  readonly ttlSeconds: number;
  readonly urgency: PushUrgency;
}

export const PUSH_TARGET_OUTCOMES = ['accepted', 'no_subscription', 'gone', 'failed'] as const;
export type PushTargetOutcome = (typeof PUSH_TARGET_OUTCOMES)[number];

/**
 * One named target's result, and nothing more (issue 16.1: the relay must not be a way to read another
 * server's answers): `accepted` (the push service took it, 201/202), `no_subscription` (none held for that
 * deliveryId in this Burrow), `gone` (404/410, the subscription was deleted), `failed` (anything else: another
 * status, no answer, or an endpoint the relay's policy refuses). Never the push service's status code.
 * [SPEC: RL-PUSH-2]
 */
export const PushTargetResultSchema = v.strictObject({
  deliveryId: DeliveryIdSchema,
  outcome: v.picklist(PUSH_TARGET_OUTCOMES),
});
export interface PushTargetResult {
  readonly deliveryId: string;
  readonly outcome: PushTargetOutcome;
}

/** `POST /v1/burrows/:id/push` → 200: one result per named target, in request order. */
export const PushSendResponseSchema = v.strictObject({
  results: v.pipe(v.array(PushTargetResultSchema), v.maxLength(MAX_PUSH_TARGETS)),
});
export interface PushSendResponse {
  readonly results: readonly PushTargetResult[];
}

function decodeWith<T>(schema: v.GenericSchema<unknown, unknown>, what: string, json: unknown): T {
  const result = v.safeParse(schema, json);
  if (!result.success) {
    throw new RelayCodecError('bad_body', `${what}: ${result.issues[0]?.message ?? 'invalid'}`);
  }
  return result.output as T;
}

/** @throws RelayCodecError('bad_body') */
export const decodePushSendRequest = (json: unknown): PushSendRequest =>
  decodeWith(PushSendRequestSchema, 'push send', json);
/** @throws RelayCodecError('bad_body') */
export const decodePushSendResponse = (json: unknown): PushSendResponse =>
  decodeWith(PushSendResponseSchema, 'push send response', json);

function isCanonicalBase64url(s: string): boolean {
  if (s.length === 0) return false;
  try {
    decodeBase64url(s);
    return true;
  } catch {
    return false;
  }
}
