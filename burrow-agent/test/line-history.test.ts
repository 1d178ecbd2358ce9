import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import {
  COMPRESS_AFTER_IDLE_MS,
  HISTORY_BLOCK_LINES,
  LineHistory,
  MAX_HISTORY_BYTES,
  MAX_HISTORY_LINES,
  MAX_HISTORY_PAGE,
} from '../src/screen/line-history.js';
import { LIVE_SCROLLBACK_LINES, ScreenModel } from '../src/screen/screen-model.js';
import { replay, screenLines, until } from './helpers.js';

describe('LineHistory', () => {
  it('pages lines back across blocks, before and after they are compressed off-thread', async () => {
    const h = new LineHistory();
    for (let i = 0; i < HISTORY_BLOCK_LINES * 3 + 10; i++) h.push(`line ${i}`);
    const early = h.read(HISTORY_BLOCK_LINES * 2 + 3, 300);
    const plainSize = h.byteSize;
    await until('blocks compressed', () => h.byteSize < plainSize / 2);
    expect(h.read(HISTORY_BLOCK_LINES * 2 + 3, 300)).toEqual(early);
    expect(early.lines[0]).toBe(`line ${HISTORY_BLOCK_LINES * 2 + 3 - 300}`);
    expect(h.endLine).toBe(HISTORY_BLOCK_LINES * 3 + 10);
    const page = h.read(HISTORY_BLOCK_LINES + 5, 10);
    expect(page.first).toBe(HISTORY_BLOCK_LINES - 5);
    expect(page.lines).toEqual(Array.from({ length: 10 }, (_, i) => `line ${HISTORY_BLOCK_LINES - 5 + i}`));
    expect(h.read(5, 100)).toEqual({ first: 0, lines: ['line 0', 'line 1', 'line 2', 'line 3', 'line 4'] });
    expect(() => h.read(0, MAX_HISTORY_PAGE + 1)).toThrow(RangeError);
    expect(() => h.read(-1, 1)).toThrow(RangeError);
  });
});

describe('LineHistory during a flood', () => {
  it('once full, never compresses blocks dropped before the output paused, and compresses the rest after', async () => {
    const h = new LineHistory();
    const total = MAX_HISTORY_LINES * 4;
    const blocksWhenFull = Math.ceil(MAX_HISTORY_LINES / HISTORY_BLOCK_LINES);
    for (let i = 0; i < total; i++) h.push(`flood line ${i}`);
    // Until history was full every block was compressed as it was sealed; the three histories' worth after
    // that only waited, and most of it has been dropped unread.
    expect(h.compressions).toBeLessThanOrEqual(blocksWhenFull + 1);
    expect(h.endLine - h.firstLine).toBeLessThanOrEqual(MAX_HISTORY_LINES + HISTORY_BLOCK_LINES);
    await until('compressed after the pause', () => h.compressions > blocksWhenFull + 1, 5_000);
    const kept = Math.ceil((h.endLine - h.firstLine) / HISTORY_BLOCK_LINES);
    await until('every kept block compressed', () => h.byteSize < kept * 2048, 10_000);
    expect(h.compressions).toBeLessThanOrEqual(blocksWhenFull + kept + 1);
    expect(h.read(total, 2).lines).toEqual([`flood line ${total - 2}`, `flood line ${total - 1}`]);
  });
});

/** Every line `h` holds, oldest first, in pages of `page`. */
function allLines(h: LineHistory, page = MAX_HISTORY_PAGE): string[] {
  const lines: string[] = [];
  for (let before = h.endLine; before > h.firstLine; ) {
    const p = h.read(before, page);
    lines.unshift(...p.lines);
    before = p.first;
  }
  return lines;
}

/** A flood's lines as the terminal gets them (CR LF), and the rows xterm cuts them into at `cols`. */
function flood(lines: string[], cols: number): { bytes: Buffer; rows: string[] } {
  const rows: string[] = [];
  for (const l of lines) {
    if (l.length === 0) rows.push('');
    for (let at = 0; at < l.length; at += cols) rows.push(l.slice(at, at + cols));
  }
  return { bytes: Buffer.from(lines.map((l) => `${l}\r\n`).join(''), 'latin1'), rows };
}

