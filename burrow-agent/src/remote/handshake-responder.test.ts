import {
  burrowPrologue,
  encodeHandshakeTimestamp,
  generateKeyPair,
  initiatorIKpsk2,
  type KeyPair,
  randomBytes,
} from '@burrow/crypto';
import { CloseCode, decodeBase64url, PROTOCOL_VERSION } from '@burrow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeviceRecord } from '../devices/device-registry.js';
import type { PairingOffer } from '../pairing/pairing-offer.js';
import {
  CONNECT_MESSAGE1_BYTES,
  PAIR_MESSAGE1_BYTES,
  type ResponderContext,
  respondToMessage1,
} from './handshake-responder.js';

const burrowId = 'AAECAwQFBgcICQoLDA0ODw';
const burrow = generateKeyPair();
const phone = generateKeyPair();
const device: DeviceRecord = {
  deviceId: 'dev0000000000000',
  label: 'p',
  clientPublicKey: phone.publicKey,
  psk: randomBytes(32),
  deliveryId: 'AAAAAAAAAAAAAAAAAAAAAA',
  pairedAt: 0,
};
const offer: PairingOffer = { secret: randomBytes(32), createdAt: 0, expiresAt: 1e15, label: null };
const NOW = 1_800_000_000_000;

function ctx(overrides: Partial<ResponderContext> = {}): ResponderContext {
  return {
    burrowId,
    staticKeyPair: burrow,
    now: NOW,
    findDevice: (k) => (Buffer.from(k).equals(Buffer.from(phone.publicKey)) ? device : undefined),
    lastHandshakeAt: () => NOW - 1000,
    openOffer: offer,
    ...overrides,
  };
}

function message1(mode: 'pair' | 'connect', keys: KeyPair, psk: Uint8Array, timestamp = NOW) {
  const hs = initiatorIKpsk2({
    prologue: burrowPrologue({
      mode,
      protocolVersion: PROTOCOL_VERSION,
      burrowId: decodeBase64url(burrowId),
    }),
    staticKeyPair: keys,
    remoteStaticKey: burrow.publicKey,
    psk,
  });
  return {
    hs,
    m1: hs.writeMessage(mode === 'connect' ? encodeHandshakeTimestamp(timestamp) : new Uint8Array(0)),
  };
}

describe('respondToMessage1', () => {
  it('accepts a known device with a fresh timestamp, and the transports agree', () => {
    const { hs, m1 } = message1('connect', phone, device.psk);
    const out = respondToMessage1(ctx(), m1);
    expect(out.kind).toBe('connect');
    if (out.kind !== 'connect') return;
    hs.readMessage(out.message2);
    const phoneT = hs.split();
    expect(
      new TextDecoder().decode(out.transport.decrypt(phoneT.encrypt(new TextEncoder().encode('hi')))),
    ).toBe('hi');
    expect(out.timestamp).toBe(NOW);
  });

  it('refuses an unknown key, a replayed or future timestamp', () => {
    const stranger = generateKeyPair();
    expect(respondToMessage1(ctx(), message1('connect', stranger, device.psk).m1)).toMatchObject({
      code: CloseCode.UNKNOWN_DEVICE,
    });
    expect(respondToMessage1(ctx(), message1('connect', phone, device.psk, NOW - 1000).m1)).toMatchObject({
      code: CloseCode.STALE_HANDSHAKE,
    });
    expect(
      respondToMessage1(ctx(), message1('connect', phone, device.psk, NOW + 2 * 3600_000).m1),
    ).toMatchObject({
      code: CloseCode.STALE_HANDSHAKE,
    });
  });

  it('a wrong device psk passes message 1 but the phone cannot read message 2 (key confirmation fails)', () => {
    const { hs, m1 } = message1('connect', phone, randomBytes(32));
    const out = respondToMessage1(ctx(), m1);
    expect(out.kind).toBe('connect');
    if (out.kind === 'connect') expect(() => hs.readMessage(out.message2)).toThrow();
  });

  it('recognises pair mode by trial and hands back the phone key', () => {
    const { m1 } = message1('pair', phone, offer.secret);
    const out = respondToMessage1(ctx({ findDevice: () => undefined }), m1);
    expect(out.kind).toBe('pair');
    if (out.kind === 'pair') expect(out.clientPublicKey).toEqual(phone.publicKey);
  });

  it('says the link is unavailable when no offer is open', () => {
    const { m1 } = message1('pair', phone, offer.secret);
    expect(respondToMessage1(ctx({ openOffer: null }), m1)).toMatchObject({
      code: CloseCode.PAIRING_UNAVAILABLE,
    });
  });

  it('a connect message 1 altered on the way is a failed handshake, never "the pairing link was used"', () => {
    const { m1 } = message1('connect', phone, device.psk);
    expect(m1.length).toBe(CONNECT_MESSAGE1_BYTES);
    expect(message1('pair', phone, offer.secret).m1.length).toBe(PAIR_MESSAGE1_BYTES);
    for (const at of [0, 33, 70, m1.length - 1]) {
      const altered = Uint8Array.from(m1);
      altered[at]! ^= 0x01;
      for (const openOffer of [null, offer]) {
        expect(respondToMessage1(ctx({ openOffer }), altered)).toMatchObject({
          kind: 'reject',
          code: CloseCode.HANDSHAKE_FAILED,
        });
      }
    }
    // A pair-sized message 1 that fails while no offer is open still reads as a used or expired link.
    const pairAltered = message1('pair', phone, offer.secret).m1;
    pairAltered[50]! ^= 0x01;
    expect(respondToMessage1(ctx({ openOffer: null }), pairAltered)).toMatchObject({
      code: CloseCode.PAIRING_UNAVAILABLE,
    });
    expect(respondToMessage1(ctx(), pairAltered)).toMatchObject({ code: CloseCode.HANDSHAKE_FAILED });
  });

  it('never throws on random or mutated message 1', () => {
    const { m1 } = message1('connect', phone, device.psk);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.tuple(fc.nat(m1.length - 1), fc.integer({ min: 1, max: 255 })).map(([i, x]) => {
            const c = Uint8Array.from(m1);
            c[i] = c[i]! ^ x;
            return c;
          }),
        ),
        (bytes) => {
          const out = respondToMessage1(ctx(), bytes);
          expect(out.kind).toBe('reject');
        },
      ),
      { seed: 42, numRuns: 200 },
    );
  });
});
