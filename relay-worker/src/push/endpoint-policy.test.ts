import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pushEndpointProblem } from './endpoint-policy.js';

describe('push endpoint policy', () => {
  it('allows https on public DNS names', () => {
    for (const ok of [
      'https://fcm.googleapis.com/fcm/send/abc:def',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAA',
      'https://web.push.apple.com/QGx',
    ]) {
      expect(pushEndpointProblem(ok), ok).toBeNull();
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