describe('LineHistory with floods taken whole', { timeout: 30_000 }, () => {
  // Empty lines, lines of exactly the width and lines that wrap into several rows.
  const lineOf = (i: number) => 'x0123456789'.repeat(5).slice(0, (i * 7) % 53);

  it('pages a flood block back row by row, as rows pushed one by one would be, compressed or not', async () => {
    const cols = 11;
    const eager = new LineHistory();
    const lazy = new LineHistory();
    let n = 0;
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 37 * round; i++) {
        eager.push(`line ${n}`);
        lazy.push(`line ${n++}`);
      }
      const f = flood(
        Array.from({ length: 300 + round * 50 }, (_, i) => lineOf(n + i)),
        cols,
      );
      n += 300 + round * 50;
      for (const r of f.rows) eager.push(r);
      lazy.pushFlood(f.bytes, cols, f.rows.length);
    }
    expect(lazy.endLine).toBe(eager.endLine);
    const expected = allLines(eager);
    expect(expected.length).toBe(eager.endLine);
    // Pages that start and end inside wrapped lines and across block edges.
    for (const page of [MAX_HISTORY_PAGE, 97, 1]) expect(allLines(lazy, page)).toEqual(expected);
    const plainSize = lazy.byteSize;
    await until('blocks compressed', () => lazy.byteSize < plainSize / 2);
    expect(allLines(lazy, 113)).toEqual(expected);
  });

  it('keeps exactly the newest MAX_HISTORY_LINES lines, however they came', () => {
    const cols = 40;
    const eager = new LineHistory();
    const lazy = new LineHistory();
    let n = 0;
    // Floods of ~20,000 rows between short runs of lines: the bound falls inside a flood block.
    while (eager.endLine < MAX_HISTORY_LINES * 2 + 12_345) {
      for (let i = 0; i < 100; i++) {
        eager.push(`prompt ${n}`);
        lazy.push(`prompt ${n++}`);
      }
      const f = flood(
        Array.from({ length: 15_000 }, (_, i) => `${n + i} ${lineOf(n + i)}`),
        cols,
      );
      n += 15_000;
      for (const r of f.rows) eager.push(r);
      lazy.pushFlood(f.bytes, cols, f.rows.length);
      expect(lazy.endLine).toBe(eager.endLine);
      expect(lazy.firstLine).toBe(Math.max(0, lazy.endLine - MAX_HISTORY_LINES));
      expect(eager.firstLine).toBe(lazy.firstLine);
    }
    const oldest = lazy.read(lazy.firstLine + 500, 500);
    expect(oldest).toEqual(eager.read(eager.firstLine + 500, 500));
    expect(oldest.first).toBe(lazy.firstLine);
    expect(lazy.read(lazy.endLine, 1000)).toEqual(eager.read(eager.endLine, 1000));
    expect(allLines(lazy)).toEqual(allLines(eager));
  });

  it('holds at most MAX_HISTORY_BYTES of a flood that hardly compresses, and compresses only what it keeps', async () => {
    const h = new LineHistory();
    // 16 MiB of base64 (76 columns, 1 MiB blocks as ScreenModel hands them over): deflate shrinks it to ~75 %.
    const cols = 76;
    let last = '';
    for (let i = 0; i < 16; i++) {
      const lines = randomBytes(768 * 1024)
        .toString('base64')
        .match(/.{1,76}/g)!;
      last = lines.at(-1)!;
      const f = flood(lines, cols);
      h.pushFlood(f.bytes, cols, f.rows.length);
    }
    // Until the byte bound first dropped a block (its 8th: each counts a quarter of its ~1.07 MB until
    // compressed), blocks were compressed at once; none after, while the flood went on.
    expect(h.compressions).toBeLessThanOrEqual(8);
    await until('compressed after the pause', () => h.byteSize <= MAX_HISTORY_BYTES, 10_000);
    expect(h.read(h.endLine, 1).lines).toEqual([last]);
    expect(h.compressions).toBeLessThan(12);
  });

  it('compresses what waits when the pause comes while a block from the flood is still deflating', async () => {
    const h = new LineHistory();
    const cols = 76;
    // Only the pause timer is faked, so it can fire while the deflates begun during the flood are in flight.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (let i = 0; i < 16; i++) {
        const lines = randomBytes(768 * 1024)
          .toString('base64')
          .match(/.{1,76}/g)!;
        const f = flood(lines, cols);
        h.pushFlood(f.bytes, cols, f.rows.length);
      }
      vi.advanceTimersByTime(COMPRESS_AFTER_IDLE_MS);
    } finally {
      vi.useRealTimers();
    }
    await until('compressed after the pause', () => h.byteSize <= MAX_HISTORY_BYTES, 10_000);
  });
});

