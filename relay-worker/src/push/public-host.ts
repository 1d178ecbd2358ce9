/**
 * Which host names the relay may reach or name as a VAPID contact (DESIGN §4.1): a public DNS name — never an
 * IP literal, a single label, `localhost`, or a name reserved for local networks (RFC 6761 / RFC 6762 /
 * RFC 8375). The WHATWG URL parser has already canonicalised numeric forms (`0x7f.1`, `2130706433`) to
 * dotted quads, so one dotted-quad test catches every IPv4 spelling.
 * A DNS name may still resolve to a private address; Workers cannot resolve names, and Cloudflare's own
 * egress refuses private destinations.
 */

const IPV4_LITERAL = /^\d{1,3}(\.\d{1,3}){3}$/;
const LOCAL_SUFFIXES = /(^|\.)(localhost|local|internal|localdomain|lan|home\.arpa|invalid|test|onion)$/i;
const DNS_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/i;

/** `hostname` as `URL.hostname` gives it. Returns why it is not a public DNS name, or null. */
export function publicHostProblem(hostname: string): string | null {
  if (hostname.startsWith('[') || IPV4_LITERAL.test(hostname))
    return 'host must be a DNS name, not an IP literal';
  if (!DNS_NAME.test(hostname)) return 'host must be a public DNS name';
  if (LOCAL_SUFFIXES.test(hostname)) return 'host must not be a local or reserved name';
  return null;
}

/** Loopback as a development push service listens on it: 127.0.0.0/8, [::1], localhost. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}
