/**
 * The relay's HTTP bodies (`/v1/*`), as valibot schemas with strict decoders. [SPEC: RL-HTTP-1..9]
 * Ids and tokens are canonical unpadded base64url of fixed byte lengths (DESIGN §3).
 */
import * as v from 'valibot';
import { type ErrorCode, isErrorCode } from '../error-codes.js';
import { decodeBase64url, isBase64urlOfLength } from './base64url.js';
import { RelayCodecError } from './relay-codec-error.js';

export const BURROW_ID_BYTES = 16;
export const BURROW_TOKEN_BYTES = 32;
export const DELIVERY_ID_BYTES = 16;
export const DELIVERY_TOKEN_BYTES = 32;
/** SHA-256 output. */
export const TOKEN_HASH_BYTES = 32;
/** Uncompressed P-256 point: 0x04 ‖ X ‖ Y (RFC 8291 §3.1, SEC1 §2.3.3). */
export const P256_PUBLIC_KEY_BYTES = 65;
/** RFC 8291 §3.2: the auth secret is 16 bytes. */
export const PUSH_AUTH_SECRET_BYTES = 16;
/** Longest push endpoint URL accepted, in UTF-16 code units (real ones are ~200–500). */
export const MAX_PUSH_ENDPOINT_CHARS = 2048;
/** Longest error message the relay sends (code units). */
export const MAX_ERROR_MESSAGE_CHARS = 512;

const b64 = (bytes: number, what: string) =>
  v.pipe(
    v.string(),
    v.check((s) => isBase64urlOfLength(s, bytes), `${what} must be base64url of ${bytes} bytes`),
  );

export const BurrowIdSchema = b64(BURROW_ID_BYTES, 'burrowId');
export const BurrowTokenSchema = b64(BURROW_TOKEN_BYTES, 'burrowToken');
export const DeliveryIdSchema = b64(DELIVERY_ID_BYTES, 'deliveryId');
export const DeliveryTokenSchema = b64(DELIVERY_TOKEN_BYTES, 'deliveryToken');
export const TokenHashSchema = b64(TOKEN_HASH_BYTES, 'tokenHash');

/** `GET /v1/info` → 200. [SPEC: RL-HTTP-1] */
export const RelayInfoSchema = v.object({
  service: v.literal('burrow-relay'),
  protocolVersion: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** RFC 8292 application server key (base64url, 65-byte point) once VAPID is configured; else null. */
  vapidPublicKey: v.nullable(b64(P256_PUBLIC_KEY_BYTES, 'vapidPublicKey')),
  enrollmentGated: v.boolean(),
  limits: v.record(v.string(), v.pipe(v.number(), v.integer(), v.minValue(0))),
});
export type RelayInfo = v.InferOutput<typeof RelayInfoSchema>;

/** `POST /v1/burrows` → 201. The relay keeps only SHA-256(burrowToken). [SPEC: RL-HTTP-2] */
export const EnrollResponseSchema = v.strictObject({
  burrowId: BurrowIdSchema,
  burrowToken: BurrowTokenSchema,
});
export type EnrollResponse = v.InferOutput<typeof EnrollResponseSchema>;

/** `PUT /v1/burrows/:id/deliveries/:deliveryId` (Burrow bearer) body. [SPEC: RL-HTTP-4] */
export const RegisterDeliveryRequestSchema = v.strictObject({ tokenHash: TokenHashSchema });
export type RegisterDeliveryRequest = v.InferOutput<typeof RegisterDeliveryRequestSchema>;

/** `GET /v1/burrows/:id/deliveries` (Burrow bearer) → 200. Times are ms since the Unix epoch. [SPEC: RL-HTTP-6] */
export const DeliveryListResponseSchema = v.strictObject({
  deliveries: v.array(
    v.strictObject({
      deliveryId: DeliveryIdSchema,
      registeredAt: v.pipe(v.number(), v.integer(), v.minValue(0)),
      /** When the phone last PUT its subscription; null when it holds none. */
      subscriptionUpdatedAt: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
    }),
  ),
});
export type DeliveryListResponse = v.InferOutput<typeof DeliveryListResponseSchema>;

