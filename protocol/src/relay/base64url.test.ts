import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64url, encodeBase64url, isBase64urlOfLength } from './base64url.js';
import { RelayCodecError } from './relay-codec-error.js';

describe('base64url [RL-ID-1]', () => {
  it('matches RFC 4648 §10 vectors in the URL alphabet without padding', () => {
    const vectors: Array<[string, string]> = [
      ['', ''],
      ['f', 'Zg'],
      ['fo', 'Zm8'],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg'],
      ['fooba', 'Zm9vYmE'],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [plain, encoded] of vectors) {
      expect(encodeBase64url(new TextEncoder().encode(plain))).toBe(encoded);
      expect(new TextDecoder().decode(decodeBase64url(encoded))).toBe(plain);
    }
    expect(encodeBase64url(new Uint8Array([0xfb, 0xff]))).toBe('-_8');
  });

  it('round-trips and agrees with Node (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const text = encodeBase64url(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64url'));
        expect(decodeBase64url(text)).toEqual(bytes);
        expect(isBase64urlOfLength(text, bytes.length)).toBe(true);
      }),
      { seed: 1, numRuns: 300 },
    );
  });

  it('rejects padding, other alphabets, impossible lengths and non-canonical tails', () => {
    // 'Zh' and 'Zm9' carry non-zero bits past the last byte: another spelling of 'Zg' / 'Zm8'.
    for (const bad of ['Zg==', 'Zm9v+', 'Zm9v/', 'Z', 'Zh', 'Zm9', 'Zm 9v', 'Zé']) {
      expect(() => decodeBase64url(bad), bad).toThrow(RelayCodecError);
    }
    expect(isBase64urlOfLength('Zm8', 2)).toBe(true);
    expect(isBase64urlOfLength('Zm9', 2)).toBe(false);
    expect(isBase64urlOfLength('Zm8', 3)).toBe(false);
    expect(isBase64urlOfLength(42, 2)).toBe(false);
    expect(() => decodeBase64url(1 as unknown as string)).toThrow(TypeError);
    expect(() => encodeBase64url('x' as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('random strings throw only RelayCodecError (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 64 }), (s) => {
        try {
          decodeBase64url(s);
        } catch (e) {
          expect(e).toBeInstanceOf(RelayCodecError);
        }
      }),
      { seed: 2, numRuns: 500 },
    );
  });
});
