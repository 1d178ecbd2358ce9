/**
 * The restore string: one escape-sequence string that, written into a fresh terminal of the same size, gives
 * it everything this terminal holds that changes how later bytes land or how input is encoded (DESIGN §6
 * "Snapshots"; protocol/SPEC.md R-ATTACH-2). A pure function of the terminal (plus the kitty keyboard state
 * xterm.js does not track), so it serves attach snapshots, parking, and later a replay checkpoint.
 *
 * Written by hand rather than with @xterm/addon-serialize (0.14), which leaves out the scroll region, tab
 * stops, cursor visibility and style, saved cursor, charsets, mouse encoding, LNM, underline style and colour,
 * hyperlinks, DECSCA and the title, re-sends DECKPAM as `CSI ? 66 h` (ignored by tmux and most terminals), and
 * prints a `-` into the screen to force a wrap it then fails to erase at the top of a scroll region (issue 22).
 *
 * Order matters and is fixed:
 *  1. OSC 1 / OSC 2: icon name and title.
 *  2. The normal buffer's scrollback and screen, printed cell by cell with a full-screen scroll region, no
 *     origin / insert mode and autowrap on (a fresh terminal's), so scrolling and wrapping behave exactly as
 *     they did: wrapped lines wrap again (their `isWrapped` flag returns), blank cells stay blank (CUF, or ECH
 *     for a coloured blank: BCE), each cell's SGR — colours in their exact mode (16 / 256 / RGB), bold, dim,
 *     italic, underline style `4:n`, blink, inverse, invisible, strike, overline, underline colour `58:…` —
 *     and its OSC 8 link.
 *  3. The normal buffer's tab stops (`CSI 3 g` + HTS per stop), scroll region (DECSTBM), kitty keyboard stack.
 *  4. With the alternate screen active: the normal buffer's saved cursor as the position, pen and charset
 *     DECSET 1049 saves, then `CSI ? 1049 h`, then the alternate screen's cells, tabs, region, kitty stack.
 *  5. The active buffer's saved cursor (DECSC: position, pen, charset) when it is not the initial one; on the
 *     normal screen also through `CSI ? 1049 h` + `l`, for terminals that keep 1049's apart (tmux).
 *  6. DECOM (`CSI ? 6 h`, which homes the cursor), then the cursor (CUP; a pending wrap — cursor past the last
 *     column — by printing the last cell again).
 *  7. Modes: IRM `CSI 4 h`, LNM `CSI 20 h`, DECAWM off `CSI ? 7 l`, reverse wrap `CSI ? 45 h`, DECCKM
 *     `CSI ? 1 h`, DECKPAM `ESC =`, mouse tracking `CSI ? 9/1000/1002/1003 h` and encoding `CSI ? 1006/1016 h`,
 *     focus reports `CSI ? 1004 h`, bracketed paste `CSI ? 2004 h`, DECTCEM off `CSI ? 25 l`, cursor style
 *     DECSCUSR `CSI n SP q`, cursor blink `CSI ? 12 h`.
 *  8. Charsets: G0–G3 designations (`ESC ( F` …) and the one in GL (SO, LS2, LS3).
 *  9. The current pen: SGR, OSC 8 link, DECSCA.
 *
 * Not carried (xterm.js does not track them, or they cannot be rebuilt): the title stack (xterm.js only pushes
 * with window options, off here), palette changes (OSC 4/10/11), the character REP (`CSI b`) would repeat, a
 * sequence cut in the middle by the snapshot's offset, the first line's wrapped flag (its start is older than
 * the snapshot), a GL charset that DECRC set apart from the designated one, and the lifetime of an open OSC 8
 * link (xterm.js drops it with the line it was opened on; the restored one lives on the line the cursor is on).
 * Rebuilt alike but not cell for cell: on the alternate screen, a pending wrap over a cell erased after it was
 * printed (a space in the blank's pen there, see cursorAndModes). Known to differ after a later resize: the
 * normal screen under an alternate one entered with DECSET 47 can reflow where the original did not (found by
 * screen-model.park.property.test.ts on some seeds).
 */
