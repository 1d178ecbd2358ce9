/**
 * Who wrote these bytes into the PTY: a human, or the viewer's terminal answering the program (alert-spec:
 * only a human's input acknowledges; a terminal's replies and mouse reports never do). A viewer forwards
 * whatever its terminal emits, so a chunk made only of report sequences is the terminal's, not the owner's.
 *
 * Recognised replies (xterm ctlseqs): focus CSI I / CSI O; CSI replies ending in R (cursor position), c (device
 * attributes), n (status), t (window reports), y (DECRQM, with `$`), u (kitty keyboard flags, with `?`); OSC
 * and DCS strings (colour and DECRQSS answers); mouse reports X10 `CSI M b x y` and SGR `CSI < b;x;y M|m`.
 */
import type { InputKind } from '../attention/index.js';

const ESC = 0x1b;
const BEL = 0x07;
/** Longest input chunk examined; anything longer is a paste, i.e. the owner's. */
export const MAX_CLASSIFIED_INPUT_BYTES = 4096;

/** CSI finals that only ever come from a terminal answering a query. */
const REPLY_FINALS = new Set([0x52 /* R */, 0x63 /* c */, 0x6e /* n */, 0x74 /* t */, 0x79 /* y */]);
/** `CSI ? flags u` answers a kitty keyboard query; `CSI code u` without `?` is a key press. */
const KITTY_FLAGS_FINAL = 0x75;

type Token = 'reply' | 'mouse' | null;

/** Reads one sequence at `i` (which holds ESC); returns [kind, next index] or null when it is not a report. */
function readSequence(d: Uint8Array, i: number): [Token, number] | null {
  const kind = d[i + 1];
  if (kind === 0x5b /* [ */) return readCsi(d, i + 2);
  if (kind === 0x5d /* ] */ || kind === 0x50 /* P */) return readString(d, i + 2);
  return null;
}

function readCsi(d: Uint8Array, start: number): [Token, number] | null {
  const first = d[start];
  if (first === 0x49 /* I */ || first === 0x4f /* O */) return ['reply', start + 1];
  if (first === 0x4d /* M */) return start + 4 <= d.length ? ['mouse', start + 4] : null;
  const sgrMouse = first === 0x3c; /* < */
  let j = start;
  while (j < d.length) {
    const b = d[j]!;
    if (b >= 0x40 && b <= 0x7e) {
      if (sgrMouse) return b === 0x4d || b === 0x6d ? ['mouse', j + 1] : null;
      if (REPLY_FINALS.has(b) || (b === KITTY_FLAGS_FINAL && first === 0x3f)) return ['reply', j + 1];
      return null;
    }
    // Parameters (0x30–0x3f) and intermediates such as DECRQM's `$` (0x20–0x2f); anything else is not a CSI.
    if (b < 0x20 || b > 0x3f) return null;
    j++;
  }
  return null;
}

/** An OSC or DCS string up to BEL or ST (ESC \). */
function readString(d: Uint8Array, start: number): [Token, number] | null {
  for (let j = start; j < d.length; j++) {
    if (d[j] === BEL) return ['reply', j + 1];
    if (d[j] === ESC) return d[j + 1] === 0x5c ? ['reply', j + 2] : null;
  }
  return null;
}

/**
 * Classifies one input write. Anything that is not wholly made of report sequences is `user` — a lone ESC,
 * an arrow key (CSI A), a paste — so a doubtful chunk acknowledges rather than staying silent.
 *
 * @throws TypeError when `data` is not a Uint8Array.
 */
export function classifyInput(data: Uint8Array): InputKind {
  if (!(data instanceof Uint8Array)) throw new TypeError('classifyInput: data must be a Uint8Array');
  if (data.length === 0 || data.length > MAX_CLASSIFIED_INPUT_BYTES) return 'user';
  let i = 0;
  let allMouse = true;
  while (i < data.length) {
    if (data[i] !== ESC) return 'user';
    const seq = readSequence(data, i);
    if (seq === null) return 'user';
    if (seq[0] !== 'mouse') allMouse = false;
    i = seq[1];
  }
  return allMouse ? 'mouse' : 'terminal-reply';
}
