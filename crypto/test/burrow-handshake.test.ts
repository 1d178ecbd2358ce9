import { describe, expect, it } from 'vitest';
import { burrowPrologue } from '../src/burrow-prologue.js';
import { confirmationCode } from '../src/confirmation-code.js';
import {
  checkHandshakeTimestamp,
  decodeHandshakeTimestamp,
  encodeHandshakeTimestamp,
  HANDSHAKE_TIMESTAMP_MAX_AHEAD_MS,
  nextHandshakeTimestamp,
} from '../src/handshake-timestamp.js';
import { BURROW_NOISE_PROTOCOL, initiatorIKpsk2, responderIKpsk2 } from '../src/ikpsk2.js';
import { NoiseError } from '../src/noise-error.js';
import { randomBytes } from '../src/random.js';
import { generateKeyPair } from '../src/x25519.js';
import { AEAD_BACKENDS, toHex } from './vectors.js';

const BURROW_ID = Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i);

describe('burrowPrologue', () => {
  it('encodes label, mode, version and burrowId in a fixed layout', () => {
    const label = toHex(new TextEncoder().encode('burrow noise prologue'));
    expect(toHex(burrowPrologue({ mode: 'pair', protocolVersion: 1, burrowId: BURROW_ID }))).toBe(
      `${label}00010001${toHex(BURROW_ID)}`,
    );
    expect(toHex(burrowPrologue({ mode: 'connect', protocolVersion: 0x0203, burrowId: BURROW_ID }))).toBe(
      `${label}00020203${toHex(BURROW_ID)}`,
    );
  });

  it('rejects bad parameters', () => {
    const ok = { mode: 'pair' as const, protocolVersion: 1, burrowId: BURROW_ID };
    expect(() => burrowPrologue({ ...ok, mode: 'toString' as 'pair' })).toThrow(RangeError);
    expect(() => burrowPrologue({ ...ok, protocolVersion: 65536 })).toThrow(RangeError);
    expect(() => burrowPrologue({ ...ok, protocolVersion: 1.5 })).toThrow(RangeError);
    expect(() => burrowPrologue({ ...ok, burrowId: new Uint8Array(15) })).toThrow(RangeError);
  });
});

describe('handshake timestamp (connect-mode anti-replay)', () => {
  it('round-trips as u64 big-endian milliseconds', () => {
    const now = 1_764_619_200_123;
    const encoded = encodeHandshakeTimestamp(now);
    expect(toHex(encoded)).toBe(now.toString(16).padStart(16, '0'));
    expect(decodeHandshakeTimestamp(encoded)).toBe(now);
    expect(decodeHandshakeTimestamp(encodeHandshakeTimestamp(Number.MAX_SAFE_INTEGER))).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });

  it('rejects malformed payloads with NoiseError and bad numbers with RangeError', () => {
    expect(() => decodeHandshakeTimestamp(new Uint8Array(7))).toThrow(NoiseError);
    expect(() => decodeHandshakeTimestamp(new Uint8Array(8).fill(0xff))).toThrow(NoiseError);
    expect(() => encodeHandshakeTimestamp(-1)).toThrow(RangeError);
    expect(() => encodeHandshakeTimestamp(2 ** 53)).toThrow(RangeError);
  });

  it('judges freshness against the last accepted value and the injected clock', () => {
    const now = 1_000_000;
    expect(checkHandshakeTimestamp(now, now - 1, now)).toBe('fresh');
    expect(checkHandshakeTimestamp(now, now, now)).toBe('replayed');
    expect(checkHandshakeTimestamp(now - 5, now, now)).toBe('replayed');
    expect(checkHandshakeTimestamp(now + HANDSHAKE_TIMESTAMP_MAX_AHEAD_MS, 0, now)).toBe('fresh');
    expect(checkHandshakeTimestamp(now + HANDSHAKE_TIMESTAMP_MAX_AHEAD_MS + 1, 0, now)).toBe('too-far-ahead');
    expect(checkHandshakeTimestamp(now + 10, 0, now, 5)).toBe('too-far-ahead');
    expect(() => checkHandshakeTimestamp(Number.NaN, 0, now)).toThrow(RangeError);
  });

  it('lets the phone send strictly increasing values even if its clock steps back', () => {
    expect(nextHandshakeTimestamp(100, 50)).toBe(100);
    expect(nextHandshakeTimestamp(100, 100)).toBe(101);
    expect(nextHandshakeTimestamp(90, 100)).toBe(101);
  });
});

