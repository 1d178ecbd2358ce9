import { createECDH } from 'node:crypto';
import { encodeBase64url } from '@burrow/protocol';
import { describe, expect, it } from 'vitest';
import { isP256Point, subscriptionProblem } from './push-subscription-check.js';

const keys = () => ({
  p256dh: encodeBase64url(createECDH('prime256v1').generateKeys()),
  auth: encodeBase64url(new Uint8Array(16).fill(7)),
});

describe('push subscription checks [RL-HTTP-8, RL-PUSH-6]', () => {
  it('accepts real push services and refuses literal, local and credentialed endpoints', async () => {
    for (const ok of [
      'https://fcm.googleapis.com/fcm/send/abc',
      'https://updates.push.services.mozilla.com/wpush/v2/x',
      'https://web.push.apple.com/QQ',
    ]) {
      expect(await subscriptionProblem({ endpoint: ok, keys: keys() }), ok).toBeNull();
    }
    for (const bad of [
      'not a url',
      'http://fcm.googleapis.com/x',
      'https://fcm.googleapis.com:8443/x',
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
      expect(await subscriptionProblem({ endpoint: bad, keys: keys() }), bad).not.toBeNull();
    }
  });

  it('admits loopback http endpoints only under the development switch', async () => {
    const local = { endpoint: 'http://127.0.0.1:8123/push/abc', keys: keys() };
    expect(await subscriptionProblem(local)).toBe('endpoint must be https');
    expect(await subscriptionProblem(local, { allowLoopbackForDev: false })).not.toBeNull();
    expect(await subscriptionProblem(local, { allowLoopbackForDev: true })).toBeNull();
    // The switch opens loopback only, never the private network.
    const lan = { endpoint: 'http://10.0.0.1:8123/push/abc', keys: keys() };
    expect(await subscriptionProblem(lan, { allowLoopbackForDev: true })).not.toBeNull();
  });

  it('knows a P-256 point from 65 bytes that are not one', async () => {
    expect(await isP256Point(encodeBase64url(createECDH('prime256v1').generateKeys()))).toBe(true);
    expect(await isP256Point(encodeBase64url(new Uint8Array([4, ...new Uint8Array(64).fill(0xff)])))).toBe(
      false,
    );
    expect(await isP256Point('!!')).toBe(false);
    const offCurve = { endpoint: 'https://web.push.apple.com/QQ', keys: { ...keys(), p256dh: 'AAAA' } };
    expect(await subscriptionProblem(offCurve)).toBe('keys.p256dh is not a P-256 point');
  });
});
