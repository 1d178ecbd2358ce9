import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBase64url } from '../relay/base64url.js';
import { RelayCodecError } from '../relay/relay-codec-error.js';
import { decodePushSendRequest, decodePushSendResponse, MAX_PUSH_TARGETS } from './push-send.js';

const id = (n: number) => encodeBase64url(new Uint8Array(16).fill(n));
const target = (n: number) => ({ deliveryId: id(n), envelope: encodeBase64url(new Uint8Array(300).fill(n)) });
const request = (targets: unknown[]) => ({
  targets,
  sessionTopic: 'c2Vzc2lvbi0x',
  ttlSeconds: 60,
  urgency: 'high',
});
const FC = { seed: 8291, numRuns: 300 } as const;

function throwsCodecOnly(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RelayCodecError);
  }
}

describe('push send request', () => {
  it('accepts 1..MAX_PUSH_TARGETS distinct targets', () => {
    const targets = Array.from({ length: MAX_PUSH_TARGETS }, (_, i) => target(i));
    expect(decodePushSendRequest(request(targets)).targets).toHaveLength(MAX_PUSH_TARGETS);
  });

  it('refuses the whole send over MAX_PUSH_TARGETS, empty, or naming a delivery twice', () => {
    const over = Array.from({ length: MAX_PUSH_TARGETS + 1 }, (_, i) => target(i));
    expect(() => decodePushSendRequest(request(over))).toThrow(RelayCodecError);
    expect(() => decodePushSendRequest(request([]))).toThrow(RelayCodecError);
    expect(() => decodePushSendRequest(request([target(1), target(1)]))).toThrow(/once/);
  });

  it('bounds topic, ttl, urgency and envelope', () => {
    const ok = request([target(1)]);
    expect(() => decodePushSendRequest({ ...ok, sessionTopic: 'x'.repeat(33) })).toThrow(RelayCodecError);
    expect(() => decodePushSendRequest({ ...ok, sessionTopic: 'a=b' })).toThrow(RelayCodecError);
    expect(() => decodePushSendRequest({ ...ok, ttlSeconds: -1 })).toThrow(RelayCodecError);
    expect(() => decodePushSendRequest({ ...ok, ttlSeconds: 1.5 })).toThrow(RelayCodecError);
    expect(() => decodePushSendRequest({ ...ok, urgency: 'urgent' })).toThrow(RelayCodecError);
    const big = { deliveryId: id(1), envelope: encodeBase64url(new Uint8Array(3994)) };
    expect(() => decodePushSendRequest(request([big]))).toThrow(RelayCodecError);
    expect(() => decodePushSendRequest(request([{ deliveryId: id(1), envelope: '' }]))).toThrow(
      RelayCodecError,
    );
    expect(() => decodePushSendRequest({ ...ok, extra: 1 })).toThrow(RelayCodecError);
  });

  it('random and mutated input throws nothing but RelayCodecError', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => throwsCodecOnly(() => decodePushSendRequest(json))),
      FC,
    );
    const good = request([target(1), target(2)]);
    fc.assert(
      fc.property(
        fc.constantFrom('targets', 'sessionTopic', 'ttlSeconds', 'urgency'),
        fc.jsonValue(),
        (k, val) => throwsCodecOnly(() => decodePushSendRequest({ ...good, [k]: val })),
      ),
      FC,
    );
  });
});

describe('push send response', () => {
  it('decodes each outcome, and nothing about the push service beyond it (issue 16.1)', () => {
    const results = [
      { deliveryId: id(1), outcome: 'accepted' },
      { deliveryId: id(2), outcome: 'no_subscription' },
      { deliveryId: id(3), outcome: 'gone' },
      { deliveryId: id(4), outcome: 'failed' },
    ];
    expect(decodePushSendResponse({ results }).results).toEqual(results);
    // A status code is not part of the answer: a relay that sends one is not speaking this protocol.
    for (const status of [500, null])
      expect(() =>
        decodePushSendResponse({ results: [{ deliveryId: id(4), outcome: 'failed', status }] }),
      ).toThrow(RelayCodecError);
    expect(() => decodePushSendResponse({ results: [{ deliveryId: id(1), outcome: 'delivered' }] })).toThrow(
      RelayCodecError,
    );
    expect(() => decodePushSendResponse({ results: [{ deliveryId: id(4), outcome: 'lost' }] })).toThrow(
      RelayCodecError,
    );
  });

  it('random input throws nothing but RelayCodecError', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => throwsCodecOnly(() => decodePushSendResponse(json))),
      FC,
    );
  });
});
