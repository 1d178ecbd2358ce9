/**
 * The Burrow's SecureChannel against a hostile relay (issue 8; DESIGN §4.2 "a failed decryption closes the
 * connection"): whatever one alteration of the ciphertext stream — a flipped bit, a dropped, duplicated,
 * swapped or replayed message — the receiver hands on exactly the frames sent before it, never an altered,
 * repeated or reordered one, then refuses everything, even the genuine next message.
 */
import {
  generateKeyPair,
  initiatorIKpsk2,
  NOISE_MAX_PLAINTEXT,
  NoiseError,
  randomBytes,
  responderIKpsk2,
} from '@burrow/crypto';
import { ProtocolError, SecureChannel } from '@burrow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** What a latched channel throws for every later call (protocol SPEC R-CHAN-1). */
const REFUSED = expect.objectContaining({ name: 'ProtocolError', rule: 'R-CHAN-1', fatal: true });

/** A connected pair, phone → Burrow: `send` seals, `receive` opens. */
function channelPair(): { send: SecureChannel; receive: SecureChannel } {
  const prologue = new TextEncoder().encode('secure-channel test');
  const burrow = generateKeyPair();
  const psk = randomBytes(32);
  const phone = initiatorIKpsk2({
    prologue,
    staticKeyPair: generateKeyPair(),
    remoteStaticKey: burrow.publicKey,
    psk,
  });
  const responder = responderIKpsk2({ prologue, staticKeyPair: burrow, psk });
  responder.readMessage(phone.writeMessage(new Uint8Array(0)));
  phone.readMessage(responder.writeMessage());
  return { send: new SecureChannel(phone.split()), receive: new SecureChannel(responder.split()) };
}

type Tamper =
  | { kind: 'flip' | 'drop' | 'duplicate' | 'swap'; at: number; bit: number }
  | { kind: 'replay'; at: number; from: number };

/** The altered stream, and the position of its first message that is not the genuine one at that place. */
function tamper(cts: readonly Uint8Array[], t: Tamper): { wire: Uint8Array[]; firstBad: number } {
  const wire = cts.map((c) => Uint8Array.from(c));
  const at = Math.min(t.at, cts.length - 1);
  switch (t.kind) {
    case 'flip': {
      const c = wire[at]!;
      const bit = t.bit % (c.length * 8);
      c[bit >> 3]! ^= 1 << (bit & 7);
      return { wire, firstBad: at };
    }
    case 'drop':
      wire.splice(at, 1);
      return { wire, firstBad: at };
    case 'duplicate':
      wire.splice(at + 1, 0, Uint8Array.from(cts[at]!));
      return { wire, firstBad: at + 1 };
    case 'swap':
      if (at + 1 >= wire.length) return tamper(cts, { kind: 'drop', at, bit: 0 });
      [wire[at], wire[at + 1]] = [wire[at + 1]!, wire[at]!];
      return { wire, firstBad: at };
    case 'replay': {
      const from = Math.min(t.from, at);
      wire.splice(at + 1, 0, Uint8Array.from(cts[from]!));
      return { wire, firstBad: at + 1 };
    }
  }
}

const frameArb = fc.oneof(
  { weight: 6, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 300 }) },
  // Over one Noise message: fragmented, so one frame spans several ciphertexts.
  { weight: 1, arbitrary: fc.integer({ min: NOISE_MAX_PLAINTEXT, max: NOISE_MAX_PLAINTEXT + 9000 }) },
);
/** One alteration, each kind equally likely. */
const tamperArb: fc.Arbitrary<Tamper> = fc
  .record({
    kind: fc.constantFrom('flip', 'drop', 'duplicate', 'swap', 'replay'),
    at: fc.nat(12),
    n: fc.nat(),
  })
  .map(({ kind, at, n }): Tamper => (kind === 'replay' ? { kind, at, from: n % 13 } : { kind, at, bit: n }));

