/**
 * The terminal state xterm.js (6.0.0, pinned exactly in package.json) tracks but has no public API for, read in
 * one place: the restore string (restore-string.ts) must carry all of it and the state dumps tests compare
 * (terminal-dump.ts) must see all of it. Public API where there is one (`term.modes`, `term.buffer`), the
 * private `_core` otherwise, named here field by field:
 *  - scroll region, tab stops, saved cursor (DECSC): per buffer (`_core.buffers.{normal,alt}`: scrollTop,
 *    scrollBottom, tabs, savedX/savedY/savedCurAttrData/savedCharset) — no public API;
 *  - cursor visibility and style (DECTCEM, DECSCUSR): `_core.coreService.isCursorHidden`, `decPrivateModes`
 *    .cursorStyle/.cursorBlink; DECSET 12 writes the `cursorBlink` *option* — no public API for the first two;
 *  - mouse encoding (1006/1016): `_core.coreMouseService.activeEncoding` (`term.modes` has only the protocol);
 *  - the current pen (SGR, underline style/colour, OSC 8 link, DECSCA): `_core._inputHandler._curAttrData`;
 *  - the title and icon name: `_core._inputHandler._windowTitle/_iconName` (title change events exist, the value
 *    does not); the title stack is never used (xterm.js pushes titles only with windowOptions, off here);
 *  - charsets (G0–G3 and which is GL): `_core._charsetService`;
 *  - LNM (CSI 20 h): the `convertEol` option;
 *  - underline style/colour and hyperlink of a cell: `cell.extended` (IBufferCell has only isUnderline());
 *  - the parser's and the UTF-8 decoder's mid-sequence state: `_inputHandler._parser.currentState`,
 *    `_utf8Decoder.interim`.
 * Each read checks its shape: a different xterm build fails loudly (TypeError) instead of serializing garbage.
 */
import type { IMarker, Terminal } from '@xterm/headless';

/** xterm's attribute words (src/common/buffer/Constants.ts). */
export const CM_MASK = 0x3000000;
export const CM_DEFAULT = 0;
export const CM_P16 = 0x1000000;
export const CM_P256 = 0x2000000;
export const CM_RGB = 0x3000000;
export const FG_INVERSE = 0x4000000;
export const FG_BOLD = 0x8000000;
export const FG_UNDERLINE = 0x10000000;
export const FG_BLINK = 0x20000000;
export const FG_INVISIBLE = 0x40000000;
export const FG_STRIKETHROUGH = 0x80000000;
export const BG_ITALIC = 0x4000000;
export const BG_DIM = 0x8000000;
export const BG_HAS_EXTENDED = 0x10000000;
export const BG_PROTECTED = 0x20000000;
export const BG_OVERLINE = 0x40000000;

export interface ExtendedAttrs {
  readonly underlineStyle: number;
  /** -1: none set (the underline takes the foreground colour); else a colour word (CM_* | value). */
  readonly underlineColor: number;
  readonly urlId: number;
}

/** An attribute holder: a cell loaded by `IBufferLine.getCell`, a saved or current pen. */
export interface AttrData {
  readonly fg: number;
  readonly bg: number;
  readonly extended: ExtendedAttrs;
}

export interface Charset {
  readonly [ch: string]: string | undefined;
}

export interface InternalBuffer {
  readonly x: number;
  readonly y: number;
  readonly ybase: number;
  readonly scrollTop: number;
  readonly scrollBottom: number;
  readonly tabs: { readonly [column: number]: boolean | undefined };
  readonly savedX: number;
  /** Absolute line (ybase + y at the time of DECSC). */
  readonly savedY: number;
  readonly savedCurAttrData: AttrData;
  readonly savedCharset: Charset | undefined;
  readonly lines: { readonly length: number };
  /** A marker on absolute line `line` of this buffer (what Terminal.registerMarker does for the active one). */
  addMarker(line: number): IMarker;
}

export interface TerminalInternals {
  readonly normal: InternalBuffer;
  readonly alt: InternalBuffer;
  readonly altActive: boolean;
  readonly cursorHidden: boolean;
  readonly cursorStyle: 'block' | 'underline' | 'bar' | undefined;
  readonly cursorStyleBlink: boolean | undefined;
  /** DECSET 12 (the cursorBlink option). */
  readonly cursorBlinkOption: boolean;
  readonly mouseEncoding: 'DEFAULT' | 'SGR' | 'SGR_PIXELS';
  readonly pen: AttrData;
  readonly title: string;
  readonly iconName: string;
  readonly charsets: readonly (Charset | undefined)[];
  readonly glevel: number;
  readonly convertEol: boolean;
  /** A link's data by the id stored in cells. */
  link(urlId: number): { readonly id?: string; readonly uri: string } | undefined;
  /** True while the parser sits between sequences and the UTF-8 decoder holds no partial character. */
  readonly atGround: boolean;
}

