import { generateKeyPair, type KeyPair, sealPushEnvelope } from '@burrow/crypto';
import {
  decodeBase64url,
  encodeBase64url,
  encodePushMessage,
  encodePushNotification,
} from '@burrow/protocol';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { PairingRecord } from '../core/pairing-storage.js';
import { IdbPushStore } from '../store/push-store.js';
import {
  GENERIC_TAG,
  GENERIC_TITLE,
  type NotificationSpec,
  notificationForPush,
  type PushOpenDeps,
  showPushNotification,
} from './push-notification.js';

const FC = { seed: 8030, numRuns: 150 } as const;
const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));

interface Side {
  readonly burrow: KeyPair;
  readonly phone: KeyPair;
  readonly psk: Uint8Array;
  readonly burrowId: Uint8Array;
  readonly pairing: PairingRecord;
}

function pairedSide(deliveryId = 'dlv-1'): Side {
  const burrow = generateKeyPair();
  const phone = generateKeyPair();
  const psk = random(32);
  const burrowId = random(16);
  return {
    burrow,
    phone,
    psk,
    burrowId,
    pairing: {
      burrowId: encodeBase64url(burrowId),
      burrowName: 'desk',
      relayUrl: 'https://relay.example',
      burrowPublicKey: encodeBase64url(burrow.publicKey),
      clientPrivateKey: encodeBase64url(phone.privateKey),
      clientPublicKey: encodeBase64url(phone.publicKey),
      psk: encodeBase64url(psk),
      deviceId: 'dev-1',
      deliveryId,
      deliveryToken: encodeBase64url(random(32)),
      pairedAt: 1,
      lastHandshakeAt: 0,
    },
  };
}

/** The push message a phone receives: the sealed envelope's base64url text (RL-PUSH-TEXT). */
function seal(side: Side, seq: number, fields: { sessionId?: string; label?: string; body?: string } = {}) {
  return encodePushMessage(sealEnvelope(side, seq, fields));
}

function sealEnvelope(
  side: Side,
  seq: number,
  fields: { sessionId?: string; label?: string; body?: string } = {},
) {
  return sealPushEnvelope({
    burrowId: side.burrowId,
    deliveryId: side.pairing.deliveryId,
    senderStaticKeyPair: side.burrow,
    recipientStaticKey: side.phone.publicKey,
    psk: side.psk,
    seq,
    payload: encodePushNotification({
      v: 1,
      sessionId: fields.sessionId ?? 's1',
      label: fields.label ?? 'build',
      body: fields.body ?? 'Needs your attention',
      ts: 1_700_000_000_000,
    }),
  });
}

let dbCounter = 0;
let side: Side;
let seq: IdbPushStore;
let deps: PushOpenDeps;

beforeEach(async () => {
  side = pairedSide();
  seq = await IdbPushStore.open(`push-notification-test-${++dbCounter}`);
  deps = { listPairings: async () => [pairedSide('other').pairing, side.pairing], seq };
});

const expectGeneric = (spec: NotificationSpec) => {
  expect(spec.title).toBe(GENERIC_TITLE);
  expect(spec.options.tag).toBe(GENERIC_TAG);
  expect(spec.options.data.path).toBe('/');
  expect(spec.failure).not.toBeNull();
};

