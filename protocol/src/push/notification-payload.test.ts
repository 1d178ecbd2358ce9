import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RelayCodecError } from '../relay/relay-codec-error.js';
import {
  decodePushNotification,
  encodePushNotification,
  MAX_PUSH_NOTIFICATION_TEXT_CODE_POINTS,
} from './notification-payload.js';

const FC = { seed: 4404, numRuns: 300 } as const;

function throwsCodecOnly(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RelayCodecError);
  }
}

describe('push notification payload', () => {
  const note = { v: 1, sessionId: 's1', label: 'build', body: 'Needs you', ts: 1_700_000_000_000 } as const;

  it('round-trips', () => {
    expect(decodePushNotification(encodePushNotification(note))).toEqual(note);
  });

  it('bounds label and body in code points, never empty', () => {
    const max = '😀'.repeat(MAX_PUSH_NOTIFICATION_TEXT_CODE_POINTS);
    expect(decodePushNotification(encodePushNotification({ ...note, label: max })).label).toBe(max);
    expect(() => encodePushNotification({ ...note, label: `${max}x` })).toThrow(RelayCodecError);
    expect(() => encodePushNotification({ ...note, body: '' })).toThrow(RelayCodecError);
    expect(() => encodePushNotification({ ...note, sessionId: 'bad id' })).toThrow(RelayCodecError);
    expect(() => decodePushNotification(new TextEncoder().encode('{"v":2}'))).toThrow(RelayCodecError);
    expect(() => decodePushNotification(Uint8Array.of(0xff))).toThrow(RelayCodecError);
  });

  it('random and mutated bytes throw nothing but RelayCodecError', () => {
    const good = encodePushNotification(note);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (bytes) =>
        throwsCodecOnly(() => decodePushNotification(bytes)),
      ),
      FC,
    );
    fc.assert(
      fc.property(fc.nat(good.length - 1), fc.integer({ min: 0, max: 255 }), (at, byte) => {
        const copy = good.slice();
        copy[at] = byte;
        throwsCodecOnly(() => decodePushNotification(copy));
      }),
      FC,
    );
  });
});
