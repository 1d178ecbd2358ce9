/**
 * What ScreenModel's plain-text skip (screen-model.ts, skipPlainFlood) needs to know: whether a chunk is plain
 * text, where its lines are, and whether the terminal is in a state where plain text can only scroll rows into
 * history. Reads a few xterm internals (@xterm/headless is pinned to an exact version, package.json): the
 * scroll region, the charset and the current attributes have no public API. Any of them missing: not plain.
 */
import type { Terminal } from '@xterm/headless';

export interface PlainLines {
  /** Complete plain lines (each ended by CR LF) at the start of the chunk. */
  readonly count: number;
  /** Byte index where line i starts; `starts[count]` is where the complete plain lines end. */
  readonly starts: Int32Array;
  /** Byte index just past line i's text (its CR). */
  readonly ends: Int32Array;
  /**
   * True when the bytes after the complete lines are plain too (an unfinished line, perhaps ending in the CR
   * of a CR LF cut by the chunk's end); false when one of them is not: the plain prefix ends there.
   */
  readonly plainToEnd: boolean;
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * Where the complete lines' ends are collected during a scan, grown on demand and reused: a flood is scanned
 * up to a hand-over at a time (lazy-screen.ts CHECKPOINT_BYTES: ~19,000 lines of `seq` per MiB), and a fresh
 * array per scan was garbage. A chunk of empty lines can grow it to half its byte count in entries; past
 * SCRATCH_KEEP_LINES it is let go after the scan, so one odd flood does not hold megabytes in the worker.
 */
const SCRATCH_KEEP_LINES = 64 * 1024;
let scratchEnds = new Int32Array(4096);

/**
 * The chunk's plain prefix: the complete lines from its start in which every byte is printable ASCII and every
 * line ends in CR LF (what a terminal's ONLCR makes of `\n`), up to the first line holding anything else — a
 * control character, an escape, a UTF-8 byte, a CR that returns to the line start. A lone CR as the very last
 * byte is plain (its LF is in the next chunk).
 *
 * `known`, when given, is this function's answer for a prefix of `chunk` (the same bytes at the same indexes):
 * its complete lines are taken as they are and only the rest is scanned, so a flood handed back to the queue
 * (screen-model.ts, handOverHead) is not scanned twice. One pass over the bytes, four at a time (printableUntil):
 * this loop runs over every byte of every plain flood and was the largest item in the worker's profile (issue 14).
 */
export function plainLines(chunk: Uint8Array, known?: PlainLines): PlainLines {
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
  let plainToEnd = true;
  const words = wordsOf(chunk);
  for (let i = from; ; ) {
    i = printableUntil(chunk, words, i);
    if (i === n) break;
    if (chunk[i] === CR) {
      if (i + 1 === n) break;
      if (chunk[i + 1] === LF) {
        if (count === ends.length) {
          const grown = new Int32Array(2 * ends.length);
          grown.set(ends);
          scratchEnds = ends = grown;
        }
        ends[count++] = i;
        i += 2;
        continue;
      }
    }
    plainToEnd = false;
    break;
  }
  const found = ends.slice(0, count);
  if (scratchEnds.length > SCRATCH_KEEP_LINES) scratchEnds = new Int32Array(4096);
  return linesFromEnds(found, plainToEnd);
}

/** The same lines without the first `k`, for `chunk.subarray(lines.starts[k])`. */
export function dropLines(lines: PlainLines, k: number): PlainLines {
  const shift = lines.starts[k]!;
  const ends = lines.ends.slice(k);
  for (let i = 0; i < ends.length; i++) ends[i] = ends[i]! - shift;
  return linesFromEnds(ends, lines.plainToEnd);
}

function linesFromEnds(ends: Int32Array, plainToEnd: boolean): PlainLines {
  const count = ends.length;
  const starts = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) starts[i + 1] = ends[i]! + 2;
  return { count, starts, ends, plainToEnd };
}

/**
 * The index, at or after `from`, of the first line start (the chunk's start or just after a CR LF) from which
 * at least `minBytes` of plain lines follow (up to the chunk's end, or through complete lines), or -1. This is
 * where a flood that follows some escapes (a coloured header, a prompt) begins: xterm parses up to there, and
 * the plain-text skip takes it from there (screen-model.ts). Stops as soon as it found one.
 */
