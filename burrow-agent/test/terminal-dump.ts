/**
 * Everything an xterm.js terminal holds that restore-string.ts promises to carry, as plain JSON, so two
 * terminals can be compared cell by cell and mode by mode (and a difference printed readably). Cells carry
 * their text, width and normalized pen (link ids as their URIs: ids differ between terminals). Lines are taken
 * from the bottom of each buffer: `lines` of the normal buffer (the screen plus scrollback), all of the
 * alternate one. The first dumped line's wrapped flag is left out: its start lies beyond what a restore carries.
 */
import type { IBufferCell, Terminal } from '@xterm/headless';
import { type KittyKeyboardState, kittyFlags } from '../src/screen/kitty-keyboard.js';
import { type Pen, penOf } from '../src/screen/restore-string.js';
import {
  type AttrData,
  charsetFinal,
  type InternalBuffer,
  internals,
} from '../src/screen/xterm-internals.js';

export interface BufferDump {
  readonly lines: string[];
  readonly region: [number, number];
  readonly tabs: number[];
  readonly saved: string;
}

export interface TerminalDump {
  readonly size: string;
  readonly cursor: string;
  readonly modes: Record<string, unknown>;
  readonly pen: string;
  readonly charsets: string;
  readonly title: string;
  readonly normal: BufferDump;
  readonly alt: BufferDump | null;
  readonly kitty: string;
}

let compareLinks = true;

function penKey(term: Terminal, p: Pen): string {
  // A link whose entry xterm dropped (no line holds it any more) is no link.
  const link = p.link === 0 || !compareLinks ? '' : (internals(term).link(p.link)?.uri ?? '');
  return `${p.fg.toString(16)}/${p.bg.toString(16)}/${p.ul}/${p.ulColor.toString(16)}/${link}`;
}

function dumpLines(term: Terminal, which: 'normal' | 'alternate', count: number): string[] {
  const buffer = which === 'normal' ? term.buffer.normal : term.buffer.alternate;
  const cell = buffer.getNullCell() as IBufferCell & AttrData;
  const from = Math.max(0, buffer.length - count);
  const out: string[] = [];
  for (let y = from; y < buffer.length; y++) {
    const line = buffer.getLine(y)!;
    let s = y > from && line.isWrapped ? '↩' : '';
    let lastKey = '';
    for (let x = 0; x < term.cols; x++) {
      line.getCell(x, cell);
      const key = penKey(term, penOf(cell));
      // A pen change is written once, where it happens: lines stay readable in a diff.
      if (key !== lastKey) s += `{${key}}`;
      lastKey = key;
      const w = cell.getWidth();
      // A right half without its left (ICH / DCH inside a wide character leave one): blank to the eye, and
      // restore-string.ts writes it as a blank.
      const orphan = w === 0 && (x === 0 || line.getCell(x - 1)?.getWidth() !== 2);
      // A wide character in the last column, its right half past the margin: a reflow leaves one, no output
      // can make one; restore-string.ts writes a blank there.
      const hanging = w === 2 && x === term.cols - 1;
      // On the alternate screen a space reads as a blank: restore-string.ts leaves one where the cursor sat
      // past the last column over a blank (the one way to keep that wrap pending there), and the two look
      // alike; only the normal screen's lines outlive the program, in a copy or the history.
      s +=
        orphan || hanging
          ? '·'
          : w === 0
            ? ''
            : cell.getChars() === '' || (which === 'alternate' && cell.getChars() === ' ')
              ? '·'
              : w === 2
                ? `${cell.getChars()}²`
                : cell.getChars();
    }
    out.push(s);
  }
  return out;
}

function dumpBuffer(
  term: Terminal,
  buf: InternalBuffer,
  which: 'normal' | 'alternate',
  lines: number,
): BufferDump {
  const tabs: number[] = [];
  for (let x = 0; x < term.cols; x++) if (buf.tabs[x]) tabs.push(x);
  const savedRow = Math.max(0, buf.savedY - buf.ybase);
  // DECRC puts a saved column past the last one back on the last (xterm.js restricts it).
  const saved = `${Math.min(buf.savedX, term.cols - 1)},${savedRow} ${penKey(term, penOf(buf.savedCurAttrData))} ${charsetFinal(term, buf.savedCharset)}`;
  const dumped = dumpLines(term, which, lines);
  return { lines: dumped, region: [buf.scrollTop, buf.scrollBottom], tabs, saved };
}

/**
 * `scrollback`: normal-buffer lines above the screen to include. `links: false` leaves OSC 8 links out (after
 * further output: xterm.js ties a link's life to lines, restore-string.ts says how that differs).
 */
export function dumpTerminal(
  term: Terminal,
  scrollback: number,
  kitty?: KittyKeyboardState,
  options: { links?: boolean } = {},
): TerminalDump {
  compareLinks = options.links ?? true;
  const st = internals(term);
  const active = st.altActive ? st.alt : st.normal;
  const m = term.modes;
  return {
    size: `${term.cols}x${term.rows}`,
    cursor: `${active.x},${active.y} hidden=${st.cursorHidden} style=${st.cursorStyle}/${st.cursorStyleBlink} blink12=${st.cursorBlinkOption}`,
    modes: {
      applicationCursorKeys: m.applicationCursorKeysMode,
      applicationKeypad: m.applicationKeypadMode,
      bracketedPaste: m.bracketedPasteMode,
      insert: m.insertMode,
      mouseTracking: m.mouseTrackingMode,
      mouseEncoding: st.mouseEncoding,
      origin: m.originMode,
      reverseWraparound: m.reverseWraparoundMode,
      sendFocus: m.sendFocusMode,
      wraparound: m.wraparoundMode,
      convertEol: st.convertEol,
    },
    pen: penKey(term, penOf(st.pen, true)),
    charsets: `${[0, 1, 2, 3].map((g) => charsetFinal(term, st.charsets[g])).join('')} GL=G${st.glevel}`,
    title: `${st.title} / ${st.iconName}`,
    normal: dumpBuffer(term, st.normal, 'normal', term.rows + scrollback),
    alt: st.altActive ? dumpBuffer(term, st.alt, 'alternate', term.rows) : null,
    kitty:
      kitty === undefined
        ? ''
        : `main ${kitty.main.base}[${kitty.main.stack}] now ${kittyFlags(kitty.main)}; alt ${kitty.alt.base}[${kitty.alt.stack}]`,
  };
}
