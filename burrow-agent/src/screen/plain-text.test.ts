import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dropLines, plainLines } from './plain-text.js';

const enc = (s: string) => new TextEncoder().encode(s);
/** Mostly plain lines, sometimes a byte that is not (a control, an escape, UTF-8, a bare CR or LF). */
const text = fc
  .array(
    fc.oneof(
      { arbitrary: fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '~'), maxLength: 90 }), weight: 8 },
      { arbitrary: fc.constant('\r\n'), weight: 8 },
      { arbitrary: fc.constantFrom('\r', '\n', '\x1b[0m', '\t', 'é', '\x7f', '\x00'), weight: 1 },
    ),
    { maxLength: 400 },
  )
  .map((parts) => enc(parts.join('')));

describe('plainLines', () => {
  it('finds CR LF lines of printable ASCII; a lone CR may end the chunk', () => {
    const l = plainLines(enc('ab\r\n\r\nxyz\r'))!;
    expect(l.count).toBe(2);
    expect([...l.starts]).toEqual([0, 4, 6]);
    expect([...l.ends]).toEqual([2, 4]);
    for (const bad of ['a\nb', 'a\rb\r\n', '\x1b[0m\r\n', 'é\r\n', 'a\tb\r\n'])
      expect(plainLines(enc(bad)), JSON.stringify(bad)).toBeNull();
  });

  it('finds every line of a chunk far larger than its scratch space, and again after', () => {
    // 100,000 empty lines (grows the reused scratch past the size it keeps) then a small chunk (a fresh one).
    for (const lines of [100_000, 3]) {
      const l = plainLines(enc('\r\n'.repeat(lines)))!;
      expect(l.count).toBe(lines);
      expect(l.ends[lines - 1]).toBe(2 * (lines - 1));
      expect(l.starts[lines]).toBe(2 * lines);
    }
  });

  it('given its own answer for a prefix, answers exactly as scanning the whole chunk (property)', () => {
    fc.assert(
      fc.property(text, fc.nat(), (chunk, cut) => {
        const prefix = plainLines(chunk.subarray(0, cut % (chunk.byteLength + 1)));
        if (prefix === null) return;
        expect(plainLines(chunk, prefix)).toEqual(plainLines(chunk));
      }),
      { numRuns: 2000 },
    );
  });

  it('dropLines gives the lines of the chunk after the first k', () => {
    fc.assert(
      fc.property(text, fc.nat(), (chunk, k) => {
        const lines = plainLines(chunk);
        if (lines === null || lines.count === 0) return;
        const drop = k % (lines.count + 1);
        expect(dropLines(lines, drop)).toEqual(plainLines(chunk.subarray(lines.starts[drop]!)));
      }),
      { numRuns: 2000 },
    );
  });
});
