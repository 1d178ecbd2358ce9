import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boundedPushText,
  PUSH_TEXT_FALLBACK,
  PUSH_TEXT_MAX_CODE_POINTS,
  sanitizeText,
  TEXT_ELLIPSIS,
  TEXT_MAX_CODE_POINTS_LIMIT,
  toPushText,
} from './text.js';

/** Every code point the sanitizer must never let through (module comment of text.ts). */
const REMOVED =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/u;
const TAGS = /[\u{e0000}-\u{e007f}]/u;
const LONE_SURROGATE = /\p{Cs}/u;
const OTHER_SPACE = /[\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

const codePoints = (s: string): number => Array.from(s).length;

/** Strings mixing the dangerous classes with ordinary text of several scripts. */
const nastyChar = fc.constantFrom(
  'a',
  'Z',
  ' ',
  '\t',
  '\n',
  '\r',
  '\u0000',
  '\u0007',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u00a0',
  '\u00ad',
  '\u061c',
  '\u200b',
  '\u200d',
  '\u200e',
  '\u202e',
  '\u2066',
  '\u2028',
  '\u3000',
  '\ufeff',
  '\ud800',
  '\udfff',
  '\u{e0041}',
  '漢',
  'ש',
  '\u0301',
  '😀',
  '👩‍💻',
  '<b>',
);
const nastyString = fc.array(nastyChar, { maxLength: 60 }).map((parts) => parts.join(''));
const anyString = fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), nastyString);
const SEED = { seed: 0x5eed, numRuns: 500 } as const;

describe('sanitizeText', () => {
  it('removes controls, C1, bidi and zero-width characters', () => {
    expect(sanitizeText('a\u0000b\u0007c\u001bd\u007fe\u009bf', 100)).toBe('abcdef');
    expect(sanitizeText('\u202eevil\u202c\u2066x\u2069\u200ey\u200fz\u061c', 100)).toBe('evilxyz');
    expect(sanitizeText('pa\u200bss\u200c\u200dwo\u2060rd\ufeff\u180e\u00ad', 100)).toBe('password');
    expect(sanitizeText('hid\u{e0068}\u{e0069}den', 100)).toBe('hidden');
  });

  it('collapses all whitespace to single spaces and trims', () => {
    expect(sanitizeText('  a\t\tb\r\nc \u00a0\u3000 d\u2028e  ', 100)).toBe('a b c d e');
    expect(sanitizeText('\n\n\t ', 100)).toBe('');
  });

  it('keeps CJK, RTL text, combining marks, emoji and angle brackets', () => {
    expect(sanitizeText('ビルド完了 <ok>', 100)).toBe('ビルド完了 <ok>');
    expect(sanitizeText('שלום עולם', 100)).toBe('שלום עולם');
    expect(sanitizeText('e\u0301te\u0301', 100)).toBe('e\u0301te\u0301');
    expect(sanitizeText('done 🎉🚀', 100)).toBe('done 🎉🚀');
  });

  it('splits ZWJ emoji sequences into their parts (ZWJ is a zero-width character)', () => {
    expect(sanitizeText('👩‍💻', 10)).toBe('👩💻');
  });

  it('replaces lone surrogates with U+FFFD', () => {
    expect(sanitizeText('a\ud800b\udc00c\ud83d', 10)).toBe('a\ufffdb\ufffdc\ufffd');
  });

  it('caps in code points and never splits a surrogate pair', () => {
    expect(sanitizeText('😀😀😀', 2)).toBe('😀😀');
    expect(sanitizeText('abcdef', 3)).toBe('abc');
    expect(sanitizeText('ab cd', 3)).toBe('ab');
    expect(sanitizeText('abc', 0)).toBe('');
  });

  it('bounds a 1 MB input quickly to its cap', () => {
    const big = `${'x'.repeat(1 << 19)}${'\u202e'.repeat(1 << 19)}`;
    expect(sanitizeText(big, 500)).toBe('x'.repeat(500));
    const hidden = `${'\u200b'.repeat(1 << 20)}tail`;
    expect(sanitizeText(hidden, 500)).toBe('tail');
  });

  it('rejects bad arguments with exact errors', () => {
    expect(() => sanitizeText(5 as unknown as string, 1)).toThrow(TypeError);
    expect(() => sanitizeText('a', 1.5)).toThrow(TypeError);
    expect(() => sanitizeText('a', Number.NaN)).toThrow(TypeError);
    expect(() => sanitizeText('a', '3' as unknown as number)).toThrow(TypeError);
    expect(() => sanitizeText('a', -1)).toThrow(RangeError);
    expect(() => sanitizeText('a', TEXT_MAX_CODE_POINTS_LIMIT + 1)).toThrow(RangeError);
  });

  it('property: output has no removed class, obeys the bound, and is idempotent', () => {
    fc.assert(
      fc.property(anyString, fc.integer({ min: 0, max: 40 }), (input, max) => {
        const out = sanitizeText(input, max);
        expect(REMOVED.test(out)).toBe(false);
        expect(TAGS.test(out)).toBe(false);
        expect(LONE_SURROGATE.test(out)).toBe(false);
        expect(OTHER_SPACE.test(out)).toBe(false);
        expect(out).not.toMatch(/ {2}|^ | $/);
        expect(codePoints(out)).toBeLessThanOrEqual(max);
        expect(sanitizeText(out, max)).toBe(out);
      }),
      SEED,
    );
  });

  it('property: a larger cap yields an extension of the smaller result', () => {
    fc.assert(
      fc.property(anyString, fc.integer({ min: 0, max: 30 }), (input, max) => {
        const small = sanitizeText(input, max);
        const large = sanitizeText(input, max + 10);
        expect(large.startsWith(small)).toBe(true);
      }),
      SEED,
    );
  });
});

