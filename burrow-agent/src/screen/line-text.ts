/**
 * The plain text of one xterm buffer line, right-trimmed, as `IBufferLine.translateToString(true)` returns it
 * — but ~10× faster. translateToString builds the string one `String.fromCodePoint` per cell; harvesting every
 * line that scrolls into history that way cost more than parsing the output (bench/session-bench.ts). This
 * reads the line's cell words directly: xterm 6 stores 3 uint32 per cell, the first holding the code point
 * (bits 0–20), a "combined" flag (bit 21, the text then lives in a side table) and the width (bits 22–23).
 * @xterm/headless is pinned to an exact version; if the internals ever differ, or a line holds combined
 * characters, the public translateToString is used instead, so the result is the same either way.
 */
import type { IBufferLine } from '@xterm/headless';
import { MAX_COLS } from './screen-limits.js';

const CODEPOINT_MASK = 0x1fffff;
const IS_COMBINED = 0x200000;
const WIDTH_SHIFT = 22;

interface InternalLine {
  readonly _data?: unknown;
  getTrimmedLength?: () => number;
}

/** Two UTF-16 units per cell at most (astral code points). */
const scratch = new Uint16Array(MAX_COLS * 2);

export function lineText(view: IBufferLine): string {
  const line = (view as unknown as { _line?: InternalLine })._line;
  const data = line?._data;
  if (!(data instanceof Uint32Array) || typeof line?.getTrimmedLength !== 'function') {
    return view.translateToString(true);
  }
  const end = Math.min(line.getTrimmedLength(), view.length, MAX_COLS);
  let n = 0;
  for (let x = 0; x < end; ) {
    const content = data[3 * x]!;
    if ((content & IS_COMBINED) !== 0) return view.translateToString(true);
    let cp = content & CODEPOINT_MASK;
    if (cp === 0) scratch[n++] = 0x20;
    else if (cp < 0x10000) scratch[n++] = cp;
    else {
      cp -= 0x10000;
      scratch[n++] = 0xd800 + (cp >> 10);
      scratch[n++] = 0xdc00 + (cp & 0x3ff);
    }
    x += (content >>> WIDTH_SHIFT) & 3 || 1;
  }
  return String.fromCharCode.apply(null, scratch.subarray(0, n) as unknown as number[]);
}
