import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hostPatternProblem,
  isPushServiceHost,
  MAX_EXTRA_PUSH_SERVICE_HOSTS,
  parseExtraPushServiceHosts,
  WEB_PUSH_SERVICE_HOSTS,
} from './push-service-hosts.js';

describe('Web Push service hosts [RL-HTTP-8]', () => {
  it('lists the four services browsers use, each a valid pattern', () => {
    expect(WEB_PUSH_SERVICE_HOSTS).toEqual([
      'fcm.googleapis.com',
      'updates.push.services.mozilla.com',
      'web.push.apple.com',
      '*.notify.windows.com',
    ]);
    for (const p of WEB_PUSH_SERVICE_HOSTS) expect(hostPatternProblem(p), p).toBeNull();
  });

  it('matches exact names, and a wildcard for exactly one label', () => {
    expect(isPushServiceHost('fcm.googleapis.com')).toBe(true);
    expect(isPushServiceHost('wns2-bl2p.notify.windows.com')).toBe(true);
    expect(isPushServiceHost('notify.windows.com')).toBe(false);
    expect(isPushServiceHost('a.b.notify.windows.com')).toBe(false);
    expect(isPushServiceHost('xnotify.windows.com')).toBe(false);
    expect(isPushServiceHost('fcm.googleapis.com.attacker.example')).toBe(false);
    expect(isPushServiceHost('push.example.org', ['push.example.org'])).toBe(true);
    expect(() => isPushServiceHost(7 as unknown as string)).toThrow(TypeError);
  });

  it('reads EXTRA_PUSH_SERVICE_HOSTS: valid patterns kept (lower-cased), the rest reported', () => {
    expect(parseExtraPushServiceHosts(undefined)).toEqual({ hosts: [], rejected: [] });
    expect(
      parseExtraPushServiceHosts(' Push.Example.org, *.autopush.example.net  localhost,*.com 10.0.0.1 *'),
    ).toEqual({
      hosts: ['push.example.org', '*.autopush.example.net'],
      rejected: ['localhost', '*.com', '10.0.0.1', '*'],
    });
    const many = Array.from({ length: MAX_EXTRA_PUSH_SERVICE_HOSTS + 2 }, (_, i) => `p${i}.example.org`);
    const parsed = parseExtraPushServiceHosts(many.join(','));
    expect(parsed.hosts).toHaveLength(MAX_EXTRA_PUSH_SERVICE_HOSTS);
    expect(parsed.rejected).toHaveLength(2);
    expect(parseExtraPushServiceHosts('a'.repeat(5000)).hosts).toEqual([]);
    expect(() => parseExtraPushServiceHosts(1 as unknown as string)).toThrow(TypeError);
  });

  it('refuses a wildcard at or above a registrable domain: *.co.uk, *.nip.io (issue 24.8, Public Suffix List)', () => {
    const { hosts, rejected } = parseExtraPushServiceHosts(
      '*.co.uk *.nip.io *.sslip.io *.example.com *.github.io *.alice.github.io *.push.alice.github.io *.push.example.co.uk push.example.co.uk',
    );
    expect(rejected).toEqual([
      '*.co.uk',
      '*.nip.io',
      '*.sslip.io',
      '*.example.com',
      '*.github.io',
      '*.alice.github.io',
    ]);
    expect(hosts).toEqual(['*.push.alice.github.io', '*.push.example.co.uk', 'push.example.co.uk']);
    expect(hostPatternProblem('*.co.uk')).toMatch(/co\.uk is a public suffix/);
    expect(hostPatternProblem('*.nip.io')).toMatch(/not at it/);
    // So no operator entry can admit a wildcard DNS name that points at loopback.
    expect(isPushServiceHost('127-0-0-1.nip.io', hosts)).toBe(false);
  });

  it('never throws on any string, and never keeps a pattern that is not one', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const { hosts } = parseExtraPushServiceHosts(s);
        for (const h of hosts) expect(hostPatternProblem(h)).toBeNull();
        expect(typeof isPushServiceHost(s, hosts)).toBe('boolean');
      }),
      { seed: 1616, numRuns: 500 },
    );
  });
});
