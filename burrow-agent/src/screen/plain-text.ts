/**
 * What ScreenModel's plain-text skip (screen-model.ts, skipPlainFlood) needs to know: whether a chunk is plain
 * text, where its lines are, and whether the terminal is in a state where plain text can only scroll rows into
 * history. Reads a few xterm internals (@xterm/headless is pinned to an exact version, package.json): the
 * scroll region, the charset and the current attributes have no public API. Any of them missing: not plain.
 */
import type { Terminal } from '@xterm/headless';

export interface PlainLines {
  /** Complete lines (each ended by CR LF). */
  readonly count: number;
  /** Byte index where line i starts; `starts[count]` is where the unfinished rest of the chunk starts. */
  readonly starts: Int32Array;
  /** Byte index just past line i's text (its CR). */
  readonly ends: Int32Array;
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * The chunk's complete lines when every byte is printable ASCII and every line ends in CR LF (what a terminal's
 * ONLCR makes of `\n`); a lone CR as the very last byte is allowed (its LF is in the next chunk). Null for
 * anything else: a control character, an escape, a UTF-8 byte, a CR that returns to the line start.
 */
export function plainLines(chunk: Uint8Array): PlainLines | null {
  const n = chunk.byteLength;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const b = chunk[i]!;
    if (b >= 0x20 && b <= 0x7e) continue;
    if (b === CR && i + 1 < n && chunk[i + 1] === LF) {
      count++;
      i++;
      continue;
    }
    if (b === CR && i + 1 === n) continue;
    return null;
  }
  const starts = new Int32Array(count + 1);
  const ends = new Int32Array(count);
  let line = 0;
  for (let i = 0; i < n && line < count; i++) {
    if (chunk[i] === CR && chunk[i + 1] === LF) {
      ends[line] = i;
      starts[++line] = i + 2;
      i++;
    }
  }
  return { count, starts, ends };
}

/** `chunk[start, end)` as a string (ASCII only, so one char per byte). */
export function latin1(chunk: Uint8Array, start: number, end: number): string {
  return Buffer.from(chunk.buffer, chunk.byteOffset + start, end - start).toString('latin1');
}

interface CoreInternals {
  readonly buffer?: { readonly scrollTop?: unknown; readonly scrollBottom?: unknown };
  readonly _charsetService?: { readonly charset?: unknown; readonly glevel?: unknown };
  readonly _inputHandler?: { readonly _curAttrData?: { readonly fg?: unknown; readonly bg?: unknown } };
}

/**
 * True when printing plain text can do nothing but fill rows and scroll them up: the normal screen, the cursor
 * at column 0 of the bottom row, that row blank with default attributes and not a wrapped continuation, the
 * scroll region the whole screen, wraparound on, insert and origin modes off, the default charset, default
 * attributes (so rows scrolled in are blank and default, like the bottom row).
 */
export function plainTextState(term: Terminal, rows: number): boolean {
  const buf = term.buffer.active;
  if (buf.type !== 'normal' || buf.cursorX !== 0 || buf.cursorY !== rows - 1) return false;
  const modes = term.modes;
  if (modes.insertMode || modes.originMode || !modes.wraparoundMode) return false;
  const core = (term as unknown as { _core?: CoreInternals })._core;
  const region = core?.buffer;
  if (region?.scrollTop !== 0 || region.scrollBottom !== rows - 1) return false;
  const charsets = core?._charsetService;
  if (charsets === undefined || charsets.charset !== undefined || charsets.glevel !== 0) return false;
  const attr = core?._inputHandler?._curAttrData;
  if (attr?.fg !== 0 || attr.bg !== 0) return false;
  const line = buf.getLine(buf.baseY + buf.cursorY);
  if (line === undefined || line.isWrapped) return false;
  const cell = buf.getNullCell();
  for (let x = 0; x < line.length; x++) {
    if (line.getCell(x, cell) === undefined || cell.getCode() !== 0 || !cell.isAttributeDefault())
      return false;
  }
  return true;
}
