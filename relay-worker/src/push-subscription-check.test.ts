import { createECDH } from 'node:crypto';
import { encodeBase64url } from '@burrow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isP256Point, pushEndpointProblem } from './push-subscription-check.js';

describe('push subscription checks [RL-HTTP-8]', () => {
  it('accepts real push services and refuses literal, local and credentialed endpoints', () => {
    for (const ok of [
      'https://fcm.googleapis.com/fcm/send/abc',
      'https://updates.push.services.mozilla.com/wpush/v2/x',
      'https://web.push.apple.com/QQ',
    ]) {
      expect(pushEndpointProblem(ok), ok).toBeNull();
    }
    for (const bad of [
      'not a url',
      'http://fcm.googleapis.com/x',
      'https://127.0.0.1/x',
      'https://10.0.0.1:8443/x',
      'https://[::1]/x',
      'https://0x7f000001/x',
      'https://2130706433/x',
      'https://localhost/x',
      'https://printer.local/x',
      'https://db.internal/x',
      'https://nas.home.arpa/x',
      'https://intranet/x',
      'https://u:p@push.example.com/x',
    ]) {
      expect(pushEndpointProblem(bad), bad).not.toBeNull();
    }
  });

  it('never throws on arbitrary strings (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl()), (s) => {
        const problem = pushEndpointProblem(s);
        expect(problem === null || typeof problem === 'string').toBe(true);
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it('knows a P-256 point from 65 bytes that are not one', async () => {
    expect(await isP256Point(encodeBase64url(createECDH('prime256v1').generateKeys()))).toBe(true);
    expect(await isP256Point(encodeBase64url(new Uint8Array([4, ...new Uint8Array(64).fill(0xff)])))).toBe(
      false,
    );
    expect(await isP256Point('!!')).toBe(false);
  });
});
