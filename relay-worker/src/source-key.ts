/** Which per-source rate-limit bucket a request's address (`CF-Connecting-IP`) belongs to. [SPEC: RL-LIM-4] */

/** The limiter key for an address: IPv4 as is, IPv6 by its /64 (one subscriber's usual allocation). */
export function sourceKey(address: string | null): string {
  if (address === null || address === '' || address.length > MAX_ADDRESS_CHARS) return 'src:unknown';
  if (!address.includes(':')) return `src4:${address}`;
  const prefix = ipv6Prefix64(address.toLowerCase());
  return prefix === null ? 'src:unknown' : `src6:${prefix}`;
}

/** Longest textual IP address (IPv6 with an embedded IPv4 tail is 45 characters). */
const MAX_ADDRESS_CHARS = 45;

/** The first four 16-bit groups of an IPv6 address, normalised, or null if it does not parse. */
function ipv6Prefix64(address: string): string | null {
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const parts = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'));
  const head = parts(halves[0]);
  const tail = parts(halves[1]);
  // An embedded IPv4 tail (::ffff:1.2.3.4) stands for two groups.
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const missing = 8 - width(head) - width(tail);
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  const first = groups.slice(0, 4);
  if (first.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return first.map((g) => Number.parseInt(g, 16).toString(16)).join(':');
}
