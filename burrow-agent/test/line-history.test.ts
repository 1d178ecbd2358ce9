import { describe, expect, it } from 'vitest';
import { HISTORY_BLOCK_LINES, LineHistory, MAX_HISTORY_PAGE } from '../src/screen/line-history.js';
import { LIVE_SCROLLBACK_LINES, ScreenModel } from '../src/screen/screen-model.js';
import { until } from './helpers.js';

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