import type { IBufferCell, IBufferLine, Terminal } from '@xterm/headless';
import { type KittyKeyboardState, kittyRestore } from './kitty-keyboard.js';
import {
  type AttrData,
  BG_DIM,
  BG_HAS_EXTENDED,
  BG_ITALIC,
  BG_OVERLINE,
  BG_PROTECTED,
  type Charset,
  CM_MASK,
  CM_P16,
  CM_P256,
  CM_RGB,
  charsetFinal,
  FG_BLINK,
  FG_BOLD,
  FG_INVERSE,
  FG_INVISIBLE,
  FG_STRIKETHROUGH,
  FG_UNDERLINE,
  type InternalBuffer,
  internals,
  type TerminalInternals,
} from './xterm-internals.js';

export interface RestoreOptions {
  /** Most normal-buffer lines above the screen to carry. */
  readonly scrollback: number;
  /** The kitty keyboard flags (xterm.js does not track them: kitty-keyboard.ts). */
  readonly kitty?: KittyKeyboardState;
}

/**
 * A cell's or the cursor's attributes, normalized: what a fresh terminal ends up with after the SGR / OSC 8 /
 * DECSCA this file writes for it.
 */
export interface Pen {
  /** xterm's fg word: colour mode and value, bold, underline flag, blink, inverse, invisible, strike. */
  readonly fg: number;
  /** xterm's bg word without its "has extended attributes" bit: colour, italic, dim, protected, overline. */
  readonly bg: number;
  /** Underline style: 0 none, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed. */
  readonly ul: number;
  /** Underline colour word (colour mode and value); 0 = the foreground's. */
  readonly ulColor: number;
  /** OSC 8 link id in this terminal's link table; 0 = none. */
  readonly link: number;
}

export const DEFAULT_PEN: Pen = { fg: 0, bg: 0, ul: 0, ulColor: 0, link: 0 };
const COLOUR_BITS = CM_MASK | 0xffffff;
/** The bg bits an erase (ECH, ED, EL, scroll) copies from the pen: xterm's `_eraseAttrData` (BCE). */
const ERASE_BITS = COLOUR_BITS;
const UNDERLINE_STYLE_BITS = 0x1c000000;

/**
 * `attr`'s pen. `cursorPen`: the terminal's current (or saved) attributes, whose extended part is meaningful
 * even without the "has extended" bit (an SGR 58 before any SGR 4 is kept there); a cell's is not.
 */
export function penOf(attr: AttrData, cursorPen = false): Pen {
  const fg = paletteClean(attr.fg);
  const hasExt = cursorPen || (attr.bg & BG_HAS_EXTENDED) !== 0;
  // The raw style bits: xterm's `underlineStyle` getter answers "dashed" for any cell with a link.
  const ext = attr.extended as unknown as { _ext?: number; underlineStyle: number };
  const style = typeof ext._ext === 'number' ? (ext._ext & UNDERLINE_STYLE_BITS) >>> 26 : ext.underlineStyle;
  const ul = (fg & FG_UNDERLINE) === 0 ? 0 : hasExt && style > 0 ? style : 1;
  return {
    fg,
    bg: paletteClean(attr.bg & ~BG_HAS_EXTENDED),
    ul,
    // A cell's underline colour means nothing without an underline (xterm.js drops it unless the cell has
    // other extended attributes); the pen's is kept for the next SGR 4.
    ulColor: hasExt && (cursorPen || ul !== 0) ? paletteClean(attr.extended.underlineColor & COLOUR_BITS) : 0,
    link: hasExt ? attr.extended.urlId : 0,
  };
}

/**
 * A colour word without the bytes a palette colour does not use: xterm.js keeps an earlier RGB colour's green
 * and red bytes under a later `38;5;n` (they are never read).
 */
function paletteClean(word: number): number {
  const mode = word & CM_MASK;
  return (
    (mode === CM_P16 || mode === CM_P256 ? word & ~0xffff00 : mode === 0 ? word & ~0xffffff : word) >>> 0
  );
}

export function samePen(a: Pen, b: Pen): boolean {
  return a.fg === b.fg && a.bg === b.bg && a.ul === b.ul && a.ulColor === b.ulColor && a.link === b.link;
}

