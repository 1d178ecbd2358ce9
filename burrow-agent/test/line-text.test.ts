import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineText } from '../src/screen/line-text.js';
import { replay } from './helpers.js';

/** Every row of the buffer, through both the fast path and xterm's own translateToString. */
async function bothWays(input: string, cols: number) {
  const t = await replay(input, cols, 5, 200);
  const b = t.buffer.active;
  const fast: string[] = [];
  const slow: string[] = [];
  for (let i = 0; i < b.length; i++) {
    const line = b.getLine(i)!;
    fast.push(lineText(line));
    slow.push(line.translateToString(true));
  }
  t.dispose();
  return { fast, slow };
}

describe('lineText', () => {
  it('matches translateToString on wide, astral, combining and coloured text', async () => {
    const { fast, slow } = await bothWays(
      'plain\r\n\x1b[31mred\x1b[0m  trailing   \r\n漢字かな wide\r\n😀 emoji 🎉\r\ne\u0301 combining\r\ntab\tstop\r\n' +
        'x'.repeat(50),
      20,
    );
    expect(fast).toEqual(slow);
    expect(fast[2]).toBe('漢字かな wide');
  });

  it('really takes the fast path on this xterm version (fails loudly if the internals moved)', async () => {
    const t = await replay('probe', 10, 2);
    const internal = (t.buffer.active.getLine(0) as unknown as { _line?: { _data?: unknown } })._line;
    expect(internal?._data).toBeInstanceOf(Uint32Array);
    t.dispose();
  });

  it('matches translateToString for random printable input (property)', async () => {
    const chars = fc.constantFrom(
      'a',
      'Z',
      ' ',
      '漢',
      '😀',
      'e\u0301',
      '\t',
      '\r\n',
      '\x1b[1;32m',
      '\x1b[0m',
      '\x1b[2K',
      '\x1b[5D',
      'ä',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(chars, { maxLength: 200 }),
        fc.integer({ min: 2, max: 30 }),
        async (parts, cols) => {
          const { fast, slow } = await bothWays(parts.join(''), cols);
          expect(fast).toEqual(slow);
        },
      ),
      { seed: 99, numRuns: 150 },
    );
  });
});
