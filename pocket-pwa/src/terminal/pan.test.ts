import { describe, expect, it } from 'vitest';
import { follow, NO_PAN, panBounds, panBy } from './pan.js';

const box = { width: 390, height: 600 };

describe('panning a PTY larger than the screen (protocol R-SIZE-8)', () => {
  it('bounds: nothing to pan when the grid fits; the offset is kept within the new bounds', () => {
    expect(panBounds(NO_PAN, { width: 380, height: 500 }, box)).toEqual(NO_PAN);
    const p = panBounds(NO_PAN, { width: 1000, height: 900 }, box);
    expect(p).toEqual({ x: 0, y: 0, maxX: 610, maxY: 300 });
    expect(panBounds({ ...p, x: 600, y: 250 }, { width: 800, height: 700 }, box)).toEqual({
      x: 410,
      y: 100,
      maxX: 410,
      maxY: 100,
    });
  });

  it('a sideways drag pans (the window moves against the finger), clamped at the edges', () => {
    const p = panBounds(NO_PAN, { width: 1000, height: 600 }, box);
    expect(panBy(p, -200, 0, false).pan.x).toBe(200); // finger to the left: see more on the right
    expect(panBy({ ...p, x: 200 }, 500, 0, false).pan.x).toBe(0);
    expect(panBy(p, -5000, 0, false).pan.x).toBe(610);
  });

  it('vertically, the screen’s rows and xterm’s history read as one page', () => {
    const p = { ...panBounds(NO_PAN, { width: 390, height: 900 }, box), y: 100 };
    // Finger down (look up): pan to the top row first, the rest scrolls history.
    expect(panBy(p, 0, 60, false)).toEqual({ pan: { ...p, y: 40 }, restY: 0 });
    expect(panBy(p, 0, 160, false)).toEqual({ pan: { ...p, y: 0 }, restY: 60 });
    // Finger up (look down): out of history first (xterm takes it all), then pan to the bottom rows.
    expect(panBy(p, 0, -50, true)).toEqual({ pan: p, restY: -50 });
    expect(panBy(p, 0, -50, false)).toEqual({ pan: { ...p, y: 150 }, restY: 0 });
    expect(panBy(p, 0, -500, false)).toEqual({ pan: { ...p, y: 300 }, restY: -300 });
    // At the top with nothing to pan: all of it is xterm's.
    expect(panBy({ ...p, y: 0 }, 0, 30, false).restY).toBe(30);
  });

  it('follows the cursor with as little movement as keeps it in view', () => {
    const p = panBounds(NO_PAN, { width: 1000, height: 900 }, box);
    const cell = (col: number, row: number) => ({ left: col * 8, top: row * 17, width: 8, height: 17 });
    expect(follow(p, cell(10, 5), box)).toBe(p); // already visible: unchanged
    expect(follow(p, cell(100, 5), box)).toMatchObject({ x: 808 - 390, y: 0 });
    expect(follow({ ...p, x: 400 }, cell(10, 5), box)).toMatchObject({ x: 80 });
    expect(follow(p, cell(0, 50), box)).toMatchObject({ y: 850 + 17 - 600 });
    expect(follow(p, cell(0, 60), box)).toMatchObject({ y: 300 }); // clamped to the grid
  });
});
