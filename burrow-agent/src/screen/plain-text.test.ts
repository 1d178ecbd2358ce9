import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dropLines, nextPlainRun, plainLines } from './plain-text.js';

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

/** plainLines and nextPlainRun byte by byte, as they were before they read four bytes at a time: the reference. */
function referencePlain(chunk: Uint8Array): { ends: number[]; plainToEnd: boolean } {
  const ends: number[] = [];
  for (let i = 0; i < chunk.byteLength; i++) {
    const b = chunk[i]!;
    if (b >= 0x20 && b <= 0x7e) continue;
    if (b === 0x0d) {
      if (i + 1 === chunk.byteLength) break;
      if (chunk[i + 1] === 0x0a) {
        ends.push(i++);
        continue;
      }
    }
    return { ends, plainToEnd: false };
  }
  return { ends, plainToEnd: true };
}

function referenceRun(chunk: Uint8Array, from: number, minBytes: number): number {
  const n = chunk.byteLength;
  let run = from === 0 || (chunk[from - 1] === 0x0a && chunk[from - 2] === 0x0d) ? from : -1;
  for (let i = from; i < n; i++) {
    const b = chunk[i]!;
    if (b >= 0x20 && b <= 0x7e) continue;
    if (b === 0x0d && i + 1 < n && chunk[i + 1] === 0x0a) {
      i++;
      if (run >= 0 && i + 1 - run >= minBytes) return run;
      if (run < 0) run = i + 1;
      continue;
    }
    if (b === 0x0d && i + 1 === n) break;
    run = -1;
  }
  return run >= 0 && n - run >= minBytes ? run : -1;
}

/**
 * Bytes at the edges of the printable range and the word tricks' (0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff, 0x00)
 * among long plain runs, at every alignment (a view into a larger buffer at a random offset).
 */
const edgy = fc
  .tuple(
    fc.array(
      fc.oneof(
        {
          arbitrary: fc.string({ unit: fc.constantFrom('a', ' ', '~', '}', '!'), maxLength: 40 }),
          weight: 6,
        },
        { arbitrary: fc.constant('\r\n'), weight: 4 },
        {
          arbitrary: fc.constantFrom(
            '\x1f',
            '\x7f',
            '\x80',
            '\xff',
            '\x00',
            '\r',
            '\n',
            '\x9f',
            '\xa0',
            '\xfe',
          ),
          weight: 1,
        },
      ),
      { maxLength: 200 },
    ),
    fc.integer({ min: 0, max: 7 }),
    fc.nat(),
    fc.integer({ min: 1, max: 300 }),
  )
  .map(([parts, offset, from, min]) => {
    const bytes = Buffer.from(parts.join(''), 'latin1');
    const backing = new Uint8Array(bytes.length + offset);
    backing.set(bytes, offset);
    const chunk = backing.subarray(offset);
    return { chunk, from: from % (chunk.byteLength + 1), min };
  });

describe('plainLines', () => {
  it('reads four bytes at a time exactly as byte by byte, at every alignment (property)', () => {
    fc.assert(
      fc.property(edgy, ({ chunk, from, min }) => {
        const ref = referencePlain(chunk);
        const l = plainLines(chunk);
        expect([...l.ends]).toEqual(ref.ends);
        expect(l.plainToEnd).toBe(ref.plainToEnd);
        expect(nextPlainRun(chunk, from, min)).toBe(referenceRun(chunk, from, min));
      }),
      { numRuns: 5000 },
    );
  });

  it('finds CR LF lines of printable ASCII; a lone CR may end the chunk', () => {
    const l = plainLines(enc('ab\r\n\r\nxyz\r'));
    expect(l.count).toBe(2);
    expect([...l.starts]).toEqual([0, 4, 6]);
    expect([...l.ends]).toEqual([2, 4]);
    expect(l.plainToEnd).toBe(true);
    for (const bad of ['a\nb', 'a\rb\r\n', '\x1b[0m\r\n', 'é\r\n', 'a\tb\r\n']) {
      const none = plainLines(enc(bad));
      expect(none.count, JSON.stringify(bad)).toBe(0);
      expect(none.plainToEnd, JSON.stringify(bad)).toBe(false);
    }
  });

  it('stops at the first line that is not plain: the plain prefix', () => {
    const l = plainLines(enc('one\r\ntwo\r\nth\x1b[1mree\r\nfour\r\n'));
    expect(l.count).toBe(2);
    expect(l.starts[2]).toBe(10);
    expect(l.plainToEnd).toBe(false);
  });

  it('nextPlainRun finds where enough plain lines start after something else', () => {
    const head = '\x1b[31mred\x1b[0m\r\n';
    const chunk = enc(`${head}${'plain line\r\n'.repeat(10)}`);
    expect(nextPlainRun(chunk, 0, 50)).toBe(head.length);
    expect(nextPlainRun(chunk, 0, 1000)).toBe(-1);
    // From a line start that is plain itself.
    expect(nextPlainRun(enc('ab\r\ncd\r\n'), 0, 4)).toBe(0);
    // A run interrupted by an escape starts again after the next line end.
    const broken = enc(`aaaa\r\nb\x1b[mb\r\n${'cccc\r\n'.repeat(3)}`);
    expect(nextPlainRun(broken, 0, 12)).toBe(13);
  });

  it('nextPlainRun agrees with plainLines on where a long enough run starts (property)', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 400 }), (chunk, min) => {
        const at = nextPlainRun(chunk, 0, min);
        // The naive answer: the first line start from which plainLines finds enough plain bytes.
        let expected = -1;
        for (let i = 0; i < chunk.byteLength && expected < 0; i++) {
          if (i > 0 && !(chunk[i - 1] === 0x0a && chunk[i - 2] === 0x0d)) continue;
          const l = plainLines(chunk.subarray(i));
          const plainBytes = l.plainToEnd ? chunk.byteLength - i : l.starts[l.count]!;
          if (plainBytes >= min) expected = i;
        }
        expect(at).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('finds every line of a chunk far larger than its scratch space, and again after', () => {
    // 100,000 empty lines (grows the reused scratch past the size it keeps) then a small chunk (a fresh one).
    for (const lines of [100_000, 3]) {
      const l = plainLines(enc('\r\n'.repeat(lines)));
      expect(l.count).toBe(lines);
      expect(l.ends[lines - 1]).toBe(2 * (lines - 1));
      expect(l.starts[lines]).toBe(2 * lines);
    }
  });

  it('given its own answer for a prefix, answers exactly as scanning the whole chunk (property)', () => {
    fc.assert(
      fc.property(text, fc.nat(), (chunk, cut) => {
        const prefix = plainLines(chunk.subarray(0, cut % (chunk.byteLength + 1)));
        expect(plainLines(chunk, prefix)).toEqual(plainLines(chunk));
      }),
      { numRuns: 2000 },
    );
  });

  it('dropLines gives the lines of the chunk after the first k', () => {
    fc.assert(
      fc.property(text, fc.nat(), (chunk, k) => {
        const lines = plainLines(chunk);
        if (lines.count === 0) return;
        const drop = k % (lines.count + 1);
        expect(dropLines(lines, drop)).toEqual(plainLines(chunk.subarray(lines.starts[drop]!)));
      }),
      { numRuns: 2000 },
    );
  });
});