/**
 * `PUT /v1/burrows/:id/deliveries/:deliveryId/subscription` (delivery bearer) body: the browser's
 * `PushSubscription.toJSON()`. `expirationTime` is accepted and ignored. [SPEC: RL-HTTP-7]
 */
export const PushSubscriptionSchema = v.object({
  endpoint: v.pipe(
    v.string(),
    v.maxLength(MAX_PUSH_ENDPOINT_CHARS, 'endpoint too long'),
    // Shape only. Where the relay may POST (https on a public name; loopback http only under its development
    // switch) is the relay's policy, RL-HTTP-8 / RL-PUSH-6.
    v.regex(/^https?:\/\//i, 'endpoint must be an http(s) URL'),
  ),
  expirationTime: v.optional(v.nullable(v.number())),
  keys: v.object({
    p256dh: v.pipe(
      b64(P256_PUBLIC_KEY_BYTES, 'keys.p256dh'),
      // SEC1 §2.3.3: an uncompressed point starts with 0x04. (Whether it lies on the curve is the relay's
      // check: this package has no curve arithmetic.) Valibot runs a pipe's later checks even after an
      // earlier one failed, so this one must not assume the text is base64url: decoding it unguarded threw
      // RelayCodecError('bad_base64url') out of the decoder instead of 'bad_body' (found by tests/fuzz).
      v.check(
        (s: string) => isBase64urlOfLength(s, P256_PUBLIC_KEY_BYTES) && decodeBase64url(s)[0] === 0x04,
        'keys.p256dh must be an uncompressed point',
      ),
    ),
    auth: b64(PUSH_AUTH_SECRET_BYTES, 'keys.auth'),
  }),
});
export interface PushSubscriptionBody {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

/** Every relay error body. [SPEC: RL-HTTP-9, P-ERR-1] */
export const ErrorBodySchema = v.strictObject({
  error: v.strictObject({
    code: v.pipe(
      v.string(),
      v.check((s: string) => isErrorCode(s), 'unknown error code'),
    ),
    message: v.pipe(v.string(), v.maxLength(MAX_ERROR_MESSAGE_CHARS)),
  }),
});
export interface ErrorBody {
  readonly error: { readonly code: ErrorCode; readonly message: string };
}

function decodeWith<T>(schema: v.GenericSchema<unknown, T>, what: string, json: unknown): T {
  const result = v.safeParse(schema, json);
  if (!result.success) {
    throw new RelayCodecError('bad_body', `${what}: ${result.issues[0]?.message ?? 'invalid'}`);
  }
  return result.output;
}

export const decodeRelayInfo = (json: unknown): RelayInfo => decodeWith(RelayInfoSchema, 'info', json);
export const decodeEnrollResponse = (json: unknown): EnrollResponse =>
  decodeWith(EnrollResponseSchema, 'enroll response', json);
export const decodeRegisterDeliveryRequest = (json: unknown): RegisterDeliveryRequest =>
  decodeWith(RegisterDeliveryRequestSchema, 'delivery registration', json);
export const decodeDeliveryListResponse = (json: unknown): DeliveryListResponse =>
  decodeWith(DeliveryListResponseSchema, 'delivery list', json);
/** Returns only `{ endpoint, keys }`: unknown members are dropped, never stored. */
export function decodePushSubscription(json: unknown): PushSubscriptionBody {
  const s = decodeWith(PushSubscriptionSchema, 'push subscription', json);
  return { endpoint: s.endpoint, keys: { p256dh: s.keys.p256dh, auth: s.keys.auth } };
}
export const decodeErrorBody = (json: unknown): ErrorBody =>
  decodeWith(ErrorBodySchema, 'error body', json) as ErrorBody;

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  if (!isErrorCode(code)) throw new TypeError('errorBody: unknown error code');
  return { error: { code, message: message.slice(0, MAX_ERROR_MESSAGE_CHARS) } };
}
