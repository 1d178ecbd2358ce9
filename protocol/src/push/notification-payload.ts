/**
 * The notification JSON sealed INSIDE each push envelope (DESIGN §4.4 step 2): only the phone's service
 * worker reads it. The Burrow bounds label and body with `toPushText` / `boundedPushText` (@burrow/crypto)
 * before encoding; the service worker re-bounds after decoding (alert-spec "Push notifications": the Burrow
 * bounds, then seals; the worker re-bounds at the render sink). This schema only enforces the bounds.
 */
import * as v from 'valibot';
import { RelayCodecError } from '../relay/relay-codec-error.js';
import { sessionId } from '../remote/fields.js';

export const PUSH_NOTIFICATION_VERSION = 1;
/** Same cap as `PUSH_TEXT_MAX_CODE_POINTS` in @burrow/crypto (this package does not depend on it). */
export const MAX_PUSH_NOTIFICATION_TEXT_CODE_POINTS = 120;
/** Encoded payload bytes: far inside the envelope's payload room (3830 bytes). */
export const MAX_PUSH_NOTIFICATION_BYTES = 2048;
/** Latest accepted timestamp (ms since the epoch): year 2255, beyond any real clock, below 2^53. */
const MAX_TS_MS = 9_000_000_000_000;

const boundedText = (what: string) =>
  v.pipe(
    v.string(),
    v.check((s) => {
      const n = codePointCount(s);
      return n >= 1 && n <= MAX_PUSH_NOTIFICATION_TEXT_CODE_POINTS;
    }, `${what} must be 1..${MAX_PUSH_NOTIFICATION_TEXT_CODE_POINTS} code points`),
  );

export const PushNotificationSchema = v.strictObject({
  v: v.literal(PUSH_NOTIFICATION_VERSION),
  sessionId,
  label: boundedText('label'),
  body: boundedText('body'),
  ts: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_TS_MS)),
});
export interface PushNotification {
  readonly v: typeof PUSH_NOTIFICATION_VERSION;
  readonly sessionId: string;
  readonly label: string;
  readonly body: string;
  /** When the Burrow sent it, ms since the Unix epoch. */
  readonly ts: number;
}

/** Validates and encodes to UTF-8 JSON. @throws RelayCodecError('bad_body') when a field is out of bounds. */
export function encodePushNotification(notification: PushNotification): Uint8Array {
  const checked = check(notification);
  const bytes = new TextEncoder().encode(JSON.stringify(checked));
  if (bytes.length > MAX_PUSH_NOTIFICATION_BYTES)
    throw new RelayCodecError('bad_body', 'push notification too large');
  return bytes;
}

/** Decodes the opened envelope's payload. @throws RelayCodecError('bad_body') on anything malformed. */
export function decodePushNotification(bytes: Uint8Array): PushNotification {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('decodePushNotification: expected a Uint8Array');
  if (bytes.length > MAX_PUSH_NOTIFICATION_BYTES)
    throw new RelayCodecError('bad_body', 'push notification too large');
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new RelayCodecError('bad_body', 'push notification is not UTF-8 JSON');
  }
  return check(json);
}

function check(json: unknown): PushNotification {
  const result = v.safeParse(PushNotificationSchema, json);
  if (!result.success) {
    throw new RelayCodecError('bad_body', `push notification: ${result.issues[0]?.message ?? 'invalid'}`);
  }
  return result.output as PushNotification;
}

function codePointCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
