/**
 * Checks on a phone's Web Push subscription beyond its JSON shape (which `decodePushSubscription` checks):
 * the endpoint is an https URL on a DNS name, not a literal or local address (DESIGN §4.1, so the relay can
 * never be pointed at its own network), and p256dh is a real point on P-256 (RFC 8291 §3.1). [SPEC: RL-HTTP-8]
 */
import { decodeBase64url, type PushSubscriptionBody } from '@burrow/protocol';

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i;

export function pushEndpointProblem(endpoint: string): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint is not a URL';
  }
  if (url.protocol !== 'https:') return 'endpoint must be https';
  if (url.username !== '' || url.password !== '') return 'endpoint must not carry credentials';
  const host = url.hostname;
  if (host.startsWith('[') || /^[0-9.]+$/.test(host) || /^0x/i.test(host))
    return 'endpoint must be a DNS name';
  if (!host.includes('.') || LOCAL_NAMES.test(host)) return 'endpoint must be a public DNS name';
  return null;
}

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

export async function subscriptionProblem(subscription: PushSubscriptionBody): Promise<string | null> {
  const endpoint = pushEndpointProblem(subscription.endpoint);
  if (endpoint !== null) return endpoint;
  return (await isP256Point(subscription.keys.p256dh)) ? null : 'keys.p256dh is not a P-256 point';
}