describe('SecureChannel under a tampering relay', () => {
  it('delivers exactly the frames sent before the first altered message, then refuses everything', () => {
    const seen: Record<string, number> = {};
    let refused = 0;
    fc.assert(
      fc.property(fc.array(frameArb, { minLength: 1, maxLength: 8 }), tamperArb, (specs, t) => {
        const { send, receive } = channelPair();
        const frames = specs.map((s) => {
          const f = typeof s === 'number' ? new Uint8Array(s) : Uint8Array.from(s);
          f[0] = 1; // any frame kind but FRAGMENT: the Reassembler passes a whole frame on as it is
          return f;
        });
        // Which frame each ciphertext completes (-1 while a fragmented frame is still incomplete).
        const cts: Uint8Array[] = [];
        const completes: number[] = [];
        frames.forEach((f, i) => {
          const parts = send.seal(f);
          parts.forEach((p, k) => {
            cts.push(p);
            completes.push(k === parts.length - 1 ? i : -1);
          });
        });
        const { wire, firstBad } = tamper(cts, t);
        seen[t.kind] = (seen[t.kind] ?? 0) + 1;
        const delivered: Uint8Array[] = [];
        let refusedAt = -1;
        for (let i = 0; i < wire.length; i++) {
          try {
            const frame = receive.open(wire[i]!);
            if (frame) delivered.push(frame);
          } catch (error) {
            expect(error instanceof NoiseError || error instanceof ProtocolError).toBe(true);
            refusedAt = i;
            break;
          }
        }
        const expectedCount = completes.slice(0, firstBad).filter((c) => c >= 0).length;
        // Compared as base64 strings: deep-equal of 70 kB arrays element by element is slow.
        const hex = (fs: readonly Uint8Array[]) => fs.map((f) => Buffer.from(f).toString('base64'));
        expect(hex(delivered)).toEqual(hex(frames.slice(0, expectedCount)));
        if (firstBad < wire.length) {
          expect(refusedAt).toBe(firstBad);
          expect(receive.failed).toBe(true);
          refused++;
          // Even the genuine message at that place is refused now: the channel is dead, not resynchronised.
          expect(() => receive.open(cts[Math.min(firstBad, cts.length - 1)]!)).toThrow(REFUSED);
        } else {
          expect(refusedAt).toBe(-1); // the last message was dropped: nothing left to expose it
        }
      }),
      { seed: 0x5ec0de, numRuns: 50 },
    );
    const kinds = Object.entries(seen).map(([k, n]) => `${k}=${n}`);
    console.log(
      `[figure] agent SecureChannel tamper property: ${kinds.join(' ')} refusedAfterPrefix=${refused}`,
    );
  });

  it('a flipped message fails, and the untouched original that follows is refused too (fail closed)', () => {
    const { send, receive } = channelPair();
    const [ct] = send.seal(new Uint8Array([1, 2, 3]));
    const flipped = Uint8Array.from(ct!);
    flipped[5]! ^= 0x80;
    expect(() => receive.open(flipped)).toThrow(NoiseError);
    // A failed decryption does not advance the nonce (Noise §5.1), so without the latch this would decrypt.
    expect(() => receive.open(ct!)).toThrow(REFUSED);
    expect(() => receive.seal(new Uint8Array([1]))).toThrow(REFUSED);
  });

  it('a fatal fragmentation error latches as well', () => {
    const { send, receive } = channelPair();
    // A lone empty plaintext is R-FRAME-1 (fatal) once decrypted.
    expect(() => receive.open(send.transport.encrypt(new Uint8Array(0)))).toThrow(ProtocolError);
    expect(receive.failed).toBe(true);
    expect(() => receive.open(send.seal(new Uint8Array([1]))[0]!)).toThrow(REFUSED);
  });

  it('an untouched stream still flows both ways', () => {
    const { send, receive } = channelPair();
    for (let i = 1; i <= 5; i++) {
      const [ct] = send.seal(new Uint8Array([1, i]));
      expect(receive.open(ct!)).toEqual(new Uint8Array([1, i]));
    }
    expect(receive.failed).toBe(false);
  });
});