/** The on/off attributes and the SGR parameter that sets each (SGR 0 is how this file turns them off). */
const FLAG_SGR: readonly (readonly [word: 'fg' | 'bg', bit: number, sgr: string])[] = [
  ['fg', FG_BOLD, '1'],
  ['bg', BG_DIM, '2'],
  ['bg', BG_ITALIC, '3'],
  ['fg', FG_BLINK, '5'],
  ['fg', FG_INVERSE, '7'],
  ['fg', FG_INVISIBLE, '8'],
  ['fg', FG_STRIKETHROUGH, '9'],
  ['bg', BG_OVERLINE, '53'],
];

/** One bit per FLAG_SGR entry. */
function flagsOf(p: Pen): number {
  let f = 0;
  FLAG_SGR.forEach(([word, bit], i) => {
    if ((p[word] & bit) !== 0) f |= 1 << i;
  });
  return f;
}

function colourParams(word: number, base: number, bright: number, extended: number): string {
  const v = word & 0xffffff;
  switch (word & CM_MASK) {
    case CM_P16:
      return String((v & 0xff) < 8 ? base + (v & 0xff) : bright + (v & 0xff) - 8);
    case CM_P256:
      return `${extended};5;${v & 0xff}`;
    case CM_RGB:
      return `${extended};2;${(v >>> 16) & 0xff};${(v >>> 8) & 0xff};${v & 0xff}`;
    default:
      return String(extended + 1);
  }
}

function ulColourParams(word: number): string {
  const v = word & 0xffffff;
  // Colon forms: a terminal that does not know SGR 58 skips the whole group instead of reading `5` as blink.
  if ((word & CM_MASK) === CM_RGB) return `58:2::${(v >>> 16) & 0xff}:${(v >>> 8) & 0xff}:${v & 0xff}`;
  return `58:5:${v & 0xff}`;
}

/** SGR parameters that set `p` on a terminal whose pen is SGR 0. */
function fullSgr(p: Pen): string[] {
  const out = flagParams(flagsOf(p));
  if (p.ul !== 0) out.push(p.ul === 1 ? '4' : `4:${p.ul}`);
  if (p.fg & CM_MASK) out.push(colourParams(p.fg, 30, 90, 38));
  if (p.bg & CM_MASK) out.push(colourParams(p.bg, 40, 100, 48));
  if (p.ulColor & CM_MASK) out.push(ulColourParams(p.ulColor));
  return out;
}

function flagParams(flags: number): string[] {
  const out: string[] = [];
  FLAG_SGR.forEach(([, , sgr], i) => {
    if ((flags & (1 << i)) !== 0) out.push(sgr);
  });
  return out;
}

/** Collects the string and follows the pen the fresh terminal has. */
class Writer {
  readonly parts: string[] = [];
  pen: Pen = DEFAULT_PEN;

  constructor(private readonly st: TerminalInternals) {}

  put(s: string): void {
    this.parts.push(s);
  }

  setPen(p: Pen): void {
    const old = this.pen;
    if (samePen(old, p)) return;
    if (old.link !== p.link) this.put(this.linkSequence(p.link));
    const oldFlags = flagsOf(old);
    const newFlags = flagsOf(p);
    // Anything that is switched off, and an underline colour back to default (xterm.js 6.0 stores SGR 59 as
    // RGB white), go through SGR 0.
    const reset =
      (oldFlags & ~newFlags) !== 0 ||
      (old.ul !== 0 && p.ul === 0) ||
      ((old.ulColor & CM_MASK) !== 0 && (p.ulColor & CM_MASK) === 0);
    let params: string[];
    if (reset) {
      params = ['0', ...fullSgr(p)];
    } else {
      params = [];
      params = flagParams(newFlags & ~oldFlags);
      if (p.ul !== old.ul) params.push(p.ul === 1 ? '4' : `4:${p.ul}`);
      if ((p.fg & COLOUR_BITS) !== (old.fg & COLOUR_BITS)) params.push(colourParams(p.fg, 30, 90, 38));
      if ((p.bg & COLOUR_BITS) !== (old.bg & COLOUR_BITS)) params.push(colourParams(p.bg, 40, 100, 48));
      if (p.ulColor !== old.ulColor) params.push(ulColourParams(p.ulColor));
    }
    if (params.length > 0) this.put(`\x1b[${params.join(';')}m`);
    // DECSCA: SGR 0 clears the protected bit with the rest of bg.
    const wasProtected = reset ? false : (old.bg & BG_PROTECTED) !== 0;
    const isProtected = (p.bg & BG_PROTECTED) !== 0;
    if (wasProtected !== isProtected) this.put(`\x1b[${isProtected ? 1 : 0}"q`);
    this.pen = p;
  }

