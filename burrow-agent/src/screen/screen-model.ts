/**
 * The per-session screen model: a headless xterm fed the PTY's raw bytes in stream order, so an attaching
 * viewer gets the exact current screen — alternate screen, cursor, modes — plus recent scrollback as one
 * serialized string (DESIGN §6). Lines older than LIVE_SCROLLBACK_LINES move to a compact LineHistory.
 *
 * Why these sizes (measured on the dev machine, see bench/session-bench.ts): xterm holds ~12 bytes per cell,
 * and serializing costs ~18 µs per line, so keeping 10,000 live lines would cost ~14 MB and ~180 ms per attach
 * — over the 4 MB / 100 ms budgets. 300 live lines + 100 lines of harvest slack (+ the screen) is ~1 MB of
 * typed arrays per session and a ~10 ms snapshot; older lines cost ~6 bytes each in LineHistory.
 */

import xtermSerialize from '@xterm/addon-serialize';
import type { IMarker, Terminal as XTerminal } from '@xterm/headless';
import xtermHeadless from '@xterm/headless';
import { LineHistory } from './line-history.js';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = xtermSerialize;

/** Scrollback lines kept in full fidelity (colours, wrapping) and sent with every attach snapshot. */
export const LIVE_SCROLLBACK_LINES = 300;
/**
 * Extra xterm scrollback beyond the live window: lines wait here until they are copied into LineHistory. One
 * model write never scrolls more than HISTORY_SLACK_LINES / 2 lines (writes are split), so none are lost.
 */
export const HISTORY_SLACK_LINES = 100;
export const MIN_COLS = 2;
export const MAX_COLS = 1000;
export const MIN_ROWS = 1;
export const MAX_ROWS = 500;

export interface ScreenSnapshot {
  /** Escape-sequence string that reproduces the screen, scrollback and modes on a fresh terminal. */
  readonly data: string;
  readonly cols: number;
  readonly rows: number;
  /** Stream offset the snapshot is exact at: live output from here on follows it. */
  readonly offset: number;
  /** Lines of older history available through `history()`, ending at `historyEnd`. */
  readonly historyEnd: number;
}

export function checkSize(cols: number, rows: number): void {
  if (!Number.isInteger(cols) || cols < MIN_COLS || cols > MAX_COLS) {
    throw new RangeError(`cols must be an integer in ${MIN_COLS}..${MAX_COLS}`);
  }
  if (!Number.isInteger(rows) || rows < MIN_ROWS || rows > MAX_ROWS) {
    throw new RangeError(`rows must be an integer in ${MIN_ROWS}..${MAX_ROWS}`);
  }
}

export class ScreenModel {
  private readonly term: XTerminal;
  private readonly serializer = new SerializeAddon();
  readonly history = new LineHistory();
  /** Marker on the first normal-buffer line not yet copied to history; undefined = buffer line 0. */
  private frontier: IMarker | undefined;
  /** Offset of the end of all bytes handed to `write` so far. */
  private written = 0;
  /** Offset of the end of all bytes xterm has finished parsing. */
  private parsed = 0;
  private disposed = false;

  constructor(cols: number, rows: number) {
    checkSize(cols, rows);
    this.term = new Terminal({
      cols,
      rows,
      scrollback: LIVE_SCROLLBACK_LINES + HISTORY_SLACK_LINES,
      allowProposedApi: true,
    });
    this.term.loadAddon(this.serializer);
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** Bytes handed to the model that xterm has not parsed yet (the pipeline's backpressure signal). */
  get backlog(): number {
    return this.written - this.parsed;
  }

  /** Feeds PTY bytes, in stream order. Split so no write scrolls past the harvest slack. */
  write(chunk: Uint8Array): void {
    if (this.disposed) return;
    const maxLines = HISTORY_SLACK_LINES / 2;
    const maxBytes = maxLines * this.term.cols;
    if (chunk.byteLength <= maxLines) {
      // Too short to scroll past the slack whatever it holds (a PTY read is usually ≤ 4 KiB).
      this.writePiece(chunk);
      return;
    }
    let start = 0;
    while (start < chunk.byteLength) {
      let end = start;
      let lines = 0;
      while (end < chunk.byteLength && lines < maxLines && end - start < maxBytes) {
        const lf = chunk.indexOf(0x0a, end);
        if (lf === -1 || lf - start >= maxBytes) {
          end = Math.min(chunk.byteLength, start + maxBytes);
          break;
        }
        end = lf + 1;
        lines++;
      }
      this.writePiece(chunk.subarray(start, end));
      start = end;
    }
  }

  private writePiece(piece: Uint8Array): void {
    this.written += piece.byteLength;
    const upTo = this.written;
    this.term.write(piece, () => {
      this.parsed = upTo;
      this.harvest();
    });
  }

  /** Resolves once every byte written so far is parsed; `then` runs at exactly that point in the stream. */
  whenParsed<T>(then: (offset: number) => T): Promise<T> {
    const at = this.written;
    return new Promise((resolve, reject) => {
      this.term.write('', () => {
        try {
          resolve(then(at));
        } catch (err) {
          reject(err);
        }
      });
    });
  }

  /** The current screen, exact at the returned offset (call after whenParsed, or via `snapshot()`). */
  snapshot(): Promise<ScreenSnapshot> {
    return this.whenParsed((offset) => ({
      data: this.serializer.serialize({ scrollback: LIVE_SCROLLBACK_LINES }),
      cols: this.term.cols,
      rows: this.term.rows,
      offset,
      historyEnd: this.history.endLine,
    }));
  }

  resize(cols: number, rows: number): void {
    checkSize(cols, rows);
    if (cols === this.term.cols && rows === this.term.rows) return;
    this.term.resize(cols, rows);
  }

  dispose(): void {
    this.disposed = true;
    this.frontier?.dispose();
    this.term.dispose();
  }

  /** Copies normal-buffer lines older than the live window into history. */
  private harvest(): void {
    const buf = this.term.buffer.normal;
    // Markers can only be placed while the normal buffer is active; the normal buffer does not scroll while
    // the alternate one is shown, so nothing is missed by waiting.
    if (this.term.buffer.active !== buf) return;
    let from = 0;
    if (this.frontier !== undefined) {
      if (this.frontier.isDisposed) {
        // Cannot happen with split writes unless something (e.g. CSI S with a huge count) scrolled past the
        // slack in one go; say so in the history rather than pretend.
        this.history.markLost(1);
      } else {
        from = this.frontier.line;
      }
    }
    const until = buf.baseY - LIVE_SCROLLBACK_LINES;
    if (until <= from) return;
    for (let i = from; i < until; i++) {
      this.history.push(buf.getLine(i)?.translateToString(true) ?? '');
    }
    this.frontier?.dispose();
    this.frontier = this.term.registerMarker(until - (buf.baseY + buf.cursorY));
  }
}
