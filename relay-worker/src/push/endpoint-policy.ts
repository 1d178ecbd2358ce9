/**
 * Where the relay will POST a push (DESIGN §4.1): `https:` on a public DNS name at the default port, with no
 * credentials in the URL, so a subscription can never point the relay at its own network. The explicit
 * development switch `allowLoopbackForDev` additionally admits `http:` or `https:` on loopback (127.0.0.0/8,
 * [::1], localhost) at any port — for the local push service the tests run; never set it in production.
 */
import { isLoopbackHost, publicHostProblem } from './public-host.js';

/** Same bound as the subscription body (`MAX_PUSH_ENDPOINT_CHARS` in @burrow/protocol). */
export const MAX_PUSH_ENDPOINT_URL_CHARS = 2048;

export interface EndpointPolicyOptions {
  /** Development only: also allow loopback http(s) endpoints. */
  readonly allowLoopbackForDev?: boolean;
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
  return publicHostProblem(url.hostname);
}
