import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBase64url } from './base64url.js';
import {
  decodeDeliveryListResponse,
  decodeEnrollResponse,
  decodeErrorBody,
  decodePushSubscription,
  decodeRegisterDeliveryRequest,
  decodeRelayInfo,
  errorBody,
  MAX_ERROR_MESSAGE_CHARS,
} from './http-bodies.js';
import { RelayCodecError } from './relay-codec-error.js';

const b64 = (n: number, fill = 7) => encodeBase64url(new Uint8Array(n).fill(fill));
const point = encodeBase64url(new Uint8Array([4, ...new Uint8Array(64).fill(9)]));
const subscription = { endpoint: 'https://push.example.com/abc', keys: { p256dh: point, auth: b64(16) } };

describe('relay HTTP bodies [RL-HTTP-*]', () => {
  it('decodes good bodies', () => {
    const ids = { burrowId: b64(16), burrowToken: b64(32) };
    expect(decodeEnrollResponse(ids)).toEqual(ids);
    expect(decodeRegisterDeliveryRequest({ tokenHash: b64(32) })).toEqual({ tokenHash: b64(32) });
    const list = { deliveries: [{ deliveryId: b64(16), registeredAt: 1, subscriptionUpdatedAt: null }] };
    expect(decodeDeliveryListResponse(list)).toEqual(list);
    expect(decodePushSubscription({ ...subscription, expirationTime: null, extra: 1 })).toEqual(subscription);
    expect(
      decodeRelayInfo({
        service: 'burrow-relay',
        protocolVersion: 1,
        vapidPublicKey: null,
        enrollmentGated: false,
        limits: { a: 1 },
      }),
    ).toMatchObject({ protocolVersion: 1 });
    expect(decodeErrorBody(errorBody('not_found', 'nope'))).toEqual({
      error: { code: 'not_found', message: 'nope' },
    });
  });

  it('rejects bad subscriptions [RL-HTTP-7]', () => {
    for (const bad of [
      { ...subscription, endpoint: 'ftp://push.example.com/' },
      { ...subscription, endpoint: 'push.example.com/abc' },
      { ...subscription, endpoint: `https://x.example/${'a'.repeat(2048)}` },
      { ...subscription, keys: { ...subscription.keys, p256dh: b64(65) } },
      { ...subscription, keys: { ...subscription.keys, p256dh: b64(33, 2) } },
      { ...subscription, keys: { ...subscription.keys, auth: b64(17) } },
      { endpoint: subscription.endpoint },
      null,
    ]) {
      expect(() => decodePushSubscription(bad)).toThrow(RelayCodecError);
    }
  });

  it("refuses a p256dh that is not base64url as 'bad_body', like every other bad member (found by fuzzing)", () => {
    for (const p256dh of ['!!!!', 'A', `${b64(65).slice(0, -1)}~`, '\ud800']) {
      const bad = { ...subscription, keys: { ...subscription.keys, p256dh } };
      expect(() => decodePushSubscription(bad)).toThrow(expect.objectContaining({ reason: 'bad_body' }));
    }
  });

  it('leaves the endpoint policy to the relay: any http(s) URL decodes [RL-HTTP-7, RL-HTTP-8]', () => {
    // The relay refuses http: (except loopback under its development switch) in push-subscription-check.ts.
    const local = { ...subscription, endpoint: 'http://127.0.0.1:8080/push/x' };
    expect(decodePushSubscription(local).endpoint).toBe(local.endpoint);
  });

  it('rejects unknown error codes and bounds messages', () => {
    expect(() => decodeErrorBody({ error: { code: 'nope', message: '' } })).toThrow(RelayCodecError);
    expect(errorBody('internal', 'x'.repeat(10_000)).error.message.length).toBe(MAX_ERROR_MESSAGE_CHARS);
    expect(() => errorBody('nope' as 'internal', '')).toThrow(TypeError);
    expect(() => decodeEnrollResponse({ burrowId: b64(16), burrowToken: b64(32), more: 1 })).toThrow(
      RelayCodecError,
    );
  });

  it('random JSON throws only RelayCodecError (property)', () => {
    const decoders = [
      decodeEnrollResponse,
      decodeRegisterDeliveryRequest,
      decodeDeliveryListResponse,
      decodePushSubscription,
      decodeRelayInfo,
      decodeErrorBody,
    ];
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (json) => {
        for (const decode of decoders) {
          try {
            decode(json);
          } catch (e) {
            expect(e).toBeInstanceOf(RelayCodecError);
          }
        }
      }),
      { seed: 3, numRuns: 300 },
    );
  });
});
