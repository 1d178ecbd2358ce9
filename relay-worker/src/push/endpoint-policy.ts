/**
 * Where the relay will POST a push (DESIGN §4.1, issue 16.1): `https:` at the default port, no credentials in
 * the URL, on a host of a real Web Push service (`push-service-hosts.ts`: FCM, Mozilla, Apple, WNS, plus the
 * operator's `EXTRA_PUSH_SERVICE_HOSTS`). So a subscription can point the relay neither at its own network nor
 * at any other public URL. The explicit development switch `allowLoopbackForDev` additionally admits `http:`
 * or `https:` on loopback (127.0.0.0/8, [::1], localhost) at any port, for the local push service the tests
 * run. Never set it in production. [SPEC: RL-HTTP-8, RL-PUSH-6]
 */

import { isLoopbackHost, publicHostProblem } from './public-host.js';
import { isPushServiceHost } from './push-service-hosts.js';

/** Same bound as the subscription body (`MAX_PUSH_ENDPOINT_CHARS` in @burrow/protocol). */
export const MAX_PUSH_ENDPOINT_URL_CHARS = 2048;

export interface EndpointPolicyOptions {
  /** Development only: also allow loopback http(s) endpoints. */
  readonly allowLoopbackForDev?: boolean;
  /** Host patterns the operator added (`parseExtraPushServiceHosts`), beyond WEB_PUSH_SERVICE_HOSTS. */
  readonly extraServiceHosts?: readonly string[];
}

/** Returns why the relay must not POST to `endpoint`, or null when it may. Never throws on a string. */
export function pushEndpointProblem(endpoint: string, options: EndpointPolicyOptions = {}): string | null {
  if (typeof endpoint !== 'string') throw new TypeError('endpoint must be a string');
  if (endpoint.length > MAX_PUSH_ENDPOINT_URL_CHARS) return 'endpoint is too long';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint is not a URL';
  }
  if (url.username !== '' || url.password !== '') return 'endpoint must not carry credentials';
  if (options.allowLoopbackForDev === true && isLoopbackHost(url.hostname)) {
    return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'endpoint must be http(s)';
  }
  if (url.protocol !== 'https:') return 'endpoint must be https';
  if (url.port !== '') return 'endpoint must use the default https port';
  const host = publicHostProblem(url.hostname);
  if (host !== null) return host;
  return isPushServiceHost(url.hostname, options.extraServiceHosts)
    ? null
    : 'endpoint is not on a known Web Push service';
}
