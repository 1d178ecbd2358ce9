/**
 * What the Burrow seals for a phone (DESIGN §4.4 step 2; alert-spec "Push notifications"): the session id,
 * its label through `toPushText` (bounded, fallback "terminal"), and the ring's detail as the body — what the
 * program said, or the prompt-like lines read off the screen — through `boundedPushText`, with a fixed body
 * chosen by what rang when there is no detail (issue 23; attention README "Choices": the push is sealed to each
 * phone, so the relay and the push service see only ciphertext, and the words are what makes the push worth
 * answering). Also the opaque Topic that lets a newer ring replace a queued older one (RFC 8030 §5.4).
 */
import { hkdfSync } from 'node:crypto';
import { boundedPushText, hmacHash, toPushText } from '@burrow/crypto';
import { encodeBase64url, encodePushNotification, MAX_PUSH_TOPIC_CHARS } from '@burrow/protocol';

/** What a push is about: a ring's source (attention engine) or `burrow push test`. */
export type PushReason = 'report' | 'watching' | 'exit' | 'test';

/** The fixed body per reason, when the ring has no detail to say. */
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
  /** The ring's detail as text (pushBodyOf); any text, bounded here. Absent or empty: the fixed body. */
  readonly body?: string | null;
  /** ms since the Unix epoch. */
  readonly now: number;
}

/** Between a notification's title and its body in a push body. */
const TITLE_BODY_SEPARATOR = ': ';

/** The push body for a ring's public detail: its title and body, or null when it has neither. */
export function pushBodyOf(notification: { title: string; body: string } | null): string | null {
  if (notification === null) return null;
  const parts = [notification.title.trim(), notification.body.trim()].filter((p) => p !== '');
  return parts.length === 0 ? null : parts.join(TITLE_BODY_SEPARATOR);
}

/** The notification JSON for the envelope. @throws RelayCodecError when sessionId is not a session id. */
export function buildPushPayload(input: PushPayloadInput): Uint8Array {
  const fixed = PUSH_BODIES[input.reason];
  if (fixed === undefined) throw new RangeError(`unknown push reason ${String(input.reason)}`);
  const detail = typeof input.body === 'string' ? boundedPushText(input.body) : '';
  const body = detail === '' ? fixed : detail;
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
