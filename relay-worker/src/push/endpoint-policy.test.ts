import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pushEndpointProblem } from './endpoint-policy.js';

describe('push endpoint policy', () => {
  it('allows https on the Web Push services browsers use', () => {
    for (const ok of [
      'https://fcm.googleapis.com/fcm/send/abc:def',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAA',
      'https://web.push.apple.com/QGx',
      'https://wns2-par02p.notify.windows.com/w/?token=BQYAAA',
      'https://FCM.googleapis.com/fcm/send/x',
    ]) {
      expect(pushEndpointProblem(ok), ok).toBeNull();
    }
  });

  it('refuses every other public https URL: names resolving to private addresses, bot APIs (issue 16.1)', () => {
    for (const bad of [
      // Public DNS names that resolve to loopback or link-local: the relay cannot resolve them to check.
      'https://127.0.0.1.nip.io/x',
      'https://localtest.me/x',
      'https://169.254.169.254.nip.io/latest/meta-data',
      'https://10.0.0.1.sslip.io/x',
      // Any public service a reflector would reach.
      'https://api.telegram.org/bot123:abc/sendMessage?chat_id=1&text=hi',
      'https://hooks.slack.com/services/T/B/x',
      'https://example.com/push',
      // Near misses of the list.
      'https://fcm.googleapis.com.evil.example/x',
      'https://evilfcm.googleapis.com/x',
      'https://notify.windows.com/x',
      'https://a.b.notify.windows.com/x',
      'https://push.services.mozilla.com/x',
      'https://apple.com/x',
    ]) {
      expect(pushEndpointProblem(bad), bad).toBe('endpoint is not on a known Web Push service');
      expect(pushEndpointProblem(bad, { allowLoopbackForDev: true }), bad).not.toBeNull();
    }
  });

  it('admits the hosts an operator adds, and only those', () => {
    const extraServiceHosts = ['push.example.org', '*.autopush.example.net'];
    for (const ok of ['https://push.example.org/wpush/1', 'https://eu.autopush.example.net/wpush/1']) {
      expect(pushEndpointProblem(ok), ok).not.toBeNull();
      expect(pushEndpointProblem(ok, { extraServiceHosts }), ok).toBeNull();
    }
    for (const bad of ['https://autopush.example.net/x', 'https://other.example.org/x']) {
      expect(pushEndpointProblem(bad, { extraServiceHosts }), bad).not.toBeNull();
    }
  });

  it('refuses http, IP literals in every spelling, local names, credentials and odd ports', () => {
    for (const bad of [
      'http://fcm.googleapis.com/x',
      'https://127.0.0.1/x',
      'https://2130706433/x',
      'https://0x7f.1/x',
      'https://10.0.0.5/x',
      'https://169.254.169.254/latest',
      'https://[::1]/x',
      'https://[fe80::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://localhost/x',
      'https://push.localhost/x',
      'https://printer.local/x',
      'https://intranet/x',
      'https://svc.internal/x',
      'https://user:pw@fcm.googleapis.com/x',
      'https://fcm.googleapis.com:8443/x',
      'ftp://fcm.googleapis.com/x',
      'not a url',
      `https://fcm.googleapis.com/${'a'.repeat(2100)}`,
    ]) {
      expect(pushEndpointProblem(bad), bad).not.toBeNull();
    }
  });

  it('admits loopback http(s) only with the development switch', () => {
    const dev = { allowLoopbackForDev: true };
    for (const url of ['http://127.0.0.1:8123/push/1', 'https://localhost:9/x', 'http://[::1]:80/x']) {
      expect(pushEndpointProblem(url), url).not.toBeNull();
      expect(pushEndpointProblem(url, dev), url).toBeNull();
    }
    expect(pushEndpointProblem('http://10.0.0.1/x', dev)).not.toBeNull();
    expect(pushEndpointProblem('http://example.com/x', dev)).not.toBeNull();
    expect(pushEndpointProblem('file://127.0.0.1/x', dev)).not.toBeNull();
  });

  it('never throws on any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl()), fc.boolean(), (s, dev) => {
        const r = pushEndpointProblem(s, { allowLoopbackForDev: dev });
        expect(r === null || typeof r === 'string').toBe(true);
      }),
      { seed: 8030, numRuns: 500 },
    );
    expect(() => pushEndpointProblem(1 as unknown as string)).toThrow(TypeError);
  });
});
