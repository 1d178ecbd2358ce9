/**
 * Fitting the terminal to its box so the same box always gives the same size.
 *
 * xterm's DOM renderer rounds the screen's width to whole CSS pixels for the CURRENT column count and derives
 * the cell width from that (DomRenderer: css.cell.width = round(device.cell.width · cols / dpr) / cols), and
 * the fit addon proposes from that cell width. So a proposal depends on the size it is made from, and where a
 * column just fits it can flip: measured in Firefox at 3× on a 390 px phone, 80 → 47, then 47 → 48 on the next
 * fit, 48 → 47 on the one after — a spurious resize after every attach and a different size after rotating
 * back. Fitting here repeats the proposal until it stands still, and on a flip takes the smaller size, which
 * always fits.
 */

export interface Cells {
  readonly cols: number;
  readonly rows: number;
}

/** Proposals tried before settling (a stable size is normally reached in one or two). */
export const MAX_FIT_ROUNDS = 4;

const same = (a: Cells, b: Cells) => a.cols === b.cols && a.rows === b.rows;

/**
 * From `current`, resizes (through `resize`) to what `propose` says until it proposes the size it is at; a
 * proposal that returns to a size already tried ends at the smaller of the two. Returns the size it ends at.
 */
export function settleFit(
  current: Cells,
  propose: () => Cells | undefined,
  resize: (size: Cells) => void,
): Cells {
  const tried: Cells[] = [current];
  let size = current;
  for (let round = 0; round < MAX_FIT_ROUNDS; round++) {
    const next = propose();
    if (next === undefined || same(next, size)) return size;
    if (tried.some((t) => same(t, next))) {
      const smaller = { cols: Math.min(next.cols, size.cols), rows: Math.min(next.rows, size.rows) };
      if (!same(smaller, size)) resize(smaller);
      return smaller;
    }
    resize(next);
    tried.push(next);
    size = next;
  }
  return size;
}

/** The slice of xterm's Terminal and FitAddon that fitting uses. */
export interface Fittable {
  readonly cols: number;
  readonly rows: number;
  resize(cols: number, rows: number): void;
}

/** Fits `term` to its box with the fit addon's proposals, until they stand still (see the module comment). */
export function fitTerminal(term: Fittable, fit: { proposeDimensions(): Cells | undefined }): Cells {
  return settleFit(
    { cols: term.cols, rows: term.rows },
    () => fit.proposeDimensions(),
    (s) => term.resize(s.cols, s.rows),
  );
}

/** What xterm's DOM renderer and the fit addon measure (see the module comment), for `proposeScreen`. */
export interface ScreenMetrics {
  /** A cell in device pixels (xterm's `dimensions.device.cell`). */
  readonly deviceCellWidth: number;
  readonly deviceCellHeight: number;
  readonly dpr: number;
  /** CSS pixels available to the terminal (the box, less padding and the scrollbar, as the fit addon takes). */
  readonly width: number;
  readonly height: number;
}

/** The fit addon's proposal for a box, were xterm at `size`: xterm's CSS cell depends on its column count. */
export function proposeAt(m: ScreenMetrics, size: Cells): Cells {
  const cellWidth = Math.round((m.deviceCellWidth * size.cols) / m.dpr) / size.cols;
  const cellHeight = Math.round((m.deviceCellHeight * size.rows) / m.dpr) / size.rows;
  return {
    cols: Math.max(2, Math.floor(m.width / cellWidth)),
    rows: Math.max(1, Math.floor(m.height / cellHeight)),
  };
}

/**
 * The size `fitTerminal` would settle on for a box, without resizing anything: the terminal keeps the PTY's
 * size (which may be another viewer's) and this is the size the phone asks for (protocol R-SIZE-2/3).
 */
export function proposeScreen(m: ScreenMetrics, from: Cells): Cells {
  let size = from;
  return settleFit(
    from,
    () => proposeAt(m, size),
    (s) => {
      size = s;
    },
  );
}
