/**
 * The Burrow's network policy as it travels (SPEC "The direct path", R-NET-*): whether a paired phone may
 * reach this Burrow over a direct WebRTC path, and which ICE servers both ends may use to find one. None by
 * default: without them only host and peer-reflexive candidates exist, so nothing is contacted beyond the
 * phone and the relay unless the owner configures it.
 */
import * as v from 'valibot';
import { MAX_ICE_CREDENTIAL_CHARS, MAX_ICE_SERVERS, MAX_ICE_URL_CHARS } from './limits.js';

export const DIRECT_MODES = ['allowed', 'off'] as const;
export type DirectMode = (typeof DIRECT_MODES)[number];

/**
 * R-NET-2: one STUN or TURN server as RFC 7064 / RFC 7065 URIs name it: `stun:host[:port]`,
 * `stuns:host[:port]`, `turn:host[:port][?transport=udp|tcp]`, `turns:host[:port][?transport=tcp]`. The host is
 * a DNS name, an IPv4 address or a bracketed IPv6 address; no userinfo (TURN credentials are their own fields).
 */
export const ICE_URL_PATTERN =
  /^(stuns?|turns?):(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(?::([0-9]{1,5}))?(\?transport=(?:udp|tcp))?$/;

export function isIceUrl(url: unknown): url is string {
  if (typeof url !== 'string' || url.length > MAX_ICE_URL_CHARS) return false;
  const m = ICE_URL_PATTERN.exec(url);
  if (m === null) return false;
  if (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 65_535)) return false;
  // RFC 7064: STUN URIs take no query; a `turns` server is reached over TLS, so over TCP.
  if (m[4] !== undefined && m[1]!.startsWith('stun')) return false;
  return !(m[1] === 'turns' && m[4] === '?transport=udp');
}

const credential = v.pipe(
  v.string(),
  v.check(
    (s) => s.length >= 1 && s.length <= MAX_ICE_CREDENTIAL_CHARS && /^[\x20-\x7e]+$/.test(s),
    `R-NET-2: a TURN username or credential is 1–${MAX_ICE_CREDENTIAL_CHARS} printable ASCII characters`,
  ),
);

export const iceServerSchema = v.pipe(
  v.strictObject({
    url: v.pipe(
      v.string(),
      v.check((s: string) => isIceUrl(s), 'R-NET-2: an ICE server is a stun:, stuns:, turn: or turns: URL'),
    ),
    username: v.optional(credential),
    credential: v.optional(credential),
  }),
  v.check(
    (s) => (s.username === undefined) === (s.credential === undefined),
    'R-NET-2: username and credential come together',
  ),
  v.check(
    (s) => s.url.startsWith('turn') === (s.username !== undefined),
    'R-NET-2: a TURN server has a username and credential, a STUN server none',
  ),
);
export type IceServer = v.InferOutput<typeof iceServerSchema>;

/** R-NET-1 / R-NET-2: the policy. */
export const networkPolicySchema = v.strictObject({
  direct: v.picklist(DIRECT_MODES),
  iceServers: v.pipe(
    v.array(iceServerSchema),
    v.maxLength(MAX_ICE_SERVERS, `R-NET-2: at most ${MAX_ICE_SERVERS} ICE servers`),
    v.check(
      (list) => new Set(list.map((s) => s.url)).size === list.length,
      'R-NET-2: ICE server URLs are distinct',
    ),
  ),
});
export type NetworkPolicy = v.InferOutput<typeof networkPolicySchema>;

/** R-NET-1: the default — direct allowed, no ICE servers (host and peer-reflexive candidates only). */
export const DEFAULT_NETWORK_POLICY: NetworkPolicy = Object.freeze({
  direct: 'allowed',
  iceServers: Object.freeze([]) as unknown as IceServer[],
});

/** Validates any value as a policy (the state file, a CLI argument). Throws RangeError naming the rule. */
export function parseNetworkPolicy(value: unknown): NetworkPolicy {
  const r = v.safeParse(networkPolicySchema, value, { abortEarly: true });
  if (r.success) return r.output;
  const message = r.issues[0].message;
  throw new RangeError(/^R-NET-\d+: /.test(message) ? message : 'R-NET-2: not a network policy');
}
