/**
 * The lazy screen model (issue 26) is a cache of the output log and nothing else: a model handed the log's bytes
 * only at checkpoints — after random reads cut at random points, with snapshots, history pages, resizes and
 * parks in between, on either host — equals a model that parsed every read as it came, cell for cell and mode
 * for mode (the snapshot is the restore string, a function of the whole terminal state: restore-string.ts),
 * with the same history and offsets. Floods of plain text are mixed in so the plain-text skip runs inside
 * hand-overs (a flood behind escapes, a prompt behind a flood, a line cut by the hand-over's end). In some runs
 * the quiet timer is 1 ms and the stream pauses between reads, so checkpoints also come from the timer, cut
 * wherever a read ended (inside an escape sequence, a UTF-8 character, a CR LF); some run at 80×24.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { LazyScreen } from '../src/screen/lazy-screen.js';
import { LocalScreenHost } from '../src/screen/local-screen-host.js';
import type { ScreenHost } from '../src/screen/screen-host.js';
import { ScreenModel, type ScreenSnapshot } from '../src/screen/screen-model.js';
import { WorkerScreenHost } from '../src/screen/worker-screen-host.js';
import { OutputLog } from '../src/session/output-log.js';
import { smallSize, terminalPiece } from './terminal-streams.js';

const enc = new TextEncoder();

/**
 * Plain lines (what `seq`, `cat` of a log or base64 print), sometimes ending in an unfinished line; some empty,
 * some wider than the terminal (a skipped flood's history is cut into rows only when read: the rows must be
 * the ones xterm wraps).
 */
const flood = fc
  .tuple(
    fc.integer({ min: 350, max: 1500 }),
    fc.integer({ min: 0, max: 90 }),
    fc.integer({ min: 0, max: 2 ** 31 }),
    fc.boolean(),
  )
  .map(([lines, width, seed, unfinished]) => {
    let out = '';
    for (let i = 0; i < lines; i++) {
      const n = (seed + i * 7919) % (width + 1);
      out += n === 0 && seed % 2 === 1 ? '\r\n' : `${i} ${'abcdefghij'.repeat(10).slice(0, n)}\r\n`;
    }
    return unfinished ? `${out}$ ` : out;
  });

/**
 * Without ZWJ and ZWSP: xterm.js joins a zero-width character into the cell before it only when both come in
 * one write, so the same bytes cut differently give different cells — in any model fed by PTY reads, eager or
 * lazy (a lazy hand-over is larger, so it joins more often). Not a checkpoint's doing; left out here.
 */
const piece = terminalPiece.map((p) => p.replace(/[\u200b\u200d]/g, ''));

const step = fc.oneof(
  { weight: 10, arbitrary: piece.map((p) => ({ kind: 'write' as const, data: p })) },
  { weight: 2, arbitrary: flood.map((p) => ({ kind: 'write' as const, data: p })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'checkpoint' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'snapshot' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'park' as const }) },
  { weight: 1, arbitrary: smallSize.map((s) => ({ kind: 'resize' as const, ...s })) },
  // The event loop turns: with a 1 ms quiet timer, what waits is handed over here, wherever the last read ended.
  { weight: 2, arbitrary: fc.constant({ kind: 'pause' as const }) },
);

/** Mostly small (wrapping and scrolling within a short stream), sometimes the terminal programs assume. */
const size = fc.oneof(
  { weight: 4, arbitrary: smallSize },
  { weight: 1, arbitrary: fc.constant({ cols: 80, rows: 24 }) },
);

/** Every history line a screen holds, oldest first, read through `read` in pages. */
async function allHistory(
  end: number,
  read: (before: number, count: number) => Promise<{ first: number; lines: string[] }>,
): Promise<string[]> {
  const lines: string[] = [];
  for (let before = end; before > 0; ) {
    const page = await read(before, 1000);
    if (page.lines.length === 0) break;
    lines.unshift(...page.lines);
    before = page.first;
  }
  return lines;
}

const hosts: ScreenHost[] = [];
afterAll(() => {
  for (const h of hosts) h.dispose();
});