describe('confirmationCode', () => {
  it('is six zero-padded digits, pinned against an independent BLAKE2s computation', () => {
    expect(confirmationCode(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe('394583');
    expect(confirmationCode(new Uint8Array(32).fill(14))).toBe('082736');
    expect(() => confirmationCode(new Uint8Array(31))).toThrow(RangeError);
  });

  it('spreads over the range (no digit position stuck)', () => {
    const firstDigits = new Set<string>();
    for (let i = 0; i < 200; i++) firstDigits.add(confirmationCode(randomBytes(32))[0]!);
    expect(firstDigits.size).toBe(10);
  });
});

describe.each(AEAD_BACKENDS.map((aead) => ({ name: aead.name, aead })))(
  'IKpsk2 helpers ($name)',
  ({ aead }) => {
    const phone = generateKeyPair();
    const burrow = generateKeyPair();
    const secret = randomBytes(32);

    it('pairs: both sides derive the same code, the phone’s first transport message confirms', () => {
      const prologue = burrowPrologue({ mode: 'pair', protocolVersion: 1, burrowId: BURROW_ID });
      const init = initiatorIKpsk2({
        prologue,
        staticKeyPair: phone,
        remoteStaticKey: burrow.publicKey,
        psk: secret,
        aead,
      });
      const resp = responderIKpsk2({ prologue, staticKeyPair: burrow, psk: secret, aead });
      expect(init.pattern.name).toBe('IKpsk2');
      expect(BURROW_NOISE_PROTOCOL).toBe('Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s');
      resp.readMessage(init.writeMessage());
      init.readMessage(resp.writeMessage());
      const [p, b] = [init.split(), resp.split()];
      expect(confirmationCode(p.handshakeHash)).toBe(confirmationCode(b.handshakeHash));
      expect(b.decrypt(p.encrypt(Uint8Array.of(1)))).toEqual(Uint8Array.of(1));
    });

    it('connects: the Burrow reads the timestamp and the caller’s key before supplying the device psk', () => {
      const prologue = burrowPrologue({ mode: 'connect', protocolVersion: 1, burrowId: BURROW_ID });
      const init = initiatorIKpsk2({
        prologue,
        staticKeyPair: phone,
        remoteStaticKey: burrow.publicKey,
        psk: secret,
        aead,
      });
      const resp = responderIKpsk2({ prologue, staticKeyPair: burrow, aead });
      const ts = decodeHandshakeTimestamp(
        resp.readMessage(init.writeMessage(encodeHandshakeTimestamp(1234))),
      );
      expect(ts).toBe(1234);
      expect(toHex(resp.remoteStatic!)).toBe(toHex(phone.publicKey));
      resp.setPsk(secret);
      init.readMessage(resp.writeMessage());
      expect(toHex(init.handshakeHash)).toBe(toHex(resp.handshakeHash));
    });

    it('fails when the prologue differs (pair vs connect, another burrowId)', () => {
      const pair = burrowPrologue({ mode: 'pair', protocolVersion: 1, burrowId: BURROW_ID });
      const connect = burrowPrologue({ mode: 'connect', protocolVersion: 1, burrowId: BURROW_ID });
      const init = initiatorIKpsk2({
        prologue: pair,
        staticKeyPair: phone,
        remoteStaticKey: burrow.publicKey,
        psk: secret,
        aead,
      });
      const resp = responderIKpsk2({ prologue: connect, staticKeyPair: burrow, psk: secret, aead });
      expect(() => resp.readMessage(init.writeMessage())).toThrow(NoiseError);
    });
  },
);