describe('notificationForPush', () => {
  it('opens an envelope with the pairing its header names: title = label, tag = session, click path', async () => {
    const spec = await notificationForPush(seal(side, 1, { sessionId: 'abc_1', label: 'deploy' }), deps);
    expect(spec.failure).toBeNull();
    expect(spec.title).toBe('deploy');
    expect(spec.options.body).toBe('Needs your attention');
    expect(spec.options.tag).toBe('abc_1');
    expect(spec.options.renotify).toBe(true);
    expect(spec.options.timestamp).toBe(1_700_000_000_000);
    expect(spec.options.data.path).toBe(`/b/${side.pairing.burrowId}/s/abc_1`);
    expect(await seq.lastSeq(side.pairing.burrowId)).toBe(1);
  });

  it('re-bounds the text: bidi and control characters the Burrow let through never reach the screen', async () => {
    const spec = await notificationForPush(seal(side, 1, { label: '\u202Eevil\u0007 \u200Bname' }), deps);
    expect(spec.title).toBe('evil name');
  });

  it('a label that bounds to nothing shows the fallback name', async () => {
    const spec = await notificationForPush(seal(side, 1, { label: '\u200B\u200B' }), deps);
    expect(spec.title).toBe('terminal');
  });

  it('refuses a sequence number it has seen, also after the worker restarts (seq in IndexedDB)', async () => {
    const first = seal(side, 5);
    expect((await notificationForPush(first, deps)).failure).toBeNull();
    expectGeneric(await notificationForPush(first, deps));
    expectGeneric(await notificationForPush(seal(side, 4), deps));
    seq.close();
    const reopened = await IdbPushStore.open(`push-notification-test-${dbCounter}`);
    const again = { ...deps, seq: reopened };
    expectGeneric(await notificationForPush(first, again));
    expect((await notificationForPush(seal(side, 6), again)).failure).toBeNull();
    reopened.close();
  });

  it('two copies of one push racing show one ring and one generic', async () => {
    const env = seal(side, 9);
    const both = await Promise.all([notificationForPush(env, deps), notificationForPush(env, deps)]);
    expect(both.filter((s) => s.failure === null)).toHaveLength(1);
  });

  it('keeps sequence numbers per pairing', async () => {
    const other = pairedSide('dlv-2');
    const two = { ...deps, listPairings: async () => [side.pairing, other.pairing] };
    expect((await notificationForPush(seal(side, 3), two)).failure).toBeNull();
    expect((await notificationForPush(seal(other, 1), two)).failure).toBeNull();
  });

  it('is generic for no data, an unknown pairing, a tampered or forged envelope, and a broken store', async () => {
    expectGeneric(await notificationForPush(null, deps));
    expectGeneric(await notificationForPush(new Uint8Array(0), deps));
    expectGeneric(await notificationForPush(seal(pairedSide(), 1), deps));
    const tampered = sealEnvelope(side, 1);
    tampered[tampered.length - 1]! ^= 1;
    expectGeneric(await notificationForPush(encodePushMessage(tampered), deps));
    // The raw envelope bytes (not its text) and text mangled the way a UTF-8 re-encoding would are refused.
    expectGeneric(await notificationForPush(sealEnvelope(side, 1), deps));
    expectGeneric(
      await notificationForPush(
        new TextEncoder().encode(String.fromCharCode(...sealEnvelope(side, 1))),
        deps,
      ),
    );
    // Sealed by another Burrow key for this phone's pairing address: wrong sender.
    const forger = { ...side, burrow: generateKeyPair() };
    expectGeneric(await notificationForPush(seal(forger, 1), deps));
    const broken = { ...deps, listPairings: () => Promise.reject(new Error('IndexedDB is gone')) };
    expectGeneric(await notificationForPush(seal(side, 1), broken));
    expect(await seq.lastSeq(side.pairing.burrowId)).toBe(0);
  });

  it('never uses a pairing whose keys are not the ones the Burrow sealed for', async () => {
    const swapped = { ...side.pairing, psk: encodeBase64url(random(32)) };
    expectGeneric(await notificationForPush(seal(side, 1), { ...deps, listPairings: async () => [swapped] }));
    expect(decodeBase64url(swapped.psk)).toHaveLength(32);
  });
});

describe('showPushNotification: exactly one notification for any push data', () => {
  const countShows = async (data: Uint8Array | null) => {
    const shown: string[] = [];
    const spec = await showPushNotification(data, deps, async (title) => {
      shown.push(title);
    });
    expect(shown).toEqual([spec.title]);
    return spec;
  };

  it('a stalled pairing store (hung IndexedDB) still shows one generic notification by the deadline', async () => {
    const shown: string[] = [];
    const stalled = { ...deps, listPairings: () => new Promise<never>(() => {}) };
    const spec = await showPushNotification(
      seal(side, 1),
      stalled,
      async (title) => {
        shown.push(title);
      },
      50,
    );
    expectGeneric(spec);
    expect(shown).toEqual([spec.title]);
  });

  it('random bytes: one generic notification, never a throw', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4200 }), async (bytes) => {
        expectGeneric(await countShows(bytes));
      }),
      FC,
    );
  });

  it('mutated real envelopes: one notification; a changed envelope is never shown as opened', async () => {
    let nextSeq = 1;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        fc.option(fc.nat({ max: 4000 }), { nil: undefined }),
        async (flips, cut) => {
          const envelope = seal(side, nextSeq++);
          const mutated = cut === undefined ? envelope.slice() : envelope.slice(0, cut % envelope.length);
          for (const [at, mask] of flips) if (mutated.length > 0) mutated[at % mutated.length]! ^= mask;
          const spec = await countShows(mutated);
          expect(spec.failure).not.toBeNull();
        },
      ),
      FC,
    );
  });

  it('falls back to the generic notification when the browser refuses the real one', async () => {
    const shown: string[] = [];
    const spec = await showPushNotification(seal(side, 1), deps, async (title) => {
      if (title !== GENERIC_TITLE) throw new TypeError('bad options');
      shown.push(title);
    });
    expect(shown).toEqual([GENERIC_TITLE]);
    expect(spec.failure).toMatch(/showNotification refused/);
  });
});