describe('LazyScreen (property)', () => {
  it('a model replayed from checkpoints equals one that parsed every read', async () => {
    let skipped = 0;
    let historyCompared = 0;
    let timerCheckpoints = 0;
    await fc.assert(
      fc.asyncProperty(
        size,
        fc.array(step, { minLength: 1, maxLength: 40 }),
        // Read sizes, used in turn: a PTY read is up to 64 KiB, often a few bytes.
        fc.array(fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 65536 })), {
          minLength: 1,
          maxLength: 20,
        }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.constantFrom('local', 'worker'),
        // Whether the quiet timer fires at the pauses (1 ms) or never inside a run.
        fc.boolean(),
        async ({ cols, rows }, steps, reads, checkpointBytes, hostKind, timer) => {
          // The reference: every read parsed as it comes, no skip.
          const full = new ScreenModel(cols, rows, 0, { skipPlainFloods: false });
          const log = new OutputLog({
            blockBytes: 4096,
            keepBytes: 4096,
            maxBytes: 16 * 1024 * 1024,
            floor: (): number => lazy.floor,
          });
          const options = { cols, rows, onProgress: () => {} };
          const host = hostKind === 'local' ? new LocalScreenHost(options) : new WorkerScreenHost(options);
          hosts.push(host);
          // Checkpoints come from the steps and the byte bound, and with `timer` from the quiet timer too.
          const quietMs = timer ? 1 : 3_600_000;
          const lazy: LazyScreen = new LazyScreen(log, host, { checkpointBytes, quietMs });
          let r = 0;
          // See `same` below.
          let widthChanged = false;
          const same = (a: ScreenSnapshot, b: ScreenSnapshot) => {
            if (!widthChanged) return expect(a).toEqual(b);
            // After a width change, which rows of a line cut by the history frontier went to history before
            // xterm reflowed it depends on when the model harvested (ScreenModel.harvest), in the eager model
            // too: one that parsed a read of 4 bytes and one that parsed the same bytes one by one differ there.
            // The screen, scrollback and modes (the restore string) must still match exactly.
            expect({ ...a, historyEnd: 0 }).toEqual({ ...b, historyEnd: 0 });
          };
          try {
            for (const s of steps) {
              if (s.kind === 'write') {
                const bytes = enc.encode(s.data);
                for (let at = 0; at < bytes.byteLength; ) {
                  const read = bytes.slice(at, at + reads[r++ % reads.length]!);
                  at += read.byteLength;
                  full.write(read);
                  log.append(read);
                  lazy.advance();
                }
              } else if (s.kind === 'checkpoint') {
                lazy.checkpoint();
              } else if (s.kind === 'pause') {
                const waiting = lazy.waiting;
                await new Promise((resolve) => setTimeout(resolve, 3));
                if (waiting > 0 && lazy.waiting === 0) timerCheckpoints++;
              } else if (s.kind === 'snapshot') {
                const [a, b] = await Promise.all([lazy.snapshot(), full.snapshot()]);
                same(a, b);
              } else if (s.kind === 'park') {
                // Both park: parking harvests the scrollback into history (lossless, but not invisible to a
                // snapshot's string: screen-model.park.property.test.ts), and that is not what is tested here.
                await Promise.all([lazy.hibernate(), full.hibernate()]);
              } else {
                if (s.cols !== lazy.cols) widthChanged = true;
                lazy.resize(s.cols, s.rows);
                full.resize(s.cols, s.rows);
              }
              // The log never dropped a byte the model had not been handed.
              expect(log.startOffset).toBeLessThanOrEqual(lazy.floor);
            }
            const [a, b] = await Promise.all([lazy.snapshot(), full.snapshot()]);
            same(a, b);
            expect(lazy.waiting).toBe(0);
            if (widthChanged) return;
            historyCompared++;
            const [ha, hb] = await Promise.all([
              allHistory(a.historyEnd, (before, count) => lazy.history(before, count)),
              allHistory(b.historyEnd, async (before, count) => full.history.read(before, count)),
            ]);
            expect(ha).toEqual(hb);
            if (host instanceof LocalScreenHost) skipped += host.skippedBytes;
          } finally {
            lazy.dispose();
            full.dispose();
            hosts.pop();
          }
        },
      ),
      // A fixed seed, like the other property tests here, so `npm test` is the same run each time; look for more
      // by running with another seed by hand (seeds 11, 12 and 13 at 1,000 runs each found nothing, 3 Dec 2026;
      // with floods taken into history whole, seeds 21, 22, 23, 31 and 32 at 1,000 runs each, 4 Dec 2026).
      { seed: 2626, numRuns: 300 },
    );
    // Worth something only if hand-overs did take the plain-text skip.
    expect(skipped).toBeGreaterThan(0);
    expect(historyCompared).toBeGreaterThanOrEqual(40);
    // And the quiet timer did hand over what waited, wherever the reads had stopped.
    expect(timerCheckpoints).toBeGreaterThanOrEqual(20);
  }, 600_000);
});
