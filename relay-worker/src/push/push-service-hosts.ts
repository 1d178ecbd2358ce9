/**
 * The Web Push services the relay may POST to (issue 16.1, SPEC RL-HTTP-8). The relay sends Web Push and
 * nothing else. If a subscription could name any public https URL, anyone able to put one would have a POST
 * reflector: a bot API, a webhook, or a DNS name that resolves to a private or loopback address
 * (`127.0.0.1.nip.io`, `localtest.me`, `169.254.169.254.nip.io`), which neither Workers nor workerd resolve for
 * us to check. So endpoints must be on the push services browsers really use:
 *  - Chrome, Edge on Android, Samsung Internet, Opera, Brave: Firebase Cloud Messaging;
 *  - Firefox: Mozilla autopush;
 *  - Safari (macOS 13+, iOS 16.4+ home-screen apps): Apple;
 *  - Edge on Windows: Windows Push Notification Services, one host per region (`wns2-….notify.windows.com`).
 * An operator can add a service (a self-hosted autopush, a new browser's service) with the var
 * `EXTRA_PUSH_SERVICE_HOSTS`: comma- or space-separated host patterns of the same form.
 *
 * A pattern is a public DNS name (`public-host.ts`) or `*.` followed by one. The `*` stands for exactly one
 * label, as in a TLS wildcard: `*.notify.windows.com` admits `wns2-par02p.notify.windows.com`, but neither
 * `notify.windows.com` nor `a.b.notify.windows.com`.
 *
 * A wildcard must sit below a registrable domain, not at it or above it (issue 24.8): what follows `*.` must
 * be a name under a registrable domain (`notify.windows.com` is under `windows.com`). `*.co.uk` would admit
 * every company's host (`co.uk` is a public suffix), and `*.nip.io` every name of a wildcard DNS service,
 * `10-0-0-1.nip.io` included, which points wherever its name says. Registrable domains come from the Public
 * Suffix List, ICANN and private sections (`github.io` is a suffix too), through `tldts`: the list changes
 * every week and no hand-made table would keep up; tldts is maintained, ships the list inside (no fetch at
 * run time, which a Worker could not do anyway) and runs on workerd. Pinned exactly; a newer list comes with
 * a version bump.
 */
import { getDomain, getPublicSuffix } from 'tldts';
import { publicHostProblem } from './public-host.js';

export const WEB_PUSH_SERVICE_HOSTS: readonly string[] = [
  'fcm.googleapis.com',
  'updates.push.services.mozilla.com',
  'web.push.apple.com',
  '*.notify.windows.com',
];

/** Most patterns `EXTRA_PUSH_SERVICE_HOSTS` may add. */
export const MAX_EXTRA_PUSH_SERVICE_HOSTS = 16;
/** Longest `EXTRA_PUSH_SERVICE_HOSTS` value read (characters). */
export const MAX_EXTRA_PUSH_SERVICE_HOSTS_CHARS = 4_096;

const WILDCARD = '*.';

/** The Public Suffix List's private section counts: a user's `x.github.io` is not github's. */
const PSL = { allowPrivateDomains: true } as const;

/** Why `pattern` is not a host pattern, or null. */
export function hostPatternProblem(pattern: string): string | null {
  if (typeof pattern !== 'string') throw new TypeError('pattern must be a string');
  const wildcard = pattern.startsWith(WILDCARD);
  const name = wildcard ? pattern.slice(WILDCARD.length) : pattern;
  if (name !== name.toLowerCase()) return 'host pattern must be lower case';
  const problem = publicHostProblem(name);
  if (problem !== null || !wildcard) return problem;
  const registrable = getDomain(name, PSL);
  if (registrable === null || getPublicSuffix(name, PSL) === name)
    return `a wildcard must be below a registrable domain (${name} is a public suffix)`;
  if (registrable === name)
    return `a wildcard must be below a registrable domain, not at it (*.${name} names every host of ${name})`;
  return null;
}

export interface ParsedPushServiceHosts {
  /** Valid patterns, lower-cased, at most MAX_EXTRA_PUSH_SERVICE_HOSTS. */
  readonly hosts: readonly string[];
  /** Entries refused (not a host pattern, or over the count), for the operator's log. */
  readonly rejected: readonly string[];
}

/** Reads `EXTRA_PUSH_SERVICE_HOSTS`. Unset or empty → none. Never throws on a string. */
export function parseExtraPushServiceHosts(text: string | undefined): ParsedPushServiceHosts {
  if (text === undefined) return { hosts: [], rejected: [] };
  if (typeof text !== 'string') throw new TypeError('EXTRA_PUSH_SERVICE_HOSTS must be a string');
  if (text.length > MAX_EXTRA_PUSH_SERVICE_HOSTS_CHARS) return { hosts: [], rejected: ['(value too long)'] };
  const hosts: string[] = [];
  const rejected: string[] = [];
  for (const entry of text.split(/[\s,]+/)) {
    if (entry === '') continue;
    const pattern = entry.toLowerCase();
    if (hostPatternProblem(pattern) !== null || hosts.length >= MAX_EXTRA_PUSH_SERVICE_HOSTS)
      rejected.push(entry);
    else hosts.push(pattern);
  }
  return { hosts, rejected };
}

/** `hostname` as `URL.hostname` gives it (lower case). True when a pattern of the list names it. */
export function isPushServiceHost(hostname: string, extra: readonly string[] = []): boolean {
  if (typeof hostname !== 'string') throw new TypeError('hostname must be a string');
  for (const pattern of [...WEB_PUSH_SERVICE_HOSTS, ...extra]) {
    if (!pattern.startsWith(WILDCARD)) {
      if (hostname === pattern) return true;
      continue;
    }
    const suffix = pattern.slice(1); // ".notify.windows.com"
    const label = hostname.slice(0, -suffix.length);
    if (hostname.endsWith(suffix) && label.length > 0 && !label.includes('.')) return true;
  }
  return false;
}