  private linkSequence(id: number): string {
    if (id === 0) return '\x1b]8;;\x1b\\';
    const data = this.st.link(id);
    if (data === undefined) return '\x1b]8;;\x1b\\';
    const params = data.id === undefined ? '' : `id=${clean(data.id)}`;
    return `\x1b]8;${params};${clean(data.uri)}\x1b\\`;
  }
}

/** Text for inside an OSC: no control characters (they would end or corrupt the sequence). */
function clean(s: string): string {
  return s.replace(/[\x00-\x1f\x7f-\x9f]/g, '');
}

type Cell = IBufferCell & AttrData;

/** A cell with no text whose attributes are exactly what an erase leaves (bg colour only). */
function isEraseCell(cell: Cell): boolean {
  return (
    cell.fg === 0 && (cell.bg & ~ERASE_BITS & ~BG_HAS_EXTENDED) === 0 && (cell.bg & BG_HAS_EXTENDED) === 0
  );
}

/**
 * Prints lines `from`..`to` of `buffer` starting at the cursor of a fresh screen (row 0 for the normal buffer,
 * home for the alternate one). `scrolls`: every line must be printed, empty or not, so that exactly the lines
 * that were scrollback scroll off the top; otherwise trailing empty lines are left out.
 */
function writeLines(
  w: Writer,
  term: Terminal,
  which: 'normal' | 'alternate',
  from: number,
  to: number,
  scrolls: boolean,
): void {
  const buffer = which === 'normal' ? term.buffer.normal : term.buffer.alternate;
  const cols = term.cols;
  const cell = buffer.getNullCell() as Cell;
  let last = to;
  if (!scrolls) {
    while (last >= from && lineIsBlank(buffer.getLine(last), cell, cols)) last--;
  }
  // Column of the terminal's cursor within the row being written.
  let cx = 0;
  /** The previous line's wrap left a placeholder in this line's first columns: how many. */
  let rewriteFirst = 0;
  /** This line may hold a background no cell of the original has: write its default blanks too. */
  let rewriteBlanks = false;
  // Absolute moves (CHA), not relative ones: a viewer whose terminal gives some glyph another width than the
  // model did (tmux joins a ZWJ sequence into one cell) still puts what follows a gap where the program put it.
  const moveTo = (x: number) => {
    if (x > cx) w.put(`\x1b[${x + 1}G`);
    cx = x;
  };
  for (let y = from; y <= last; y++) {
    const line = buffer.getLine(y)!;
    const next = y < last ? buffer.getLine(y + 1) : undefined;
    const wrapsOn = next?.isWrapped === true;
    // The last cell is written by the wrap logic below when the next line continues this one.
    let end = cols;
    let endFill: Pen | null = null;
    let naturalWideWrap = false;
    /** The last column is a blank only a wide character that did not fit can leave (its pen has more than a
     * background): made that way again, with a wide placeholder. */
    let padPen: Pen | null = null;
    if (wrapsOn) {
      const lastCell = line.getCell(cols - 1, cell) as Cell;
      if (lastCell.getChars() === '' && lastCell.getWidth() === 1) {
        const lastPen = penOf(lastCell);
        const lastIsErase = isEraseCell(lastCell);
        const firstNext = next!.getCell(0, cell) as Cell;
        // A wide character that did not fit blanks the last column with its own pen.
        if (firstNext.getWidth() === 2 && samePen(penOf(firstNext), lastPen)) naturalWideWrap = true;
        else if (!lastIsErase && cols >= 3) padPen = lastPen;
        else endFill = lastPen;
        end = cols - 1;
      }
    }
    writeCells(w, line, cell, end, cols, rewriteFirst, rewriteBlanks, moveTo, (x) => {
      cx = x;
    });
    rewriteFirst = 0;
    rewriteBlanks = false;
    if (y === last) break;
    if (wrapsOn) {
      if (padPen !== null) {
        // The wide character that left that blank has since been overwritten on the next line: a wide
        // placeholder printed in the pen does the same (blank, wrap, the next line marked wrapped), and the
        // next line's first two columns, which it covers, are then written as they are.
        moveTo(cols - 1);
        w.setPen(padPen);
        w.put(`${WIDE}\r`);
        cx = 0;
        rewriteFirst = 2;
        rewriteBlanks = (padPen.bg & COLOUR_BITS) !== 0;
        continue;
      }
      if (naturalWideWrap) {
        // A wide character that did not fit in the last column: it wraps again, leaving that column blank
        // in its pen. A line that wrap scrolls in takes the pen's background (BCE): its blanks are then
        // all written.
        moveTo(cols - 1);
        rewriteBlanks = (penOf(next!.getCell(0, cell) as Cell).bg & COLOUR_BITS) !== 0;
        continue;
      }
      // Not past the last column yet (its cell is blank, or a reflow left a wide character hanging past it,
      // which no output can make: it comes back blank): a placeholder there gets it past.
      if (cx < cols) {
        endFill ??= DEFAULT_PEN;
        moveTo(cols - 1);
        defaultBackground(w);
        w.put(' ');
        cx = cols;
      }
      // The cursor is past the last column: a placeholder printed now wraps, marking the next line wrapped
      // (with the default background: a line the wrap scrolls in takes the pen's, BCE). The next line is then
      // written from its first column, the placeholder's included.
      defaultBackground(w);
      w.put(' ');
      if (endFill !== null) {
        // Blank the placeholder in the last column (ECH with its colour, or the default one).
        w.put(`\x1b[A\x1b[${cols}G`);
        w.setPen({ ...w.pen, bg: (w.pen.bg & ~COLOUR_BITS) | (endFill.bg & COLOUR_BITS) });
        w.put('\x1b[X\x1b[B');
      }
      w.put('\r');
      cx = 0;
      rewriteFirst = 1;
      continue;
    }
    // A line feed at the bottom scrolls in a line of the pen's background (BCE): default it first.
    defaultBackground(w);
    w.put('\r\n');
    cx = 0;
  }
}

