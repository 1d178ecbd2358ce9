import { describe, expect, it } from 'vitest';
import { type Cells, MAX_FIT_ROUNDS, proposeScreen, settleFit } from './stable-fit.js';

/**
 * xterm's DOM renderer as measured in Firefox at devicePixelRatio 3: a 7.833333492279053 px glyph, the screen
 * width rounded to whole CSS px for the current column count, 376 px available.
 */
function domRenderer(start: Cells, available = 376, devicePx = 7.833333492279053 * 3, dpr = 3) {
  let size = start;
  const resizes: Cells[] = [];
  return {
    propose: (): Cells => {
      const cell = Math.round((devicePx * size.cols) / dpr) / size.cols;
      return { cols: Math.floor(available / cell), rows: size.rows };
    },
    resize: (s: Cells) => {
      size = s;
      resizes.push(s);
    },
    resizes,
    get size() {
      return size;
    },
  };
}

describe('settleFit', () => {
  it('lands on one size whatever size it starts from, where one fit lands on 47 or 48', () => {
    // What one fit (the fit addon alone) does, as measured in Firefox.
    expect(domRenderer({ cols: 80, rows: 40 }).propose().cols).toBe(47);
    expect(domRenderer({ cols: 105, rows: 40 }).propose().cols).toBe(47);
    expect(domRenderer({ cols: 47, rows: 40 }).propose().cols).toBe(48);

    for (const cols of [80, 105, 47, 48, 20]) {
      const r = domRenderer({ cols, rows: 40 });
      expect(settleFit(r.size, r.propose, r.resize)).toEqual({ cols: 48, rows: 40 });
      expect(r.size).toEqual({ cols: 48, rows: 40 });
    }
  });

  it('a proposal that flips between two sizes ends at the smaller one', () => {
    let size: Cells = { cols: 80, rows: 40 };
    const flip = () => ({ cols: size.cols === 47 ? 48 : 47, rows: 40 });
    const resizes: Cells[] = [];
    const end = settleFit(size, flip, (s) => {
      size = s;
      resizes.push(s);
    });
    expect(end).toEqual({ cols: 47, rows: 40 });
    expect(size).toEqual({ cols: 47, rows: 40 });
    expect(resizes.map((s) => s.cols)).toEqual([47, 48, 47]);
  });

  it('a second fit of the same box changes nothing (no spurious resize after attach)', () => {
    const r = domRenderer({ cols: 80, rows: 40 });
    settleFit(r.size, r.propose, r.resize);
    const before = r.resizes.length;
    expect(settleFit(r.size, r.propose, r.resize)).toEqual({ cols: 48, rows: 40 });
    expect(r.resizes.length).toBe(before);
  });

  it('a stable proposal resizes once; no proposal (not measured yet) resizes nothing', () => {
    const resizes: Cells[] = [];
    const stable = () => ({ cols: 48, rows: 46 });
    expect(settleFit({ cols: 80, rows: 24 }, stable, (s) => resizes.push(s))).toEqual({ cols: 48, rows: 46 });
    expect(resizes).toEqual([{ cols: 48, rows: 46 }]);
    expect(
      settleFit(
        { cols: 80, rows: 24 },
        () => undefined,
        () => expect.fail('resized'),
      ),
    ).toEqual({
      cols: 80,
      rows: 24,
    });
  });

  it('stops after MAX_FIT_ROUNDS proposals even if they never repeat', () => {
    let n = 30;
    const resizes: Cells[] = [];
    settleFit(
      { cols: 80, rows: 24 },
      () => ({ cols: n++, rows: 24 }),
      (s) => resizes.push(s),
    );
    expect(resizes).toHaveLength(MAX_FIT_ROUNDS);
  });
});

describe('proposeScreen', () => {
  it('lands where fitting would, from any size the terminal has, without resizing it', () => {
    const metrics = {
      deviceCellWidth: 7.833333492279053 * 3,
      deviceCellHeight: 17 * 3,
      dpr: 3,
      width: 376,
      height: 600,
    };
    // The PTY may be any size (another viewer's): the proposal is the phone's own, the 48 settleFit reaches.
    for (const cols of [160, 80, 47, 48, 20]) {
      expect(proposeScreen(metrics, { cols, rows: 50 })).toEqual({ cols: 48, rows: 35 });
    }
  });
});
