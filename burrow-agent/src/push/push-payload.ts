/**
 * What the Burrow seals for a phone (DESIGN §4.4 step 2; alert-spec "Push notifications"): the session id,
 * its label through `toPushText` (bounded, fallback "terminal"), and a fixed body chosen by what rang — never
 * terminal-supplied notification text, which stays in the directory where Pocket shows it after opening.
 * Also the opaque Topic that lets a newer ring replace a queued older one (RFC 8030 §5.4).
 */

import { hkdfSync } from 'node:crypto';
import { hmacHash, toPushText } from '@burrow/crypto';
import { encodeBase64url, encodePushNotification, MAX_PUSH_TOPIC_CHARS } from '@burrow/protocol';

/** What a push is about: a ring's source (attention engine) or `burrow push test`. */
export type PushReason = 'report' | 'watching' | 'exit' | 'test';

/** The fixed body per reason. */
export const PUSH_BODIES: Readonly<Record<PushReason, string>> = Object.freeze({
  report: 'Needs your attention',
  watching: 'Went quiet — may be waiting for you',
  exit: 'Command finished',
  test: 'Test notification from your Burrow',
});

export interface PushPayloadInput {
  readonly sessionId: string;
  /** The session's published label; any text, bounded here. */
  readonly label: string;
  readonly reason: PushReason;
  /** ms since the Unix epoch. */
  readonly now: number;
}

/** The notification JSON for the envelope. @throws RelayCodecError when sessionId is not a session id. */
export function buildPushPayload(input: PushPayloadInput): Uint8Array {
  const body = PUSH_BODIES[input.reason];
  if (body === undefined) throw new RangeError(`unknown push reason ${String(input.reason)}`);
  return encodePushNotification({
    v: 1,
    sessionId: input.sessionId,
    label: toPushText(input.label),
    body,
    ts: Math.floor(input.now),
  });
}

const TOPIC_BYTES = (MAX_PUSH_TOPIC_CHARS * 3) / 4;
const TOPIC_LABEL = new TextEncoder().encode('burrow push topic\0');
/** HKDF `info` for the Topic key (RFC 5869 §3.2: one info per key use). */
export const PUSH_TOPIC_KEY_INFO = 'burrow push topic key v1';
const TOPIC_KEY_BYTES = 32;

/**
 * The key Topics are made with: HKDF-SHA256 (RFC 5869) of the Burrow's static private key, empty salt, info
 * PUSH_TOPIC_KEY_INFO. The X25519 key itself is never an HMAC key (issue 24.8): a key has one use, and every
 * other use gets its own key derived for it.
 */
export function pushTopicKey(staticPrivateKey: Uint8Array): Uint8Array {
  return new Uint8Array(
    hkdfSync('sha256', staticPrivateKey, new Uint8Array(0), PUSH_TOPIC_KEY_INFO, TOPIC_KEY_BYTES),
  );
}

/**
 * The Topic for a session: HMAC-BLAKE2s keyed by the Topic key (`pushTopicKey`) over a label and the session
 * id, cut to 24 bytes = 32 base64url characters. Stable per session, so the push service replaces a queued
 * older ring; keyed, so neither the relay nor the push service can link it to a session id.
 */
export function pushTopicFor(staticPrivateKey: Uint8Array, sessionId: string): string {
  const id = new TextEncoder().encode(sessionId);
  const data = new Uint8Array(TOPIC_LABEL.length + id.length);
  data.set(TOPIC_LABEL);
  data.set(id, TOPIC_LABEL.length);
  return encodeBase64url(hmacHash(pushTopicKey(staticPrivateKey), data).slice(0, TOPIC_BYTES));
}