/** Writes cells `[0, end)` of a line from its first column. */
function writeCells(
  w: Writer,
  line: IBufferLine,
  cell: Cell,
  end: number,
  cols: number,
  /** Leading columns to write even when they are default blanks (a placeholder is there). */
  rewriteFirst: number,
  rewriteBlanks: boolean,
  moveTo: (x: number) => void,
  setCx: (x: number) => void,
): void {
  // A run of coloured blanks waiting to be erased in one ECH.
  let runStart = -1;
  let runBg = 0;
  const flushRun = (upTo: number) => {
    if (runStart < 0) return;
    moveTo(runStart);
    w.setPen({ ...w.pen, bg: (w.pen.bg & ~COLOUR_BITS) | runBg });
    const n = upTo - runStart;
    w.put(n === 1 ? '\x1b[X' : `\x1b[${n}X`);
    runStart = -1;
  };
  /** A column a placeholder was printed into: written even if it is a default blank. */
  let mustWrite = rewriteFirst;
  for (let x = 0; x < end; x++) {
    line.getCell(x, cell);
    const width = cell.getWidth();
    if (width === 0) continue;
    const chars = cell.getChars();
    if (chars === '') {
      const bg = paletteClean(cell.bg & COLOUR_BITS);
      if (!isEraseCell(cell) && cols >= 3) {
        flushRun(x);
        blankWithPen(w, line, cell, x, cols);
        setCx(x + 1);
        if (x === 0) mustWrite = Math.max(mustWrite, 2);
        continue;
      }
      if (isEraseCell(cell) && bg === 0 && x >= mustWrite && !rewriteBlanks) {
        flushRun(x);
        continue;
      }
      if (runStart >= 0 && bg !== runBg) flushRun(x);
      if (runStart < 0) {
        runStart = x;
        runBg = bg;
      }
      continue;
    }
    flushRun(x);
    if (x + width > cols) break;
    moveTo(x);
    w.setPen(penOf(cell));
    w.put(chars);
    setCx(x + width);
  }
  flushRun(end);
}

