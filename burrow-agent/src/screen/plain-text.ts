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
 * Where the complete lines' ends are collected during a scan, grown on demand and reused: a flood is scanned
 * up to PLAIN_SKIP_MERGE_BYTES at a time (~19,000 lines of `seq`), and a fresh array per scan was garbage.
 * A chunk of empty lines can grow it to half its byte count in entries; past SCRATCH_KEEP_LINES it is let go
 * after the scan, so one odd flood does not hold megabytes in the worker for good.
 */
const SCRATCH_KEEP_LINES = 64 * 1024;
let scratchEnds = new Int32Array(4096);

/**
 * The chunk's complete lines when every byte is printable ASCII and every line ends in CR LF (what a terminal's
 * ONLCR makes of `\n`); a lone CR as the very last byte is allowed (its LF is in the next chunk). Null for
 * anything else: a control character, an escape, a UTF-8 byte, a CR that returns to the line start.
 *
 * `known`, when given, is this function's answer for a prefix of `chunk` (the same bytes at the same indexes):
 * its complete lines are taken as they are and only the rest is scanned, so a flood handed back to the queue
 * (screen-model.ts, handOverHead) is not scanned twice. One pass over the bytes: this loop ran over every byte
 * of every plain flood and was the largest item in the worker's profile (issue 14).
 */
export function plainLines(chunk: Uint8Array, known?: PlainLines): PlainLines | null {
  const n = chunk.byteLength;
  let count = 0;
  let from = 0;
  if (known !== undefined) {
    count = known.count;
    from = known.starts[count]!;
    if (scratchEnds.length < count + 1) scratchEnds = new Int32Array(2 * (count + 1));
    scratchEnds.set(known.ends.subarray(0, count));
  }
  let ends = scratchEnds;
  for (let i = from; i < n; i++) {
    const b = chunk[i]!;
    if (b >= 0x20 && b <= 0x7e) continue;
    if (b === CR) {
      if (i + 1 === n) break;
      if (chunk[i + 1] === LF) {
        if (count === ends.length) {
          const grown = new Int32Array(2 * ends.length);
          grown.set(ends);
          scratchEnds = ends = grown;
        }
        ends[count++] = i;
        i++;
        continue;
      }
    }
    return null;
  }
  const found = ends.slice(0, count);
  if (scratchEnds.length > SCRATCH_KEEP_LINES) scratchEnds = new Int32Array(4096);
  return linesFromEnds(found);
}

/** The same lines without the first `k`, for `chunk.subarray(lines.starts[k])`. */
export function dropLines(lines: PlainLines, k: number): PlainLines {
  const shift = lines.starts[k]!;
  const ends = lines.ends.slice(k);
  for (let i = 0; i < ends.length; i++) ends[i] = ends[i]! - shift;
  return linesFromEnds(ends);
}

function linesFromEnds(ends: Int32Array): PlainLines {
  const count = ends.length;
  const starts = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) starts[i + 1] = ends[i]! + 2;
  return { count, starts, ends };
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
