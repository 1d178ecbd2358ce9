/**
 * Drawing part of a terminal's screen onto another terminal: the rows and columns of a headless xterm that fit
 * in a window, cell by cell with their attributes. `burrow attach` uses it when the local terminal and the
 * session differ in size (attach-view.ts): the session's grid is shown unwrapped and clipped, as tmux shows a
 * window larger than its client, instead of the PTY's bytes re-wrapped at the wrong width.
 *
 * Written here rather than taken from @xterm/addon-serialize: the serializer writes whole rows of the whole
 * buffer, with cursor moves relative to a terminal of the same width; a clipped window needs a column range of
 * each row, drawn at absolute positions.
 */
import type { IBufferCell, IBufferLine, Terminal } from '@xterm/headless';

export interface Window {
  /** First session column and row shown. */
  readonly x: number;
  readonly y: number;
  /** Columns and rows shown (at most the local terminal's). */
  readonly cols: number;
  readonly rows: number;
}

/**
 * Where a window of `view` cells over `total` should start so that `cursor` stays in it, moving as little as
 * possible from `current` (tmux follows the cursor the same way; a window that jumped to centre it on every
 * keystroke would be unreadable).
 */
export function follow(current: number, cursor: number, view: number, total: number): number {
  if (total <= view) return 0;
  let start = Math.min(Math.max(0, current), total - view);
  if (cursor < start) start = cursor;
  else if (cursor >= start + view) start = cursor - view + 1;
  return Math.min(Math.max(0, start), total - view);
}

/** SGR parameters for a cell's attributes ('' for the default look). */
export function sgrOf(cell: IBufferCell): string {
  const p: (number | string)[] = [];
  if (cell.isBold()) p.push(1);
  if (cell.isDim()) p.push(2);
  if (cell.isItalic()) p.push(3);
  if (cell.isUnderline()) p.push(4);
  if (cell.isBlink()) p.push(5);
  if (cell.isInverse()) p.push(7);
  if (cell.isInvisible()) p.push(8);
  if (cell.isStrikethrough()) p.push(9);
  if (cell.isOverline()) p.push(53);
  colour(p, cell.isFgRGB(), cell.isFgPalette(), cell.getFgColor(), 30);
  colour(p, cell.isBgRGB(), cell.isBgPalette(), cell.getBgColor(), 40);
  return p.join(';');
}

/** Appends a colour: `base` 30 (foreground) or 40 (background); palette 0–7, 8–15 (bright), 16–255, or RGB. */
function colour(p: (number | string)[], rgb: boolean, palette: boolean, value: number, base: number) {
  if (rgb) p.push(`${base + 8};2;${(value >> 16) & 0xff};${(value >> 8) & 0xff};${value & 0xff}`);
  else if (palette && value < 8) p.push(base + value);
  else if (palette && value < 16) p.push(base + 60 + value - 8);
  else if (palette) p.push(`${base + 8};5;${value}`);
}

/**
 * Columns `x` … `x + cols − 1` of one buffer line as text and SGR, starting from the default look and ending
 * in it. A wide character cut by either edge is drawn as a space in its colours, so nothing straddles the
 * window's edge and every row is exactly `cols` cells wide.
 */
export function renderRow(line: IBufferLine | undefined, x: number, cols: number, cell: IBufferCell): string {
  let out = '';
  let sgr = '';
  const setSgr = (next: string) => {
    if (next === sgr) return;
    out += `\x1b[0${next === '' ? '' : `;${next}`}m`;
    sgr = next;
  };
  let col = 0;
  while (col < cols) {
    const c = line?.getCell(x + col, cell);
    if (c === undefined) {
      setSgr('');
      out += ' ';
      col++;
      continue;
    }
    const width = c.getWidth();
    setSgr(sgrOf(c));
    if (width === 0 || (width === 2 && col === cols - 1)) {
      // The right half of a wide character whose left half is outside, or a wide character cut by the right edge.
      out += ' ';
      col++;
      continue;
    }
    out += c.getChars() || ' ';
    col += Math.max(1, width);
  }
  setSgr('');
  return out;
}

/** Every row of `window` over `term`'s active screen, each exactly `window.cols` cells (renderRow). */
export function renderWindow(term: Terminal, window: Window): string[] {
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  const rows: string[] = [];
  for (let r = 0; r < window.rows; r++)
    rows.push(renderRow(buffer.getLine(buffer.baseY + window.y + r), window.x, window.cols, cell));
  return rows;
}