/** A wide placeholder, U+4E00 (two columns in every width table). */
const WIDE = '\u4e00';

/**
 * A blank cell holding attributes an erase never leaves (a wide character's other half, overwritten: xterm
 * blanks it with the pen of what overwrote it). Made the way it was: a wide placeholder, its left half
 * overwritten by a space in the cell's pen, then the column left of it written again. Absolute column moves
 * (CHA): a relative one from past the last column counts from the last column. Leaves the cursor after `x`.
 */
function blankWithPen(w: Writer, line: IBufferLine, cell: Cell, x: number, cols: number): void {
  const pen = penOf(cell);
  if (x === 0) {
    // Overwriting a wide character's right half blanks its left half (column 0) with the pen; column 1 is
    // then written by the caller (mustWrite).
    w.put(`\x1b[1G${WIDE}\x1b[2G`);
    w.setPen(pen);
    w.put(' \x1b[2G');
    return;
  }
  w.put(`\x1b[${x}G${WIDE}\x1b[${x}G`);
  w.setPen(pen);
  // The end of this print run blanks column x, the right half of the placeholder, with the pen.
  w.put(` \x1b[${x}G`);
  // Column x - 1 again, as it was.
  const prev = line.getCell(x - 1, cell) as Cell;
  if (prev.getWidth() === 0 && x >= 2) {
    const wide = line.getCell(x - 2, cell) as Cell;
    w.put(`\x1b[${x - 1}G`);
    w.setPen(penOf(wide));
    w.put(wide.getChars());
  } else if (prev.getChars() !== '') {
    w.setPen(penOf(prev));
    w.put(prev.getChars());
  } else {
    const bg = paletteClean(prev.bg & COLOUR_BITS);
    w.setPen({ ...w.pen, bg: (w.pen.bg & ~COLOUR_BITS) | bg });
    w.put('\x1b[X');
  }
  // After column x (at the last column, on it: a line feed or the wrap logic comes next).
  w.put(`\x1b[${Math.min(x + 2, cols)}G`);
}

function lineIsBlank(line: IBufferLine | undefined, cell: Cell, cols: number): boolean {
  if (line === undefined) return true;
  if (line.isWrapped) return false;
  for (let x = 0; x < cols; x++) {
    line.getCell(x, cell);
    if (cell.getChars() !== '' || !isEraseCell(cell) || (cell.bg & COLOUR_BITS) !== 0) return false;
  }
  return true;
}

function defaultBackground(w: Writer): void {
  if ((w.pen.bg & COLOUR_BITS) !== 0) w.setPen({ ...w.pen, bg: w.pen.bg & ~COLOUR_BITS });
}

/** True when `tabs` holds exactly xterm's initial stops (every 8 columns from 0). */
function defaultTabs(tabs: InternalBuffer['tabs'], cols: number): boolean {
  for (let x = 0; x < cols; x++) if (Boolean(tabs[x]) !== (x % 8 === 0)) return false;
  return true;
}

function tabsAndRegion(w: Writer, buf: InternalBuffer, cols: number, rows: number): void {
  if (!defaultTabs(buf.tabs, cols)) {
    w.put('\x1b[3g');
    for (let x = 0; x < cols; x++) if (buf.tabs[x]) w.put(`\x1b[${x + 1}G\x1bH`);
  }
  if (buf.scrollTop !== 0 || buf.scrollBottom !== rows - 1) {
    w.put(`\x1b[${buf.scrollTop + 1};${buf.scrollBottom + 1}r`);
  }
}

