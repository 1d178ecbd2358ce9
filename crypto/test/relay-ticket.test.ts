import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacHash } from '../src/blake2s-hkdf.js';
import { pairingTicket, RELAY_TICKET_EPOCH_MS, relayTicket, relayTicketEpoch } from '../src/relay-ticket.js';
import { toHex } from './vectors.js';

const psk = new Uint8Array(32).fill(7);
const burrowId = new Uint8Array(16).fill(1);

describe('relay ticket (issue 16.5, RL-TICKET-1)', () => {
  it('is HMAC-BLAKE2s(psk, label ‖ burrowId ‖ epoch u64 BE)', () => {
    const data = new Uint8Array([
      ...new TextEncoder().encode('burrow relay ticket v1'),
      ...burrowId,
      ...[0, 0, 0, 0, 0, 0x07, 0x5b, 0xcd],
    ]);
    expect(toHex(relayTicket(psk, burrowId, 0x75bcd))).toBe(toHex(hmacHash(psk, data)));
    expect(relayTicket(psk, burrowId, 1)).toHaveLength(32);
  });

  it('differs by epoch, by psk and by Burrow, and is stable within an epoch', () => {
    const at = (ms: number) => toHex(relayTicket(psk, burrowId, relayTicketEpoch(ms)));
    const t0 = 1_780_000_000_000 - (1_780_000_000_000 % RELAY_TICKET_EPOCH_MS);
    expect(at(t0)).toBe(at(t0 + RELAY_TICKET_EPOCH_MS - 1));
    expect(at(t0)).not.toBe(at(t0 + RELAY_TICKET_EPOCH_MS));
    const e = relayTicketEpoch(t0);
    const seen = new Set([
      toHex(relayTicket(psk, burrowId, e)),
      toHex(relayTicket(new Uint8Array(32).fill(8), burrowId, e)),
      toHex(relayTicket(psk, new Uint8Array(16).fill(2), e)),
    ]);
    expect(seen.size).toBe(3);
  });

  it('checks its arguments with TypeError / RangeError', () => {
    expect(() => relayTicket(new Uint8Array(31), burrowId, 1)).toThrow(RangeError);
    expect(() => relayTicket(psk, new Uint8Array(15), 1)).toThrow(RangeError);
    expect(() => relayTicket('x' as unknown as Uint8Array, burrowId, 1)).toThrow(TypeError);
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53])
      expect(() => relayTicket(psk, burrowId, bad)).toThrow(RangeError);
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => relayTicketEpoch(bad)).toThrow(RangeError);
  });

  it('epochs are monotonic in time', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(relayTicketEpoch(lo)).toBeLessThanOrEqual(relayTicketEpoch(hi));
      }),
      { seed: 165, numRuns: 200 },
    );
  });
});

describe('pairing ticket (issue 24.5, RL-TICKET-5)', () => {
  it('is HMAC-BLAKE2s(secret, label ‖ burrowId), apart from every relay ticket of the same key', () => {
    const secret = new Uint8Array(32).fill(9);
    const data = new Uint8Array([...new TextEncoder().encode('burrow pairing ticket v1'), ...burrowId]);
    expect(toHex(pairingTicket(secret, burrowId))).toBe(toHex(hmacHash(secret, data)));
    expect(toHex(pairingTicket(secret, burrowId))).not.toBe(toHex(relayTicket(secret, burrowId, 0)));
    expect(toHex(pairingTicket(secret, new Uint8Array(16).fill(2)))).not.toBe(
      toHex(pairingTicket(secret, burrowId)),
    );
  });

  it('checks its arguments', () => {
    expect(() => pairingTicket(new Uint8Array(16), burrowId)).toThrow(RangeError);
    expect(() => pairingTicket(new Uint8Array(32), new Uint8Array(17))).toThrow(RangeError);
  });
});