describe('ScreenModel history', { timeout: 30_000 }, () => {
  it('moves lines older than the live window into history without loss, in order', async () => {
    const m = new ScreenModel(40, 10);
    const total = 5000;
    let data = '';
    for (let i = 0; i < total; i++) data += `\x1b[31mrow ${i}\x1b[0m\r\n`;
    // One big write: the model splits it so nothing scrolls past the harvest slack.
    m.write(Buffer.from(data));
    const snap = await m.snapshot();
    const h = m.history;
    expect(h.lost).toBe(0);
    const kept = h.endLine;
    // Everything not in the live scrollback + screen is in history.
    expect(kept).toBe(total + 1 - 10 - LIVE_SCROLLBACK_LINES);
    const all: string[] = [];
    for (let before = kept; before > 0; before -= 1000) all.unshift(...h.read(before, 1000).lines);
    expect(all).toEqual(Array.from({ length: kept }, (_, i) => `row ${i}`));
    expect(snap.historyEnd).toBe(kept);
    // The snapshot starts right where history ends.
    expect(snap.data.startsWith(`\x1b[31mrow ${kept}`)).toBe(true);
    m.dispose();
  });
});

describe('ScreenModel hibernation', { timeout: 30_000 }, () => {
  it('parks the normal screen as a string and wakes to the same screen, history intact', async () => {
    const m = new ScreenModel(60, 12);
    let data = '';
    for (let i = 0; i < 1000; i++) data += `\x1b[3${i % 8}mrow ${i}\x1b[0m\r\n`;
    m.write(Buffer.from(`${data}\x1b[1mprompt$ `));
    const before = await m.snapshot();
    expect(await m.hibernate()).toBe(true);
    expect(m.hibernated).toBe(true);
    const parked = await m.snapshot();
    expect(parked).toEqual(before);
    // New output wakes it; lines keep flowing into history with no gap or duplicate.
    let more = '';
    for (let i = 1000; i < 1600; i++) more += `row ${i}\r\n`;
    m.write(Buffer.from(`\r\n${more}`));
    const after = await m.snapshot();
    expect(m.hibernated).toBe(false);
    const t = await replay(after.data, 60, 12);
    expect(screenLines(t).at(-1)).toBe('');
    const h = m.history;
    const all: string[] = [];
    for (let b = h.endLine; b > 0; b -= 1000) all.unshift(...h.read(b, 1000).lines);
    const expected = Array.from({ length: h.endLine }, (_, i) =>
      i === 1000 ? 'prompt$ ' : `row ${i < 1000 ? i : i - 1}`,
    );
    expect(all).toEqual(expected);
    m.dispose();
  });

  it('parks a model showing the alternate screen too (the restore string carries it)', async () => {
    const m = new ScreenModel(40, 10);
    m.write(Buffer.from('\x1b[?1049hfull screen'));
    const before = await m.snapshot();
    expect(await m.hibernate()).toBe(true);
    m.write(Buffer.from('!'));
    const t = await replay((await m.snapshot()).data, 40, 10);
    expect(t.buffer.active.type).toBe('alternate');
    expect(screenLines(t)[0]).toBe('full screen!');
    expect(before.offset).toBe(19);
    m.dispose();
  });

  it('does not park inside an escape sequence or a UTF-8 character', async () => {
    const m = new ScreenModel(40, 10);
    m.write(Buffer.from('\x1b[3'));
    expect(await m.hibernate()).toBe(false);
    m.write(Buffer.from('1mred\xe2', 'latin1'));
    expect(await m.hibernate()).toBe(false);
    m.write(Buffer.from('\x9c\x85', 'latin1'));
    expect(await m.hibernate()).toBe(true);
    m.dispose();
  });
});
