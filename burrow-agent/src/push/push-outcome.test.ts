import { hkdfSync } from 'node:crypto';
import { hmacHash } from '@burrow/crypto';
import {
  type BurrowMessage,
  decodeBurrowMessage,
  encodeBase64url,
  encodeBurrowMessage,
  PUSH_TARGET_OUTCOMES,
  type PushTargetResult,
} from '@burrow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyPushOutcome } from './push-outcome.js';
import { PUSH_BODIES, pushTopicFor, pushTopicKey } from './push-payload.js';

const id = (n: number) => encodeBase64url(new Uint8Array(16).fill(n));

describe('classifyPushOutcome', () => {
  it('agrees with the remote API push-test-result rules for any mix of results', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.constantFrom(...PUSH_TARGET_OUTCOMES), { nil: undefined }), { maxLength: 20 }),
        fc.boolean(),
        (outcomes, relayFailed) => {
          const ids = outcomes.map((_, i) => id(i));
          const results: PushTargetResult[] = [];
          for (const [i, o] of outcomes.entries()) {
            if (o === undefined) continue; // the relay left this target out
            results.push({ deliveryId: ids[i]!, outcome: o });
          }
          const summary = classifyPushOutcome(ids, relayFailed ? null : results);
          expect(
            summary.delivered + summary.gone.length + summary.noSubscription.length + summary.failed.length,
          ).toBe(ids.length);
          const message = {
            type: 'push-test-result',
            rid: 1,
            outcome: summary.outcome,
            targets: summary.targets,
            delivered: summary.delivered,
          };
          expect(decodeBurrowMessage(encodeBurrowMessage(message as BurrowMessage))).toEqual(message);
        },
      ),
      { seed: 2026, numRuns: 300 },
    );
  });

  it('names each case', () => {
    expect(classifyPushOutcome([], null).outcome).toBe('no_devices');
    expect(classifyPushOutcome([id(1)], null).outcome).toBe('zero_delivered');
    expect(classifyPushOutcome([id(1)], [{ deliveryId: id(1), outcome: 'no_subscription' }]).outcome).toBe(
      'no_subscriptions',
    );
    expect(
      classifyPushOutcome(
        [id(1), id(2)],
        [
          { deliveryId: id(1), outcome: 'accepted' },
          { deliveryId: id(2), outcome: 'gone' },
        ],
      ),
    ).toMatchObject({ outcome: 'partial', delivered: 1, gone: [id(2)] });
  });
});

describe('push payload', () => {
  it('has a fixed body per reason', () => {
    expect(Object.keys(PUSH_BODIES).sort()).toEqual(['exit', 'report', 'test', 'watching']);
  });

  it('topic: 32 base64url characters, stable per session, distinct across sessions and Burrows', () => {
    const key = new Uint8Array(32).fill(7);
    const t = pushTopicFor(key, 'abc');
    expect(t).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(pushTopicFor(key, 'abc')).toBe(t);
    expect(pushTopicFor(key, 'abd')).not.toBe(t);
    expect(pushTopicFor(new Uint8Array(32).fill(8), 'abc')).not.toBe(t);
    expect(t).not.toContain('abc');
  });

  it('topic: keyed by an HKDF-SHA256 key of the static key, never by the X25519 private key itself (24.8)', () => {
    const key = new Uint8Array(32).fill(7);
    const data = new Uint8Array([
      ...new TextEncoder().encode('burrow push topic\0'),
      ...new TextEncoder().encode('abc'),
    ]);
    // RFC 5869 with node's own implementation: the Topic key, then the Topic.
    const topicKey = new Uint8Array(
      hkdfSync('sha256', key, new Uint8Array(0), 'burrow push topic key v1', 32),
    );
    expect(pushTopicKey(key)).toEqual(topicKey);
    expect(pushTopicFor(key, 'abc')).toBe(encodeBase64url(hmacHash(topicKey, data).slice(0, 24)));
    expect(pushTopicFor(key, 'abc')).not.toBe(encodeBase64url(hmacHash(key, data).slice(0, 24)));
  });
});
