import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isUnsafeCodePoint,
  MAX_PRINTABLE_CHARS,
  MAX_PRINTABLE_CHARS_LIMIT,
  printable,
  printableJson,
  printableLines,
} from '../text/printable.js';

const hasUnsafe = (s: string) => [...s].some((ch) => isUnsafeCodePoint(ch.codePointAt(0)!));
/** The longest "… (N more characters)" note for any string. */
const NOTE_MAX = '… (9007199254740991 more characters)'.length;

describe('printable', () => {
  it('shows controls, C1, bidi and invisible characters as escapes', () => {
    expect(printable('a\x1b]52;c;aGk=\x07b')).toBe('a\\x1b]52;c;aGk=\\x07b');
    expect(printable('line1\nline2\r\t')).toBe('line1\\nline2\\r\\t');
    expect(printable('\u009b31m \u007f \u0000')).toBe('\\u009b31m \\x7f \\x00');
    expect(printable('abc\u202edef\u2066\u200b\ufeff')).toBe('abc\\u202edef\\u2066\\u200b\\ufeff');
    expect(printable('lone \ud800 high')).toBe('lone \\ud800 high');
  });

  it('leaves ordinary text alone, emoji and other scripts included', () => {
    for (const s of ['shell', 'build: exit 2', 'Pocket on iPhone', 'überall 日本語 🐇', 'C:\\path']) {
      expect(printable(s)).toBe(s);
    }
  });

  it('bounds the shown text and says how much was left out', () => {
    expect(printable('x'.repeat(10), 4)).toBe('xxxx… (6 more characters)');
    expect(printable('abc\x1b', 4)).toBe('abc… (1 more character)');
    // A surrogate pair is never cut in half.
    expect(printable('ab🐇', 3)).toBe('ab… (1 more character)');
    expect(printable('y'.repeat(MAX_PRINTABLE_CHARS + 1))).toMatch(/… \(1 more character\)$/);
  });

  it('refuses what is not a string or a sane bound', () => {
    expect(() => printable(5 as unknown as string)).toThrow(TypeError);
    expect(() => printable('x', 0)).toThrow(RangeError);
    expect(() => printable('x', 1.5)).toThrow(RangeError);
    expect(() => printable('x', MAX_PRINTABLE_CHARS_LIMIT + 1)).toThrow(RangeError);
  });

  it('property: nothing unsafe survives, the length is bounded, safe short text is unchanged', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string()),
        fc.integer({ min: 1, max: 300 }),
        (s, max) => {
          const out = printable(s, max);
          expect(hasUnsafe(out)).toBe(false);
          expect(out.length).toBeLessThanOrEqual(max + NOTE_MAX);
          if (!hasUnsafe(s) && s.length <= max) expect(out).toBe(s);
        },
      ),
    );
  });
});

describe('printableLines', () => {
  it('keeps line breaks, escapes the rest, bounds the whole', () => {
    expect(printableLines('one\ntwo\x1b[2J')).toBe('one\ntwo\\x1b[2J');
    expect(printableLines('a\nb\nc\nd', 3)).toBe('a\nb\n… (2 more lines)');
  });
});

describe('printableJson', () => {
  it('is JSON that parses back to the same value, with nothing unsafe in it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (v, s) => {
        for (const value of [v, { s }, [s, v]]) {
          const out = printableJson(value);
          expect(hasUnsafe(out)).toBe(false);
          expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(value)));
        }
      }),
    );
  });
});
