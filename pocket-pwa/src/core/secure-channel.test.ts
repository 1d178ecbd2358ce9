/**
 * The phone's SecureChannel against a hostile relay (issue 8; DESIGN §4.2): the real initiator handshake
 * (`startHandshake`) against a Burrow-side responder, then Burrow → phone messages altered one way each — a
 * flipped bit, dropped, duplicated, swapped or replayed message. The phone hands on exactly the frames before
 * the first altered message, then refuses everything, the genuine next message included.
 */
import {
  burrowPrologue,
  decodeHandshakeTimestamp,
  generateKeyPair,
  NoiseError,
  randomBytes,
  responderIKpsk2,
} from '@burrow/crypto';
import { decodeBase64url, Fragmenter, PROTOCOL_VERSION } from '@burrow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SecureChannel, startHandshake } from './secure-channel.js';

const BURROW_ID = 'AAECAwQFBgcICQoLDA0ODw';

/** The phone's channel, and the Burrow's sending half (a Fragmenter + its transport). */
function connected(): { phone: SecureChannel; burrowSeal: (frame: Uint8Array) => Uint8Array[] } {
  const burrow = generateKeyPair();
  const client = generateKeyPair();
  const psk = randomBytes(32);
  const hs = startHandshake({
    mode: 'connect',
    burrowId: BURROW_ID,
    burrowPublicKey: burrow.publicKey,
    clientPrivateKey: client.privateKey,
    psk,
    timestamp: 1_800_000_000_000,
  });
  const responder = responderIKpsk2({
    prologue: burrowPrologue({
      mode: 'connect',
      protocolVersion: PROTOCOL_VERSION,
      burrowId: decodeBase64url(BURROW_ID),
    }),
    staticKeyPair: burrow,
    psk,
  });
  expect(decodeHandshakeTimestamp(responder.readMessage(hs.message1))).toBe(1_800_000_000_000);
  const message2 = responder.writeMessage();
  const transport = responder.split();
  const fragmenter = new Fragmenter();
  return {
    phone: hs.finish(message2),
    burrowSeal: (frame) => fragmenter.split(frame).map((p) => transport.encrypt(p)),
  };
}

type Tamper = { kind: 'flip' | 'drop' | 'duplicate' | 'swap' | 'replay'; at: number; other: number };

function alter(cts: readonly Uint8Array[], t: Tamper): { wire: Uint8Array[]; firstBad: number } {
  const wire = cts.map((c) => Uint8Array.from(c));
  const at = Math.min(t.at, cts.length - 1);
  switch (t.kind) {
    case 'flip':
      wire[at]![t.other % wire[at]!.length]! ^= 0x04;
      return { wire, firstBad: at };
    case 'drop':
      wire.splice(at, 1);
      return { wire, firstBad: at };
    case 'swap':
      if (at + 1 >= wire.length) return alter(cts, { ...t, kind: 'drop' });
      [wire[at], wire[at + 1]] = [wire[at + 1]!, wire[at]!];
      return { wire, firstBad: at };
    case 'duplicate':
    case 'replay':
      wire.splice(at + 1, 0, Uint8Array.from(cts[t.kind === 'duplicate' ? at : Math.min(t.other, at)]!));
      return { wire, firstBad: at + 1 };
  }
}

/** What a latched channel throws for every later call (protocol SPEC R-CHAN-1). */
const REFUSED = expect.objectContaining({ name: 'ProtocolError', rule: 'R-CHAN-1', fatal: true });

describe('the phone SecureChannel under a tampering relay', () => {
  it('delivers only the untouched prefix, then refuses everything (seeded property)', () => {
    let runs = 0;
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 200 }), { minLength: 1, maxLength: 8 }),
        fc.record({
          kind: fc.constantFrom(
            'flip' as const,
            'drop' as const,
            'duplicate' as const,
            'swap' as const,
            'replay' as const,
          ),
          at: fc.nat(8),
          other: fc.nat(),
        }),
        (raw, t) => {
          runs++;
          const { phone, burrowSeal } = connected();
          const frames = raw.map((f) => {
            const c = Uint8Array.from(f);
            c[0] = 1; // not FRAGMENT: one frame, one Noise message
            return c;
          });
          const cts = frames.flatMap((f) => burrowSeal(f));
          const { wire, firstBad } = alter(cts, t);
          const delivered: Uint8Array[] = [];
          let refusedAt = -1;
          for (let i = 0; i < wire.length && refusedAt < 0; i++) {
            try {
              const f = phone.open(wire[i]!);
              if (f) delivered.push(f);
            } catch (error) {
              expect(error).toBeInstanceOf(NoiseError);
              refusedAt = i;
            }
          }
          expect(delivered).toEqual(frames.slice(0, firstBad));
          expect(refusedAt).toBe(firstBad < wire.length ? firstBad : -1);
          expect(phone.failed).toBe(firstBad < wire.length);
          if (phone.failed)
            expect(() => phone.open(cts[Math.min(firstBad, cts.length - 1)]!)).toThrow(REFUSED);
        },
      ),
      { seed: 0x9ec4e7, numRuns: 40 },
    );
    console.log(`[figure] pocket SecureChannel tamper property: runs=${runs}`);
  });

  it('after a refused message the genuine one and any send are refused too', () => {
    const { phone, burrowSeal } = connected();
    const [ct] = burrowSeal(new Uint8Array([1, 9]));
    const bad = Uint8Array.from(ct!);
    bad[bad.length - 1]! ^= 0x01;
    expect(() => phone.open(bad)).toThrow(NoiseError);
    expect(() => phone.open(ct!)).toThrow(REFUSED);
    expect(() => phone.seal(new Uint8Array([1]))).toThrow(REFUSED);
  });

  it('an altered message 2 fails the handshake with NoiseError', () => {
    const burrow = generateKeyPair();
    const psk = randomBytes(32);
    const params = {
      mode: 'connect' as const,
      burrowId: BURROW_ID,
      burrowPublicKey: burrow.publicKey,
      clientPrivateKey: generateKeyPair().privateKey,
      psk,
      timestamp: 1,
    };
    const hs = startHandshake(params);
    const responder = responderIKpsk2({
      prologue: burrowPrologue({
        mode: 'connect',
        protocolVersion: PROTOCOL_VERSION,
        burrowId: decodeBase64url(BURROW_ID),
      }),
      staticKeyPair: burrow,
      psk,
    });
    responder.readMessage(hs.message1);
    const message2 = responder.writeMessage();
    message2[40]! ^= 0x01;
    expect(() => hs.finish(message2)).toThrow(NoiseError);
  });
});
