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
import { lineText } from './line-text.js';
import { MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from './screen-limits.js';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = xtermSerialize;

/** Scrollback lines kept in full fidelity (colours, wrapping) and sent with every attach snapshot. */
export const LIVE_SCROLLBACK_LINES = 300;
/**
 * Extra xterm scrollback beyond the live window: lines wait here until they are copied into LineHistory. One
 * model write never scrolls more than HISTORY_SLACK_LINES / 2 lines (writes are split), so none are lost.
 */
export const HISTORY_SLACK_LINES = 100;
export { MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from './screen-limits.js';

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
  /** The live terminal; null while hibernated. */
  private live: { term: XTerminal; serializer: InstanceType<typeof SerializeAddon> } | null;
  /**
   * While hibernated: the serialized screen as exact-size UTF-8 bytes, exact at `written`. Bytes, not the
   * string: serialize builds a rope of thousands of small strings that costs several times its length.
   */
  private frozen: Uint8Array | null = null;
  private size: { cols: number; rows: number };
  readonly history = new LineHistory();
  /** Marker on the first normal-buffer line not yet copied to history; undefined = buffer line 0. */
  private frontier: IMarker | undefined;
  /** Offset of the end of all bytes handed to `write` so far. */
  private written = 0;
  /** Offset of the end of all bytes xterm has finished parsing. */
  private parsed = 0;
  private disposed = false;

  /** `offset`: the stream offset of the first byte this model will see (0 for a model made at spawn). */
  constructor(cols: number, rows: number, offset = 0) {
    checkSize(cols, rows);
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new RangeError('offset must be a non-negative integer');
    this.size = { cols, rows };
    this.written = offset;
    this.parsed = offset;
    this.live = this.makeTerminal();
  }

  get cols(): number {
    return this.size.cols;
  }

  get rows(): number {
    return this.size.rows;
  }

  /** True while the model is parked as a string (see `hibernate`). */
  get hibernated(): boolean {
    return this.frozen !== null;
  }

  /** Bytes handed to the model that xterm has not parsed yet (the pipeline's backpressure signal). */
  get backlog(): number {
    return this.written - this.parsed;
  }

  /** Feeds PTY bytes, in stream order. Split so no write scrolls past the harvest slack. */
  write(chunk: Uint8Array): void {
    if (this.disposed) return;
    const maxLines = HISTORY_SLACK_LINES / 2;
    const maxBytes = maxLines * this.size.cols;
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
    const { term } = this.wake();
    this.written += piece.byteLength;
    const upTo = this.written;
    term.write(piece, () => {
      this.parsed = upTo;
      this.harvest();
    });
  }

  /** Resolves once every byte written so far is parsed; `then` runs at exactly that point in the stream. */
  whenParsed<T>(then: (offset: number) => T): Promise<T> {
    const at = this.written;
    // Parked: nothing is pending, so `then` runs now, before any later write can wake the model.
    if (this.live === null) return new Promise((resolve) => resolve(then(at)));
    const { term } = this.live;
    return new Promise((resolve, reject) => {
      term.write('', () => {
        try {
          resolve(then(at));
        } catch (err) {
          reject(err);
        }
      });
    });
  }

  /** The current screen, exact at the returned offset. */
  snapshot(): Promise<ScreenSnapshot> {
    return this.whenParsed((offset) => ({
      data:
        this.frozen !== null
          ? Buffer.from(this.frozen.buffer, this.frozen.byteOffset, this.frozen.byteLength).toString('utf8')
          : this.live!.serializer.serialize({ scrollback: LIVE_SCROLLBACK_LINES }),
      cols: this.size.cols,
      rows: this.size.rows,
      offset,
      historyEnd: this.history.endLine,
    }));
  }

  resize(cols: number, rows: number): void {
    checkSize(cols, rows);
    if (cols === this.size.cols && rows === this.size.rows) return;
    const { term } = this.wake();
    this.size = { cols, rows };
    term.resize(cols, rows);
  }

  /**
   * Parks an idle model as its serialized snapshot and frees the terminal (~1.5 MB of cell buffers); the next
   * write, resize or dispose-free read wakes it by replaying that string into a fresh terminal. Only the normal
   * screen is parked: serialization does not carry every mode a full-screen program may rely on (scroll
   * regions, charsets), so a model showing the alternate screen stays live. Resolves whether it parked.
   */
  hibernate(): Promise<boolean> {
    if (this.live === null || this.disposed) return Promise.resolve(false);
    const live = this.live;
    return this.whenParsed((at) => {
      if (this.live !== live || at !== this.written || live.term.buffer.active.type !== 'normal')
        return false;
      this.harvest();
      this.frozen = new Uint8Array(
        Buffer.from(live.serializer.serialize({ scrollback: LIVE_SCROLLBACK_LINES }), 'utf8'),
      );
      this.frontier?.dispose();
      this.frontier = undefined;
      live.term.dispose();
      this.live = null;
      return true;
    });
  }

  dispose(): void {
    this.disposed = true;
    this.frontier?.dispose();
    this.live?.term.dispose();
    this.live = null;
    this.frozen = null;
  }

  private makeTerminal(): { term: XTerminal; serializer: InstanceType<typeof SerializeAddon> } {
    const term = new Terminal({
      cols: this.size.cols,
      rows: this.size.rows,
      scrollback: LIVE_SCROLLBACK_LINES + HISTORY_SLACK_LINES,
      allowProposedApi: true,
    });
    const serializer = new SerializeAddon();
    term.loadAddon(serializer);
    return { term, serializer };
  }

  /** The live terminal, replaying the parked snapshot first if the model was hibernated. */
  private wake(): { term: XTerminal; serializer: InstanceType<typeof SerializeAddon> } {
    if (this.live !== null) return this.live;
    const live = this.makeTerminal();
    // The parked string holds exactly the lines not yet in history (live scrollback + screen), so the fresh
    // terminal's line 0 is the harvest frontier; the replay is queued before any new bytes.
    if (this.frozen !== null) live.term.write(this.frozen);
    this.frozen = null;
    this.frontier = undefined;
    this.live = live;
    return live;
  }

  /** Copies normal-buffer lines older than the live window into history. */
  private harvest(): void {
    if (this.live === null) return;
    const { term } = this.live;
    const buf = term.buffer.normal;
    // Markers can only be placed while the normal buffer is active; the normal buffer does not scroll while
    // the alternate one is shown, so nothing is missed by waiting.
    if (term.buffer.active !== buf) return;
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
      const line = buf.getLine(i);
      this.history.push(line === undefined ? '' : lineText(line));
    }
    this.frontier?.dispose();
    this.frontier = term.registerMarker(until - (buf.baseY + buf.cursorY));
  }
}
