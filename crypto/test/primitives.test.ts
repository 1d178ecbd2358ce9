import { describe, expect, it } from 'vitest';
import { AEAD_TAG_BYTES } from '../src/aead.js';
import { hkdf } from '../src/blake2s-hkdf.js';
import { NoiseError } from '../src/noise-error.js';
import { dh, generateKeyPair, publicKeyFromPrivate } from '../src/x25519.js';
import { AEAD_BACKENDS, hex, loadVectors, toHex } from './vectors.js';

interface KdfVector {
  key: string;
  input: string;
  t0: string;
  t1: string;
  t2: string;
}
interface XdhTest {
  tcId: number;
  flags: string[];
  public: string;
  private: string;
  shared: string;
  result: 'valid' | 'acceptable' | 'invalid';
}
interface AeadTest {
  tcId: number;
  flags: string[];
  key: string;
  iv: string;
  aad: string;
  msg: string;
  ct: string;
  tag: string;
  result: 'valid' | 'invalid';
}

const kdf = loadVectors<{ vectors: KdfVector[] }>('wireguard-go-kdf_test-blake2s-hkdf.json').vectors;
const xdh = loadVectors<{ testGroups: { tests: XdhTest[] }[] }>(
  'wycheproof/x25519_test.json',
).testGroups.flatMap((g) => g.tests);
const chacha = loadVectors<{ testGroups: { ivSize: number; tests: AeadTest[] }[] }>(
  'wycheproof/chacha20_poly1305_test.json',
).testGroups.flatMap((g) => g.tests.map((t) => ({ ...t, ivSize: g.ivSize })));

describe('Noise HKDF on HMAC-BLAKE2s (WireGuard kdf_test vectors)', () => {
  it.each(kdf.map((v, i) => [i, v] as const))('vector %i', (_i, v) => {
    const [t0, t1, t2] = hkdf(hex(v.key), hex(v.input), 3);
    expect([toHex(t0), toHex(t1), toHex(t2)]).toEqual([v.t0, v.t1, v.t2]);
    const two = hkdf(hex(v.key), hex(v.input), 2);
    expect(two.map(toHex)).toEqual([v.t0, v.t1]);
  });

  it('refuses output counts Noise never asks for', () => {
    expect(() => hkdf(new Uint8Array(32), new Uint8Array(0), 4 as 3)).toThrow(RangeError);
  });
});

describe('X25519 (Wycheproof x25519_test.json)', () => {
  it('has the cases this policy is about', () => {
    expect(xdh.filter((t) => t.flags.includes('ZeroSharedSecret')).length).toBeGreaterThan(20);
    expect(xdh.length).toBeGreaterThan(500);
  });

  it('agrees on every non-zero shared secret and rejects every all-zero one with NoiseError', () => {
    for (const t of xdh) {
      const zero = t.shared === '00'.repeat(32);
      if (zero) {
        let caught: unknown;
        try {
          dh(hex(t.private), hex(t.public));
        } catch (error) {
          caught = error;
        }
        expect(caught, `tcId ${t.tcId}`).toBeInstanceOf(NoiseError);
        expect((caught as NoiseError).code).toBe('invalid-public-key');
      } else {
        // valid, and "acceptable" twist / non-canonical points: RFC 7748 semantics, same output.
        expect(toHex(dh(hex(t.private), hex(t.public))), `tcId ${t.tcId}`).toBe(t.shared);
      }
    }
  });

  it('rejects public keys of the wrong length as the peer’s fault', () => {
    const { privateKey } = generateKeyPair();
    expect(() => dh(privateKey, new Uint8Array(31))).toThrow(NoiseError);
    expect(() => dh(new Uint8Array(31), new Uint8Array(32))).toThrow(RangeError);
    expect(() => publicKeyFromPrivate(new Uint8Array(33))).toThrow(RangeError);
  });

  it('generates distinct key pairs whose DH agrees', () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    expect(toHex(a.privateKey)).not.toBe(toHex(b.privateKey));
    expect(toHex(dh(a.privateKey, b.publicKey))).toBe(toHex(dh(b.privateKey, a.publicKey)));
  });
});

describe.each(AEAD_BACKENDS.map((aead) => ({ name: aead.name, aead })))(
  'ChaCha20-Poly1305 $name (Wycheproof)',
  ({ aead }) => {
    it('passes every valid case and rejects every invalid one in the call shapes Noise uses', () => {
      let valid = 0;
      let invalid = 0;
      for (const t of chacha) {
        const [key, nonce, ad, msg] = [hex(t.key), hex(t.iv), hex(t.aad), hex(t.msg)];
        const sealed = hex(t.ct + t.tag);
        if (t.ivSize !== 96) {
          // Noise only ever builds 12-byte nonces; any other size is refused before the cipher runs.
          expect(() => aead.encrypt(key, nonce, ad, msg), `tcId ${t.tcId}`).toThrow(RangeError);
          expect(() => aead.decrypt(key, nonce, ad, sealed), `tcId ${t.tcId}`).toThrow(RangeError);
          invalid++;
        } else if (t.result === 'valid') {
          expect(toHex(aead.encrypt(key, nonce, ad, msg)), `tcId ${t.tcId}`).toBe(t.ct + t.tag);
          expect(toHex(aead.decrypt(key, nonce, ad, sealed) ?? new Uint8Array([1])), `tcId ${t.tcId}`).toBe(
            t.msg,
          );
          valid++;
        } else {
          expect(aead.decrypt(key, nonce, ad, sealed), `tcId ${t.tcId}`).toBeNull();
          invalid++;
        }
      }
      expect(valid).toBeGreaterThan(200);
      expect(invalid).toBe(69);
    });

    it('returns null for input shorter than a tag and throws RangeError on bad key sizes', () => {
      const key = new Uint8Array(32);
      const nonce = new Uint8Array(12);
      expect(aead.decrypt(key, nonce, new Uint8Array(0), new Uint8Array(AEAD_TAG_BYTES - 1))).toBeNull();
      expect(() => aead.encrypt(new Uint8Array(16), nonce, new Uint8Array(0), new Uint8Array(1))).toThrow(
        RangeError,
      );
      expect(() => aead.decrypt(key, nonce, 'ad' as unknown as Uint8Array, new Uint8Array(16))).toThrow(
        TypeError,
      );
    });
  },
);