/** Puts the cursor, pen and GL charset where a DECSC would save `buf`'s saved cursor. */
function toSavedCursor(w: Writer, term: Terminal, buf: InternalBuffer, saved: Charset | undefined): void {
  const row = Math.max(0, buf.savedY - buf.ybase);
  const col = Math.min(buf.savedX, term.cols - 1);
  w.put(`\x1b[${row + 1};${col + 1}H`);
  w.setPen(penOf(buf.savedCurAttrData));
  const final = charsetFinal(term, saved);
  if (final !== 'B') w.put(`\x1b(${final}`);
}

function savedCursorIsInitial(buf: InternalBuffer): boolean {
  const a = buf.savedCurAttrData;
  return (
    buf.savedX === 0 && buf.savedY <= buf.ybase && a.fg === 0 && a.bg === 0 && buf.savedCharset === undefined
  );
}

function cursorAndModes(w: Writer, term: Terminal, st: TerminalInternals): void {
  const modes = term.modes;
  const buf = st.altActive ? st.alt : st.normal;
  const cols = term.cols;
  const buffer = term.buffer.active;
  // 6. Origin mode homes the cursor, so it comes first; CUP is then relative to the scroll region.
  const top = modes.originMode ? buf.scrollTop : 0;
  if (modes.originMode) w.put('\x1b[?6h');
  const x = buf.x;
  const y = buf.y;
  let pendingWrap = false;
  if (x >= cols) {
    // Past the last column: print the last cell again so the next character wraps, as it would have.
    const line = buffer.getLine(buffer.baseY + y);
    const cell = buffer.getNullCell() as Cell;
    let at = cols - 1;
    if (line?.getCell(at, cell)?.getWidth() === 0) at = cols - 2;
    const c = line?.getCell(at, cell) as Cell | undefined;
    if (c !== undefined && c.getChars() !== '') {
      w.put(`\x1b[${y - top + 1};${at + 1}H`);
      w.setPen(penOf(c));
      w.put(c.getChars());
      pendingWrap = true;
    }
  }
  if (!pendingWrap && x >= cols && !st.altActive) {
    // Past the last column over a blank cell (an erase after the last column was printed): print a
    // placeholder there on the alternate screen, whose cursor the normal buffer takes back on DECRST 1047 —
    // without its cells.
    w.put(`\x1b[?1047h\x1b[${y + 1};${cols}H \x1b[?1047l`);
    pendingWrap = true;
  }
  if (!pendingWrap && x >= cols) {
    // The same on the alternate screen itself (top and htop end their last row this way), which has no other
    // screen to borrow: a space in the blank cell's own pen looks the same (its background is the erase's)
    // and leaves the wrap pending, so the program's next character lands where it would have. The cell then
    // holds a space rather than nothing, which only a copy of trailing blanks could tell.
    const line = buffer.getLine(buffer.baseY + y);
    const cell = line?.getCell(cols - 1, buffer.getNullCell() as Cell) as Cell | undefined;
    w.put(`\x1b[${y - top + 1};${cols}H`);
    if (cell !== undefined) w.setPen(penOf(cell));
    w.put(' ');
    pendingWrap = true;
  }
  if (!pendingWrap) w.put(`\x1b[${y - top + 1};${Math.min(x, cols - 1) + 1}H`);
  // 7. Modes.
  let m = '';
  if (modes.insertMode) m += '\x1b[4h';
  if (st.convertEol) m += '\x1b[20h';
  if (!modes.wraparoundMode) m += '\x1b[?7l';
  if (modes.reverseWraparoundMode) m += '\x1b[?45h';
  if (modes.applicationCursorKeysMode) m += '\x1b[?1h';
  // DECKPAM, not DECSET 66 (DECNKM), which tmux and many terminals ignore.
  if (modes.applicationKeypadMode) m += '\x1b=';
  switch (modes.mouseTrackingMode) {
    case 'x10':
      m += '\x1b[?9h';
      break;
    case 'vt200':
      m += '\x1b[?1000h';
      break;
    case 'drag':
      m += '\x1b[?1002h';
      break;
    case 'any':
      m += '\x1b[?1003h';
      break;
  }
  if (st.mouseEncoding === 'SGR') m += '\x1b[?1006h';
  else if (st.mouseEncoding === 'SGR_PIXELS') m += '\x1b[?1016h';
  if (modes.sendFocusMode) m += '\x1b[?1004h';
  if (modes.bracketedPasteMode) m += '\x1b[?2004h';
  if (st.cursorHidden) m += '\x1b[?25l';
  if (st.cursorStyle !== undefined) {
    const base = st.cursorStyle === 'block' ? 1 : st.cursorStyle === 'underline' ? 3 : 5;
    m += `\x1b[${base + (st.cursorStyleBlink ? 0 : 1)} q`;
  }
  if (st.cursorBlinkOption) m += '\x1b[?12h';
  w.put(m);
  // 8. Charsets, then which one is in GL (SO = G1, LS2 = G2, LS3 = G3).
  const intro = ['(', ')', '*', '+'];
  for (let g = 0; g < 4; g++) {
    const cs = st.charsets[g];
    if (cs !== undefined) w.put(`\x1b${intro[g]}${charsetFinal(term, cs)}`);
  }
  if (st.glevel === 1) w.put('\x0e');
  else if (st.glevel === 2) w.put('\x1bn');
  else if (st.glevel === 3) w.put('\x1bo');
  // 9. The pen.
  w.setPen(penOf(st.pen, true));
}