export function nextPlainRun(chunk: Uint8Array, from: number, minBytes: number): number {
  const n = chunk.byteLength;
  const words = wordsOf(chunk);
  // Start of the plain run being measured; -1 while inside a line that holds something else.
  let run = from === 0 || (chunk[from - 1] === LF && chunk[from - 2] === CR) ? from : -1;
  for (let i = from; i < n; i++) {
    i = printableUntil(chunk, words, i);
    if (i === n) break;
    const b = chunk[i]!;
    if (b === CR && i + 1 < n && chunk[i + 1] === LF) {
      i++;
      if (run >= 0 && i + 1 - run >= minBytes) return run;
      if (run < 0) run = i + 1;
      continue;
    }
    if (b === CR && i + 1 === n) break;
    run = -1;
  }
  return run >= 0 && n - run >= minBytes ? run : -1;
}

/** The chunk's bytes as 32-bit words, from its first 4-byte-aligned byte (`at`) on (printableUntil). */
interface Words {
  readonly at: number;
  readonly words: Uint32Array;
}

const NO_WORDS = new Uint32Array(0);

function wordsOf(chunk: Uint8Array): Words {
  const at = (4 - (chunk.byteOffset & 3)) & 3;
  const count = (chunk.byteLength - at) >> 2;
  // A chunk shorter than its alignment has no whole word (and a view past its buffer's end would throw).
  if (count <= 0) return { at, words: NO_WORDS };
  return { at, words: new Uint32Array(chunk.buffer, chunk.byteOffset + at, count) };
}

/**
 * The index, at or after `i`, of the chunk's first byte that is not printable ASCII (0x20–0x7e), or its length.
 * Four bytes at a time where it can (issue 26: this scan runs over every byte of every flood, and byte by byte
 * it was the screen worker's largest item after history): a word holds a byte below 0x20 iff
 * (w − 0x20202020) & ~w & 0x80808080 ≠ 0, and one above 0x7e iff ((w + 0x01010101) | w) & 0x80808080 ≠ 0 — the
 * exact tests from "Bit Twiddling Hacks" (hasless(w, 0x20), hasmore(w, 0x7e)); byte order does not matter.
 */
function printableUntil(chunk: Uint8Array, { at, words }: Words, i: number): number {
  const n = chunk.byteLength;
  // Byte by byte up to a word boundary.
  for (; i < n && ((i - at) & 3) !== 0; i++) {
    const b = chunk[i]!;
    if (b < 0x20 || b > 0x7e) return i;
  }
  if (i >= n) return n;
  let w = (i - at) >> 2;
  for (; w < words.length; w++) {
    const x = words[w]!;
    if ((((x - 0x20202020) & ~x) | (x + 0x01010101) | x) & 0x80808080) break;
  }
  // The word that holds one (or the bytes after the last whole word), byte by byte.
  for (i = Math.max(i, at + 4 * w); i < n; i++) {
    const b = chunk[i]!;
    if (b < 0x20 || b > 0x7e) return i;
  }
  return n;
}

interface CoreInternals {
  readonly buffer?: { readonly scrollTop?: unknown; readonly scrollBottom?: unknown };
  readonly _charsetService?: { readonly charset?: unknown; readonly glevel?: unknown };
  readonly _inputHandler?: { readonly _curAttrData?: { readonly fg?: unknown; readonly bg?: unknown } };
}

/**
 * True when the terminal's modes let plain text do nothing but fill rows and scroll them up: the normal screen,
 * the scroll region the whole screen, wraparound on, insert and origin modes off, the default charset, default
 * attributes (so rows scrolled in are blank and default). Plain text never changes any of these.
 */
export function plainModes(term: Terminal, rows: number): boolean {
  const buf = term.buffer.active;
  if (buf.type !== 'normal') return false;
  const modes = term.modes;
  if (modes.insertMode || modes.originMode || !modes.wraparoundMode) return false;
  const core = (term as unknown as { _core?: CoreInternals })._core;
  const region = core?.buffer;
  if (region?.scrollTop !== 0 || region.scrollBottom !== rows - 1) return false;
  const charsets = core?._charsetService;
  if (charsets === undefined || charsets.charset !== undefined || charsets.glevel !== 0) return false;
  const attr = core?._inputHandler?._curAttrData;
  return attr?.fg === 0 && attr.bg === 0;
}

/**
 * True when the cursor is where a plain flood keeps it: column 0 of the bottom row, that row blank with default
 * attributes and not a wrapped continuation. With plainModes, the state a plain-text skip needs.
 */
export function atPlainBottom(term: Terminal, rows: number): boolean {
  const buf = term.buffer.active;
  if (buf.cursorX !== 0 || buf.cursorY !== rows - 1) return false;
  const line = buf.getLine(buf.baseY + buf.cursorY);
  if (line === undefined || line.isWrapped) return false;
  const cell = buf.getNullCell();
  for (let x = 0; x < line.length; x++) {
    if (line.getCell(x, cell) === undefined || cell.getCode() !== 0 || !cell.isAttributeDefault())
      return false;
  }
  return true;
}
