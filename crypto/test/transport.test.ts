import { describe, expect, it } from 'vitest';
import { type Aead, nobleAead } from '../src/aead.js';
import { CipherState, encodeNonce, NOISE_MAX_NONCE } from '../src/cipher-state.js';
import { HandshakeState } from '../src/handshake-state.js';
import { NoiseError } from '../src/noise-error.js';
import { NOISE_MAX_MESSAGE, NOISE_MAX_PLAINTEXT, NoiseTransport } from '../src/transport.js';
import { generateKeyPair } from '../src/x25519.js';
import { AEAD_BACKENDS, toHex } from './vectors.js';

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const H = new Uint8Array(32).fill(7);
const EMPTY = new Uint8Array(0);

function cipher(aead: Aead, nonce = 0n): CipherState {
  const c = new CipherState(aead);
  c.initializeKey(KEY);
  c.setNonce(nonce);
  return c;
}

/** A sender/receiver pair sharing one key per direction, as Split() would leave them. */
function pair(aead: Aead, nonce = 0n): [NoiseTransport, NoiseTransport] {
  return [new NoiseTransport(cipher(aead, nonce), null, H), new NoiseTransport(null, cipher(aead, nonce), H)];
}

function expectNoiseError(fn: () => unknown, code: NoiseError['code']): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(NoiseError);
  expect((caught as NoiseError).code).toBe(code);
}

describe('encodeNonce', () => {
  it('is 4 zero bytes then the 64-bit counter, little-endian (rev 34 §12.3)', () => {
    expect(toHex(encodeNonce(0n))).toBe('000000000000000000000000');
    expect(toHex(encodeNonce(1n))).toBe('000000000100000000000000');
    expect(toHex(encodeNonce(0x0102030405060708n))).toBe('000000000807060504030201');
    expect(toHex(encodeNonce(NOISE_MAX_NONCE))).toBe('00000000ffffffffffffffff');
    expect(() => encodeNonce(-1n)).toThrow(RangeError);
    expect(() => encodeNonce(NOISE_MAX_NONCE + 1n)).toThrow(RangeError);
  });
});