/** The restore string for `term` (see the file comment for what it carries, in what order). */
export function restoreString(term: Terminal, options: RestoreOptions): string {
  if (!Number.isSafeInteger(options.scrollback) || options.scrollback < 0) {
    throw new RangeError('scrollback must be a non-negative integer');
  }
  const st = internals(term);
  const w = new Writer(st);
  const { cols, rows } = term;
  // 1. Titles.
  if (st.iconName !== '' && st.iconName !== st.title) w.put(`\x1b]1;${clean(st.iconName)}\x1b\\`);
  if (st.title !== '') w.put(`\x1b]${st.iconName === st.title ? 0 : 2};${clean(st.title)}\x1b\\`);
  // 2. The normal buffer.
  const normal = term.buffer.normal;
  const from = Math.max(0, normal.length - rows - options.scrollback);
  const scrolls = normal.length - from > rows;
  writeLines(w, term, 'normal', from, normal.length - 1, scrolls);
  // 3. Its tab stops, scroll region, kitty stack.
  tabsAndRegion(w, st.normal, cols, rows);
  if (options.kitty !== undefined) w.put(kittyRestore(options.kitty.main));
  if (st.altActive) {
    // 4. DECSET 1049 saves the cursor: put it where the normal buffer's saved cursor is first.
    toSavedCursor(w, term, st.normal, st.normal.savedCharset);
    w.put('\x1b[?1049h\x1b[H');
    // Entering fills the alternate screen in the pen's background (BCE); its rows are written against a
    // default blank screen (a row a resize added since is one), so it is erased in the default pen first.
    if (!samePen(w.pen, DEFAULT_PEN)) {
      w.setPen(DEFAULT_PEN);
      w.put('\x1b[2J');
    }
    if (st.normal.savedCharset !== undefined) w.put('\x1b(B');
    writeLines(w, term, 'alternate', 0, term.buffer.alternate.length - 1, false);
    tabsAndRegion(w, st.alt, cols, rows);
    if (options.kitty !== undefined) w.put(kittyRestore(options.kitty.alt));
  }
  // 5. The active buffer's DECSC.
  const active = st.altActive ? st.alt : st.normal;
  if (!savedCursorIsInitial(active)) {
    toSavedCursor(w, term, active, active.savedCharset);
    // On the normal screen, also as DECSET 1049 saves it (an enter and leave of an empty alternate screen):
    // xterm keeps one saved cursor, tmux a second one for 1049, and a program that leaves the alternate
    // screen twice gets that one back.
    w.put(st.altActive ? '\x1b7' : '\x1b7\x1b[?1049h\x1b[?1049l');
    if (active.savedCharset !== undefined) w.put('\x1b(B');
  }
  cursorAndModes(w, term, st);
  return w.parts.join('');
}
