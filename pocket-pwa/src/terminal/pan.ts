/**
 * Looking around a PTY larger than the phone's screen (issue 22 item 9; protocol R-SIZE-8): the terminal keeps
 * the PTY's grid — never re-wrapped to the phone's width — and the screen is a window over it, moved by
 * dragging or the wheel, and by the cursor when it leaves the window (as tmux follows it). A pure model in CSS
 * pixels; the view applies it as a transform.
 *
 * Vertical drags are shared with xterm's own scrolling through history: the PTY's rows and the scrollback
 * above them read as one page. Dragging down (to see what is above) pans up to the screen's top row first,
 * then scrolls into history; dragging up scrolls back out of history first, then pans down to the bottom row.
 */

export interface Pan {
  /** Offset of the window into the grid. */
  readonly x: number;
  readonly y: number;
  /** How far it can go (0: the grid fits that way). */
  readonly maxX: number;
  readonly maxY: number;
}

export const NO_PAN: Pan = Object.freeze({ x: 0, y: 0, maxX: 0, maxY: 0 });

const clamp = (v: number, max: number) => Math.min(Math.max(0, v), max);

/** The window for a grid of `grid` px in a box of `box` px, keeping the offset where it can. */
export function panBounds(
  pan: Pan,
  grid: { width: number; height: number },
  box: { width: number; height: number },
): Pan {
  const maxX = Math.max(0, Math.round(grid.width - box.width));
  const maxY = Math.max(0, Math.round(grid.height - box.height));
  return { x: clamp(pan.x, maxX), y: clamp(pan.y, maxY), maxX, maxY };
}

/**
 * Moves the window by a drag of (`dx`, `dy`) px (finger motion: right and down are positive, so the window
 * moves the other way). `scrolledBack`: xterm shows history rather than its live screen. Returns the new pan
 * and how much of `dy` was left for xterm's scrolling (0 when the pan took it all).
 */
export function panBy(pan: Pan, dx: number, dy: number, scrolledBack: boolean): { pan: Pan; restY: number } {
  const x = clamp(pan.x - dx, pan.maxX);
  let y = pan.y;
  let restY = dy;
  if (dy > 0 && pan.y > 0) {
    // Towards the top: the screen's upper rows before history.
    y = clamp(pan.y - dy, pan.maxY);
    restY = dy - (pan.y - y);
  } else if (dy < 0 && !scrolledBack && pan.y < pan.maxY) {
    // Towards the bottom, out of history already: the screen's lower rows.
    y = clamp(pan.y - dy, pan.maxY);
    restY = dy + (y - pan.y);
  }
  return { pan: { ...pan, x, y }, restY };
}

/** The window moved as little as keeps the cell at (`left`, `top`, `width`, `height`) px inside it. */
export function follow(
  pan: Pan,
  cell: { left: number; top: number; width: number; height: number },
  box: { width: number; height: number },
): Pan {
  let { x, y } = pan;
  if (cell.left < x) x = cell.left;
  else if (cell.left + cell.width > x + box.width) x = cell.left + cell.width - box.width;
  if (cell.top < y) y = cell.top;
  else if (cell.top + cell.height > y + box.height) y = cell.top + cell.height - box.height;
  x = clamp(Math.round(x), pan.maxX);
  y = clamp(Math.round(y), pan.maxY);
  return x === pan.x && y === pan.y ? pan : { ...pan, x, y };
}
