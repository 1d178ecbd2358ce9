/**
 * Parking is lossless (issue 22 item 3): a model parked and woken at random points of a random stream — modes,
 * scroll regions, tab stops, alternate screen, resizes — equals one that never parked, cell for cell and mode
 * for mode, and its history is the same.
 */
import type { Terminal } from '@xterm/headless';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KittyKeyboardState } from '../src/screen/kitty-keyboard.js';
import { LIVE_SCROLLBACK_LINES, ScreenModel } from '../src/screen/screen-model.js';
import { dumpTerminal } from './terminal-dump.js';
import { smallSize, terminalPiece } from './terminal-streams.js';

/** The model's live terminal (private: read here only, to compare two models state for state). */
function liveOf(m: ScreenModel): { term: Terminal; kitty: KittyKeyboardState } {
  const live = (m as unknown as { live: { term: Terminal; kitty: KittyKeyboardState } | null }).live;
  if (live === null) throw new Error('the model is parked');
  return live;
}

const step = fc.oneof(
  { weight: 8, arbitrary: terminalPiece.map((p) => ({ kind: 'write' as const, data: p })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'park' as const }) },
  { weight: 1, arbitrary: smallSize.map((s) => ({ kind: 'resize' as const, ...s })) },
);

describe('ScreenModel parking (property)', () => {
  it('a parked and woken model equals one that never parked', async () => {
    await fc.assert(
      fc.asyncProperty(
        smallSize,
        fc.array(step, { minLength: 1, maxLength: 80 }),
        async ({ cols, rows }, steps) => {
          const plain = new ScreenModel(cols, rows);
          const parked = new ScreenModel(cols, rows);
          try {
            for (const s of steps) {
              if (s.kind === 'write') {
                const bytes = Buffer.from(s.data);
                plain.write(bytes);
                parked.write(Buffer.from(bytes));
              } else if (s.kind === 'resize') {
                plain.resize(s.cols, s.rows);
                parked.resize(s.cols, s.rows);
              } else {
                await plain.whenParsed(() => undefined);
                await parked.hibernate();
              }
            }
            const sa = await plain.snapshot();
            const sb = await parked.snapshot();
            // A write wakes a parked model; both get it.
            parked.write(Buffer.from('\x1b[m'));
            plain.write(Buffer.from('\x1b[m'));
            await plain.whenParsed(() => undefined);
            await parked.whenParsed(() => undefined);
            const a = liveOf(plain);
            const b = liveOf(parked);
            const opts = { links: false };
            expect(dumpTerminal(b.term, LIVE_SCROLLBACK_LINES, b.kitty, opts)).toEqual(
              dumpTerminal(a.term, LIVE_SCROLLBACK_LINES, a.kitty, opts),
            );
            expect(sb.offset).toBe(sa.offset);
            expect(parked.history.endLine).toBe(plain.history.endLine);
            const n = plain.history.endLine;
            if (n > 0) expect(parked.history.read(n, n).lines).toEqual(plain.history.read(n, n).lines);
          } finally {
            plain.dispose();
            parked.dispose();
          }
        },
      ),
      // A fixed seed, like the other property tests here, so `npm test` is the same run each time; other seeds
      // have found the differences restore-string.ts lists as known (its file comment): look for more by
      // running with another seed by hand.
      { seed: 2203, numRuns: 150 },
    );
    // ~10 s here; the bound is for a loaded machine. (A write xterm.js throws on inside its own timer never
    // calls back: seen once, an eraseInDisplay on a missing line; the bound keeps that from costing 10 min.)
  }, 180_000);
});