describe('boundedPushText', () => {
  it('passes short text unchanged and ends a cut with an ellipsis inside the cap', () => {
    expect(boundedPushText('build done', 20)).toBe('build done');
    expect(boundedPushText('abcdefghij', 5)).toBe(`abcd${TEXT_ELLIPSIS}`);
    expect(boundedPushText('abc defghij', 5)).toBe(`abc${TEXT_ELLIPSIS}`);
    expect(boundedPushText('😀😀😀😀', 3)).toBe(`😀😀${TEXT_ELLIPSIS}`);
    expect(boundedPushText('x'.repeat(500))).toBe(
      `${'x'.repeat(PUSH_TEXT_MAX_CODE_POINTS - 1)}${TEXT_ELLIPSIS}`,
    );
  });

  it('keeps angle brackets and strips bidi / zero-width incl. the Arabic letter mark', () => {
    expect(boundedPushText('<script>\u061c\u202e\u200b', 50)).toBe('<script>');
  });

  it('rejects a zero cap and bad arguments', () => {
    expect(() => boundedPushText('a', 0)).toThrow(RangeError);
    expect(() => boundedPushText(null as unknown as string, 5)).toThrow(TypeError);
  });

  it('property: bounded, sanitized, and idempotent (the service worker re-bounds)', () => {
    fc.assert(
      fc.property(anyString, fc.integer({ min: 1, max: 40 }), (input, max) => {
        const out = boundedPushText(input, max);
        expect(codePoints(out)).toBeLessThanOrEqual(max);
        expect(REMOVED.test(out)).toBe(false);
        expect(LONE_SURROGATE.test(out)).toBe(false);
        expect(boundedPushText(out, max)).toBe(out);
      }),
      SEED,
    );
  });
});

describe('toPushText', () => {
  it('falls back to "terminal" when nothing printable is left', () => {
    expect(toPushText('')).toBe(PUSH_TEXT_FALLBACK);
    expect(toPushText('\u200b\u202e \t')).toBe('terminal');
    expect(toPushText(' claude: fix tests ')).toBe('claude: fix tests');
  });

  it('rejects a non-string label', () => {
    expect(() => toPushText(undefined as unknown as string)).toThrow(TypeError);
  });
});
