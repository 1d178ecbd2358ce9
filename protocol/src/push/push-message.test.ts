import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBase64url } from '../relay/base64url.js';
import { RelayCodecError } from '../relay/relay-codec-error.js';
import { decodePushMessage, encodePushMessage, pushMessageFromText } from './push-message.js';
import { MAX_PUSH_ENVELOPE_BYTES, MAX_PUSH_ENVELOPE_CHARS } from './push-send.js';

const reasonOf = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    if (error instanceof RelayCodecError) return error.reason;
    throw error;
  }
  return 'accepted';
};

describe('push message = the envelope as base64url text (RL-PUSH-TEXT)', () => {
  it('round-trips any envelope up to MAX_PUSH_ENVELOPE_BYTES as ASCII only', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: MAX_PUSH_ENVELOPE_BYTES }), (envelope) => {
        const message = encodePushMessage(envelope);
        expect(message.every((b) => b < 0x80)).toBe(true);
        expect(decodePushMessage(message)).toEqual(envelope);
        expect(pushMessageFromText(encodeBase64url(envelope))).toEqual(message);
      }),
      { seed: 8291, numRuns: 200 },
    );
  });

  it('survives a UTF-8 re-encoding unchanged (what DevTools deliverPushMessage does to its data string)', () => {
    const message = encodePushMessage(new Uint8Array([0, 0x80, 0xff, 0xfe, 7]));
    const viaString = new TextEncoder().encode(String.fromCharCode(...message));
    expect(viaString).toEqual(message);
  });

  it('refuses empty, oversize, non-ASCII and non-canonical input with bad_push_message', () => {
    expect(reasonOf(() => decodePushMessage(new Uint8Array(0)))).toBe('bad_push_message');
    expect(reasonOf(() => decodePushMessage(new Uint8Array(MAX_PUSH_ENVELOPE_CHARS + 1).fill(65)))).toBe(
      'bad_push_message',
    );
    expect(reasonOf(() => decodePushMessage(new Uint8Array([0xc3, 0xa9])))).toBe('bad_push_message');
    expect(reasonOf(() => decodePushMessage(new TextEncoder().encode('AB=')))).toBe('bad_push_message');
    // "AB" and "AF" decode to the same byte; only the canonical form (zero low bits) is accepted.
    expect(reasonOf(() => decodePushMessage(new TextEncoder().encode('AF')))).toBe('bad_push_message');
    expect(reasonOf(() => pushMessageFromText(''))).toBe('bad_push_message');
    expect(() => encodePushMessage(new Uint8Array(MAX_PUSH_ENVELOPE_BYTES + 1))).toThrow(RangeError);
    expect(() => encodePushMessage(new Uint8Array(0))).toThrow(RangeError);
    expect(() => decodePushMessage('AAAA' as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('random and mutated bytes only ever throw RelayCodecError', () => {
    const valid = encodePushMessage(new Uint8Array(120).fill(9));
    const mutated = fc
      .tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 }))
      .map(([i, b]) => Uint8Array.from(valid, (x, j) => (j === i ? b : x)));
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 5000 }), mutated), (bytes) => {
        const reason = reasonOf(() => decodePushMessage(bytes));
        expect(['accepted', 'bad_push_message']).toContain(reason);
      }),
      { seed: 8188, numRuns: 500 },
    );
  });
});