interface Core {
  readonly buffers: {
    readonly normal: InternalBuffer;
    readonly alt: InternalBuffer;
    readonly active: unknown;
  };
  readonly coreService: {
    readonly isCursorHidden: boolean;
    readonly decPrivateModes: { cursorStyle?: 'block' | 'underline' | 'bar'; cursorBlink?: boolean };
  };
  readonly coreMouseService: { readonly activeEncoding: 'DEFAULT' | 'SGR' | 'SGR_PIXELS' };
  readonly optionsService: { readonly rawOptions: { cursorBlink?: boolean; convertEol?: boolean } };
  readonly _charsetService: { readonly glevel: number; readonly _charsets: (Charset | undefined)[] };
  readonly _oscLinkService: { getLinkData(id: number): { id?: string; uri: string } | undefined };
  readonly _inputHandler: {
    readonly _curAttrData: AttrData;
    readonly _windowTitle: string;
    readonly _iconName: string;
    readonly _parser: { readonly currentState: number };
    readonly _utf8Decoder: { readonly interim: Uint8Array };
  };
}

/**
 * A marker on absolute line `line` of the normal buffer, whichever buffer is active: Terminal.registerMarker
 * only marks the active one, and the line history (screen-model.ts, harvest) must keep collecting the normal
 * buffer's lines while a full-screen program shows the alternate one.
 */
export function normalBufferMarker(term: Terminal, line: number): IMarker {
  const normal = core(term).buffers.normal;
  if (typeof normal.addMarker !== 'function') {
    throw new TypeError('xterm internals: not the @xterm/headless 6.0.0 this was written against');
  }
  return normal.addMarker(line);
}

/** EscapeSequenceParser's ParserState.GROUND. */
const PARSER_GROUND = 0;

function core(term: Terminal): Core {
  const c = (term as unknown as { _core?: Core })._core;
  if (
    c === undefined ||
    c.buffers?.normal === undefined ||
    c.coreService?.decPrivateModes === undefined ||
    c.coreMouseService === undefined ||
    c._charsetService === undefined ||
    c._oscLinkService === undefined ||
    c._inputHandler?._curAttrData === undefined ||
    !(c._inputHandler._utf8Decoder?.interim instanceof Uint8Array)
  ) {
    throw new TypeError('xterm internals: not the @xterm/headless 6.0.0 this was written against');
  }
  return c;
}

/** A live view of `term`'s untyped state; read it right away (it follows the terminal). */
export function internals(term: Terminal): TerminalInternals {
  const c = core(term);
  const ih = c._inputHandler;
  return {
    normal: c.buffers.normal,
    alt: c.buffers.alt,
    altActive: c.buffers.active === c.buffers.alt,
    cursorHidden: c.coreService.isCursorHidden,
    cursorStyle: c.coreService.decPrivateModes.cursorStyle,
    cursorStyleBlink: c.coreService.decPrivateModes.cursorBlink,
    cursorBlinkOption: c.optionsService.rawOptions.cursorBlink === true,
    mouseEncoding: c.coreMouseService.activeEncoding,
    pen: ih._curAttrData,
    title: ih._windowTitle,
    iconName: ih._iconName,
    charsets: c._charsetService._charsets,
    glevel: c._charsetService.glevel,
    convertEol: c.optionsService.rawOptions.convertEol === true,
    link: (id) => c._oscLinkService.getLinkData(id),
    atGround: ih._parser.currentState === PARSER_GROUND && ih._utf8Decoder.interim[0] === 0,
  };
}

/** The charsets xterm.js knows, by the final byte that designates them (ESC ( F): src/common/data/Charsets.ts. */
const CHARSET_FINALS = ['0', 'A', '4', 'C', '5', 'R', 'f', 'Q', 'K', 'Y', 'E', '6', 'Z', 'H', '7', '=', '/'];
let charsetFinals: Map<Charset, string> | null = null;

/**
 * The final byte that designates `charset` (undefined: US ASCII, 'B'). xterm's charset tables are module
 * constants shared by every terminal, so one scratch terminal designating each final learns them all.
 */
export function charsetFinal(term: Terminal, charset: Charset | undefined): string {
  if (charset === undefined) return 'B';
  if (charsetFinals === null) {
    const TerminalClass = term.constructor as new (o: object) => Terminal;
    const scratch = new TerminalClass({ cols: 2, rows: 1, allowProposedApi: true });
    const c = core(scratch);
    const parse = (c._inputHandler as unknown as { parse(data: string): void }).parse.bind(c._inputHandler);
    charsetFinals = new Map();
    for (const f of CHARSET_FINALS) {
      parse(`\x1b(${f === '/' ? '/A' : f}`);
      const cs = c._charsetService._charsets[0];
      if (cs !== undefined && !charsetFinals.has(cs)) charsetFinals.set(cs, f === '/' ? '/A' : f);
    }
    scratch.dispose();
  }
  return charsetFinals.get(charset) ?? 'B';
}
