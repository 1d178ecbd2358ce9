/**
 * Checks on a phone's Web Push subscription beyond its JSON shape (which `decodePushSubscription` checks):
 * the endpoint is one the relay may POST to — the same policy the sender applies (push/endpoint-policy.ts:
 * https on a public DNS name, no IP literal, local name or credentials; DESIGN §4.1) — and p256dh is a real
 * point on P-256 (RFC 8291 §3.1). Loopback endpoints pass only under the development switch.
 * [SPEC: RL-HTTP-8, RL-PUSH-6]
 */
import { decodeBase64url, type PushSubscriptionBody } from '@burrow/protocol';
import { type EndpointPolicyOptions, pushEndpointProblem } from './push/endpoint-policy.js';

/** True when `p256dh` (already shape-checked) imports as a P-256 public key, i.e. lies on the curve. */
export async function isP256Point(p256dh: string): Promise<boolean> {
  try {
    await crypto.subtle.importKey(
      'raw',
      decodeBase64url(p256dh),
      { name: 'ECDH', namedCurve: 'P-256' },
      false,
      [],
    );
    return true;
  } catch {
    return false;
  }
}

export async function subscriptionProblem(
  subscription: PushSubscriptionBody,
  options: EndpointPolicyOptions = {},
): Promise<string | null> {
  const endpoint = pushEndpointProblem(subscription.endpoint, options);
  if (endpoint !== null) return endpoint;
  return (await isP256Point(subscription.keys.p256dh)) ? null : 'keys.p256dh is not a P-256 point';
}