describe.each(AEAD_BACKENDS.map((aead) => ({ name: aead.name, aead })))(
  'NoiseTransport ($name)',
  ({ aead }) => {
    it('encrypts the second message with the little-endian nonce 1, not a big-endian one', () => {
      const [send] = pair(aead);
      send.encrypt(Uint8Array.of(1));
      const second = send.encrypt(Uint8Array.of(2));
      expect(toHex(second)).toBe(toHex(nobleAead.encrypt(KEY, encodeNonce(1n), EMPTY, Uint8Array.of(2))));
      const bigEndianOne = new Uint8Array(12);
      bigEndianOne[11] = 1;
      expect(toHex(second)).not.toBe(toHex(nobleAead.encrypt(KEY, bigEndianOne, EMPTY, Uint8Array.of(2))));
    });

    it('does not advance the counter on a failed decryption', () => {
      const [send, receive] = pair(aead);
      const first = send.encrypt(Uint8Array.of(1, 2, 3));
      const tampered = Uint8Array.from(first);
      tampered[0]! ^= 1;
      expectNoiseError(() => receive.decrypt(tampered), 'decrypt-failed');
      expectNoiseError(() => receive.decrypt(new Uint8Array(5)), 'decrypt-failed');
      expect(receive.receiveNonce).toBe(0n);
      expect(receive.decrypt(first)).toEqual(Uint8Array.of(1, 2, 3));
      expect(receive.receiveNonce).toBe(1n);
      // A replay of the same message now fails: the counter moved on.
      expectNoiseError(() => receive.decrypt(first), 'decrypt-failed');
    });

    it('refuses the reserved counter 2^64−1 in both directions', () => {
      const [send, receive] = pair(aead, NOISE_MAX_NONCE - 1n);
      const last = send.encrypt(Uint8Array.of(9));
      expect(receive.decrypt(last)).toEqual(Uint8Array.of(9));
      expect(send.sendNonce).toBe(NOISE_MAX_NONCE);
      expectNoiseError(() => send.encrypt(Uint8Array.of(1)), 'nonce-exhausted');
      expectNoiseError(() => receive.decrypt(last), 'nonce-exhausted');
      expect(send.sendNonce).toBe(NOISE_MAX_NONCE);
    });

    it('rekeys (§11.3): k = ENCRYPT(k, 2^64−1, ε, 0^32)[0..32], counter kept, both sides in step', () => {
      const [send, receive] = pair(aead);
      receive.decrypt(send.encrypt(Uint8Array.of(1)));
      send.rekeySend();
      const afterRekey = send.encrypt(Uint8Array.of(2));
      const expectedKey = nobleAead
        .encrypt(KEY, encodeNonce(NOISE_MAX_NONCE), EMPTY, new Uint8Array(32))
        .slice(0, 32);
      expect(toHex(afterRekey)).toBe(
        toHex(nobleAead.encrypt(expectedKey, encodeNonce(1n), EMPTY, Uint8Array.of(2))),
      );
      // The receiver has not rekeyed yet: the message does not open, and the counter stays.
      expectNoiseError(() => receive.decrypt(afterRekey), 'decrypt-failed');
      receive.rekeyReceive();
      expect(receive.decrypt(afterRekey)).toEqual(Uint8Array.of(2));
      expect(receive.receiveNonce).toBe(2n);
    });

    it('enforces the 65535-byte message limit (≤ 65519 plaintext bytes)', () => {
      const [send, receive] = pair(aead);
      expect(NOISE_MAX_PLAINTEXT).toBe(65519);
      const biggest = send.encrypt(new Uint8Array(NOISE_MAX_PLAINTEXT));
      expect(biggest.length).toBe(NOISE_MAX_MESSAGE);
      expect(receive.decrypt(biggest).length).toBe(NOISE_MAX_PLAINTEXT);
      expect(() => send.encrypt(new Uint8Array(NOISE_MAX_PLAINTEXT + 1))).toThrow(RangeError);
      expectNoiseError(() => receive.decrypt(new Uint8Array(NOISE_MAX_MESSAGE + 1)), 'message-too-large');
      expect(send.sendNonce).toBe(1n);
      expect(receive.receiveNonce).toBe(1n);
    });

    it('after a one-way handshake only the initiator sends', () => {
      const responderStatic = generateKeyPair();
      const protocolName = 'Noise_N_25519_ChaChaPoly_BLAKE2s';
      const init = new HandshakeState({
        protocolName,
        initiator: true,
        remoteStaticKey: responderStatic.publicKey,
        aead,
      });
      const resp = new HandshakeState({
        protocolName,
        initiator: false,
        staticKeyPair: responderStatic,
        aead,
      });
      resp.readMessage(init.writeMessage());
      const [send, receive] = [init.split(), resp.split()];
      expect(receive.decrypt(send.encrypt(Uint8Array.of(4)))).toEqual(Uint8Array.of(4));
      expectNoiseError(() => send.decrypt(new Uint8Array(16)), 'invalid-state');
      expectNoiseError(() => receive.encrypt(new Uint8Array(1)), 'invalid-state');
      expectNoiseError(() => receive.rekeySend(), 'invalid-state');
      expectNoiseError(() => send.receiveNonce, 'invalid-state');
    });
  },
);

describe('NoiseTransport construction and CipherState edges', () => {
  it('rejects unkeyed cipher states and bad arguments', () => {
    const unkeyed = new CipherState(nobleAead);
    expect(() => new NoiseTransport(unkeyed, null, H)).toThrow(TypeError);
    expect(() => new NoiseTransport(null, unkeyed, H)).toThrow(TypeError);
    expect(() => new NoiseTransport(null, null, new Uint8Array(31))).toThrow(RangeError);
    const [send] = pair(nobleAead);
    expect(() => send.encrypt('x' as unknown as Uint8Array)).toThrow(TypeError);
    expect(toHex(send.handshakeHash)).toBe(toHex(H));
  });

  it('passes data through before a key is set, and refuses to rekey without one', () => {
    const c = new CipherState(nobleAead);
    expect(c.hasKey()).toBe(false);
    expect(c.encryptWithAd(EMPTY, Uint8Array.of(5))).toEqual(Uint8Array.of(5));
    expect(c.decryptWithAd(EMPTY, Uint8Array.of(6))).toEqual(Uint8Array.of(6));
    expectNoiseError(() => c.rekey(), 'invalid-state');
    expect(() => c.setNonce(-1n)).toThrow(RangeError);
    expect(() => c.setNonce(1 as unknown as bigint)).toThrow(RangeError);
    expect(() => c.initializeKey(new Uint8Array(16))).toThrow(RangeError);
  });
});
