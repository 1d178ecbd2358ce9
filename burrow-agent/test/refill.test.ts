/**
 * A snapshot with the viewer's older lines in front (protocol R-ATTACH-8, src/screen/refill.ts): replayed into
 * an empty terminal it leaves every line the stream produced in order — the refilled ones as text — and the
 * screen, cursor and active buffer exactly as the stream itself does.
 */
import { describe, expect, it } from 'vitest';
import { refilledSnapshot } from '../src/screen/refill.js';
import { ScreenModel } from '../src/screen/screen-model.js';
import { replay, screenLines } from './helpers.js';

const COLS = 60;
const ROWS = 20;
const numbered = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `\x1b[3${(from + i) % 8}mn${from + i}\x1b[0m\r\n`).join('');

/** The model fed `stream`, its snapshot refilled from `refillFrom`, and the stream replayed as reference. */
async function refilled(stream: string, refillFrom: number, maxBytes = 16 * 1024 * 1024) {
  const model = new ScreenModel(COLS, ROWS);
  model.write(Buffer.from(stream));
  const snap = await model.snapshot();
  // History hands out at most MAX_HISTORY_PAGE lines a read, as the session pages it.
  const lines: string[] = [];
  let first = snap.historyEnd;
  while (first > refillFrom) {
    const page = model.history.read(first, Math.min(1000, first - refillFrom));
    if (page.lines.length === 0) break;
    lines.unshift(...page.lines);
    first = page.first;
  }
  const page = { first, lines };
  const out = refilledSnapshot(snap, page, maxBytes);
  const viewer = await replay(out.data, snap.cols, snap.rows);
  const reference = await replay(stream, COLS, ROWS);
  model.dispose();
  return { snap, page, out, viewer, reference };
}

function allLines(term: Awaited<ReturnType<typeof replay>>, buffer: 'normal' | 'active' = 'normal') {
  const b = buffer === 'normal' ? term.buffer.normal : term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < b.length; i++) lines.push(b.getLine(i)?.translateToString(true) ?? '');
  return lines;
}

describe('refilled snapshots (R-ATTACH-8)', () => {
  it('plain output: every line in order, the screen and cursor as the stream leaves them', async () => {
    const { snap, out, viewer, reference } = await refilled(`${numbered(1, 2000)}$ `, 0);
    expect(snap.historyEnd).toBeGreaterThan(1000); // most of it came from history
    expect(out.firstLine).toBe(0);
    expect(allLines(viewer)).toEqual(allLines(reference));
    expect(screenLines(viewer)).toEqual(screenLines(reference));
    expect([viewer.buffer.active.cursorX, viewer.buffer.active.cursorY]).toEqual([
      reference.buffer.active.cursorX,
      reference.buffer.active.cursorY,
    ]);
  });

  it('a full-screen program on the alternate screen: the normal buffer keeps every line behind it', async () => {
    const tui = '\x1b[?1049h\x1b[2J\x1b[H\x1b[1;31mTUI\x1b[0m\x1b[10;5Hbody\x1b[20;1Hstatus\x1b[5;7H';
    const { viewer, reference } = await refilled(`${numbered(1, 1500)}${tui}`, 0);
    expect(viewer.buffer.active.type).toBe('alternate');
    expect(screenLines(viewer)).toEqual(screenLines(reference));
    expect([viewer.buffer.active.cursorX, viewer.buffer.active.cursorY]).toEqual([6, 4]);
    expect(allLines(viewer, 'normal')).toEqual(allLines(reference, 'normal'));
  });

  it('after `clear` (no scrollback left in the model): the screen is exact, the old lines sit above it', async () => {
    const { page, out, viewer, reference } = await refilled(
      `${numbered(1, 1200)}\x1b[H\x1b[2J\x1b[3Jprompt$ ls\r\nfile\r\nprompt$ `,
      0,
    );
    expect(out.firstLine).toBe(0);
    expect(screenLines(viewer)).toEqual(screenLines(reference));
    expect([viewer.buffer.active.cursorX, viewer.buffer.active.cursorY]).toEqual([8, 2]);
    // Above the screen: exactly the refilled lines (a terminal would have dropped them; the viewer keeps
    // what it had, which is the point).
    const above = allLines(viewer).slice(0, viewer.buffer.normal.length - ROWS);
    expect(above).toEqual(page.lines);
    expect(above.slice(0, 800)).toEqual(Array.from({ length: 800 }, (_, i) => `n${i + 1}`));
  });

  it.each([
    [ROWS, 14],
    [ROWS, 30],
  ])(
    'R-ATTACH-5: right after a resize (%d → %d rows, no output since), history and snapshot meet exactly',
    async (from, to) => {
      // A shrink moves rows into scrollback, a grow pulls them back out, both without a harvest: the snapshot
      // must start where history ends, or the phone shows a gap (a shrink) or a repeat (a grow) there.
      const model = new ScreenModel(COLS, from);
      model.write(Buffer.from(numbered(1, 2000)));
      model.resize(COLS, to);
      const snap = await model.snapshot();
      const lines: string[] = [];
      let first = snap.historyEnd;
      while (first > 0) {
        const page = model.history.read(first, Math.min(1000, first));
        lines.unshift(...page.lines);
        first = page.first;
      }
      const out = refilledSnapshot(snap, { first, lines }, 1 << 24);
      const viewer = await replay(out.data, COLS, to);
      const numbers = allLines(viewer).filter((l) => /^n\d+$/.test(l));
      expect(numbers).toEqual(Array.from({ length: 2000 }, (_, i) => `n${i + 1}`));
      model.dispose();
    },
  );

  it('keeps the newest lines that fit the byte budget, and says where they start', async () => {
    const stream = `${numbered(1, 2000)}$ `;
    const whole = await refilled(stream, 0);
    const bytes = Buffer.byteLength(whole.snap.data);
    // Room for the snapshot, the prefix's tail and 100 lines of "n1xxx\r\n" (7 bytes each).
    const budget = bytes + whole.snap.rows * 2 + 3 + 100 * 7;
    const { out, viewer, reference } = await refilled(stream, 0, budget);
    expect(out.firstLine).toBe(whole.snap.historyEnd - 100);
    expect(allLines(viewer)).toEqual(allLines(reference).slice(out.firstLine));
    // No budget at all: the snapshot alone.
    const none = await refilled(stream, 0, 10);
    expect(none.out).toEqual({ data: none.snap.data, firstLine: none.snap.historyEnd });
  });

  it('refuses lines that do not end where the snapshot begins', async () => {
    const model = new ScreenModel(COLS, ROWS);
    model.write(Buffer.from(numbered(1, 1000)));
    const snap = await model.snapshot();
    expect(() => refilledSnapshot(snap, { first: 0, lines: ['a', 'b'] }, 1 << 20)).toThrow(RangeError);
    expect(refilledSnapshot(snap, null, 1 << 20)).toEqual({ data: snap.data, firstLine: snap.historyEnd });
    model.dispose();
  });
});
