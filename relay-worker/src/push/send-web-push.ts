/**
 * One Web Push request (RFC 8030 §5) from the relay to a phone's push service: the sealed envelope encrypted
 * for the subscription (RFC 8291), VAPID authorization (RFC 8292), `TTL`, `Urgency` and `Topic` headers, a
 * timeout, and the response mapped to the per-target outcome (DESIGN §4.4 step 4):
 * 201/202 → delivered; 404/410 → gone (the subscription is dead, RFC 8030 §7.3); anything else → failed with
 * its status; no response (timeout, network error, refused endpoint) → failed with status null.
 * Redirects are not followed: a push service does not redirect, and following one would let a subscription
 * steer the relay elsewhere.
 */
import { decodeBase64url, type PushUrgency } from '@burrow/protocol';
import { pushEndpointProblem } from './endpoint-policy.js';
import { vapidAudience } from './vapid-jwt.js';
import type { VapidSigner } from './vapid-signer.js';
import { encryptWebPush, WEB_PUSH_MAX_PLAINTEXT_BYTES } from './web-push-encryption.js';

/** How long one push request may take before it counts as failed. */
export const WEB_PUSH_TIMEOUT_MS = 10_000;

export interface WebPushSubscription {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

export interface WebPushOptions {
  readonly vapid: VapidSigner;
  readonly ttlSeconds: number;
  readonly urgency: PushUrgency;
  /** RFC 8030 §5.4 Topic (≤ 32 base64url characters): a newer push with it replaces a queued older one. */
  readonly topic?: string;
  readonly timeoutMs?: number;
  /** Development only (see endpoint-policy.ts). */
  readonly allowLoopbackForDev?: boolean;
  /** The operator's extra push service hosts (see endpoint-policy.ts). */
  readonly extraServiceHosts?: readonly string[];
}

export type WebPushResult =
  | { readonly outcome: 'delivered'; readonly status: number }
  | { readonly outcome: 'gone'; readonly status: number }
  | { readonly outcome: 'failed'; readonly status: number | null; readonly reason: string };

export type FetchFn = (input: string, init: RequestInit) => Promise<Response>;
export type Clock = () => number;

export async function sendWebPush(
  subscription: WebPushSubscription,
  envelope: Uint8Array,
  options: WebPushOptions,
  fetchFn: FetchFn,
  clock: Clock,
): Promise<WebPushResult> {
  if (!(envelope instanceof Uint8Array)) throw new TypeError('envelope must be a Uint8Array');
  if (envelope.length > WEB_PUSH_MAX_PLAINTEXT_BYTES) {
    throw new RangeError(`envelope is limited to ${WEB_PUSH_MAX_PLAINTEXT_BYTES} bytes`);
  }
  const refused = pushEndpointProblem(subscription.endpoint, options);
  if (refused !== null) return { outcome: 'failed', status: null, reason: refused };
  let body: Uint8Array<ArrayBuffer>;
  try {
    body = await encryptWebPush(envelope, {
      p256dh: decodeBase64url(subscription.keys.p256dh),
      auth: decodeBase64url(subscription.keys.auth),
    });
  } catch {
    // The envelope was size-checked above, so what fails here is the stored subscription's keys.
    return { outcome: 'failed', status: null, reason: 'subscription keys are unusable' };
  }
  const headers: Record<string, string> = {
    Authorization: await options.vapid.authorization(vapidAudience(subscription.endpoint), clock()),
    'Content-Encoding': 'aes128gcm',
    'Content-Type': 'application/octet-stream',
    TTL: String(options.ttlSeconds),
    Urgency: options.urgency,
  };
  if (options.topic !== undefined) headers.Topic = options.topic;
  let response: Response;
  try {
    response = await fetchFn(subscription.endpoint, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? WEB_PUSH_TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return {
      outcome: 'failed',
      status: null,
      reason: timedOut ? 'push service timed out' : 'push service unreachable',
    };
  }
  // The body is never needed; release the connection.
  await response.body?.cancel().catch(() => undefined);
  const status = response.status;
  if (status === 201 || status === 202) return { outcome: 'delivered', status };
  if (status === 404 || status === 410) return { outcome: 'gone', status };
  return { outcome: 'failed', status, reason: `push service answered ${status}` };
}
