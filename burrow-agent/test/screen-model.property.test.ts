/**
 * The plain-text skip (ScreenModel.skipPlainFlood, issue 14) changes nothing a viewer can see: for any
 * terminal state a random prefix of escapes and text leaves behind, and any flood of plain text lines after
 * it, a model that skips comes out with the same history, the same snapshot (screen, scrollback, modes,
 * cursor) and the same offsets as one that parses every byte.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScreenModel } from '../src/screen/screen-model.js';

const ESCAPES = [
  '\x1b[31m',
  '\x1b[44m',
  '\x1b[1;4m',
  '\x1b[0m',
  '\x1b[H',
  '\x1b[5;3H',
  '\x1b[B',
  '\x1b[2J',
  '\x1b[K',
  '\x1b[41m\x1b[K\x1b[0m',
  '\x1b[3;10r',
  '\x1b[r',
  '\x1b(0',
  '\x1b(B',
  '\x1b[?1049h',
  '\x1b[?1049l',
  '\x1b[4h',
  '\x1b[4l',
  '\x1b[?7l',
  '\x1b[?7h',
  '\x1b[?6h',
  '\x1b[?6l',
  '\r',
  '\r\n',
  '\t',
  'é',
];

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
});
/** What a shell session typically leaves: text, colours, line ends, erases. */
const everydayPart = fc.oneof(
  fc.constantFrom('\x1b[31m', '\x1b[0m', '\x1b[44m', '\x1b[K', '\x1b[2J\x1b[H', '\r\n'),
  printable.map((t) => t.slice(0, 200)),
);
const anyPart = fc.oneof(
  fc.constantFrom(...ESCAPES),
  printable.map((t) => t.slice(0, 200)),
  fc.integer({ min: 1, max: 60 }).map((n) => '\r\n'.repeat(n)),
);

async function settle(m: ScreenModel): Promise<void> {
  await m.whenParsed(() => undefined);
}

async function state(m: ScreenModel) {
  const snap = await m.snapshot();
  const end = m.history.endLine;
  const lines: string[] = [];
  for (let before = end; before > m.history.firstLine; ) {
    const page = m.history.read(before, 1000);
    lines.unshift(...page.lines);
    before = page.first;
  }
  return { snap, end, lines };
}

describe('ScreenModel plain-text skip', () => {
  it('leaves history, screen and offsets exactly as parsing every byte does (property)', async () => {
    let skippedRuns = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 10, max: 140 }),
        fc.integer({ min: 2, max: 50 }),
        fc.oneof(
          { arbitrary: fc.array(anyPart, { maxLength: 30 }), weight: 1 },
          { arbitrary: fc.array(everydayPart, { maxLength: 30 }), weight: 3 },
        ),
        fc.integer({ min: 0, max: 3 }).map((n) => n > 0),
        fc.array(
          fc
            .string({
              unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
              maxLength: 60,
            })
            .chain((t) => fc.integer({ min: 0, max: 5 }).map((k) => t.repeat(k + 1).slice(0, 400))),
          { minLength: 700, maxLength: 2000 },
        ),
        fc.integer({ min: 0, max: 999 }),
        fc.integer({ min: 0, max: 999 }),
        fc.boolean(),
        async (cols, rows, prefix, settleAtBottom, lines, cut, cut2, settleBetween) => {
          const enc = new TextEncoder();
          // Often end the prefix the way a shell leaves things before a flood: default attributes, at the
          // start of a fresh bottom row.
          const start = prefix.join('') + (settleAtBottom ? `\x1b[0m${'\r\n'.repeat(rows + 1)}` : '');
          const flood = enc.encode(lines.map((l) => `${l}\r\n`).join('') + (cut % 3 === 0 ? 'partial' : ''));
          const models = [true, false].map(
            (skip) => new ScreenModel(cols, rows, 0, { skipPlainFloods: skip }),
          );
          for (const m of models) {
            m.write(enc.encode(start));
            await settle(m);
            // Three chunks, as batches would arrive: the cuts land anywhere, inside a CR LF too; the third comes
            // while the second is being looked at, so it is merged with whatever of the second is queued.
            const [at, at2] = [cut, cut2]
              .map((c) => Math.floor((flood.byteLength * c) / 1000))
              .sort((a, b) => a - b);
            m.write(flood.subarray(0, at));
            if (settleBetween) await settle(m);
            m.write(flood.subarray(at, at2));
            m.write(flood.subarray(at2));
          }
          const [fast, full] = await Promise.all(models.map(state));
          if (models[0]!.skippedBytes > 0) skippedRuns++;
          expect(models[1]!.skippedBytes).toBe(0);
          expect(fast!.end).toBe(full!.end);
          expect(fast!.lines).toEqual(full!.lines);
          expect(fast!.snap).toEqual(full!.snap);
          for (const m of models) m.dispose();
        },
      ),
      { seed: 0x14, numRuns: 100 },
    );
    // The property is only worth something if the skip actually ran in a good share of the cases.
    expect(skippedRuns).toBeGreaterThanOrEqual(10);
  }, 120_000);
});
