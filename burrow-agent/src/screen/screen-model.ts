/**
 * The per-session screen model: a headless xterm fed the PTY's raw bytes in stream order, so an attaching
 * viewer gets the exact current screen — cells, modes, scroll region, tab stops, cursor, everything a later
 * byte or key depends on (restore-string.ts) — plus recent scrollback as one string (DESIGN §6). Lines older
 * than LIVE_SCROLLBACK_LINES move to a compact LineHistory. Widths: the session table (terminal-widths.ts).
 *
 * Why these sizes (measured on the dev machine, see bench/session-bench.ts): xterm holds ~12 bytes per cell,
 * and serializing costs ~18 µs per line, so keeping 10,000 live lines would cost ~14 MB and ~180 ms per attach
 * — over the 4 MB / 100 ms budgets. 300 live lines + 100 lines of harvest slack (+ the screen) is ~1 MB of
 * typed arrays per session and a ~10 ms snapshot; older lines cost ~6 bytes each in LineHistory.
 */

import type { IDisposable, IMarker, Terminal as XTerminal } from '@xterm/headless';
import xtermHeadless from '@xterm/headless';
import { emptyKittyState, type KittyKeyboardState, trackKittyKeyboard } from './kitty-keyboard.js';
import { LineHistory } from './line-history.js';
import { lineText } from './line-text.js';
import {
  atPlainBottom,
  dropLines,
  nextPlainRun,
  type PlainLines,
  plainLines,
  plainModes,
} from './plain-text.js';
import { restoreString } from './restore-string.js';
import { MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from './screen-limits.js';
import { applySessionWidths } from './terminal-widths.js';
import { internals, normalBufferMarker } from './xterm-internals.js';

const { Terminal } = xtermHeadless;

interface LiveTerminal {
  readonly term: XTerminal;
  /** The kitty keyboard flags xterm.js does not track (kitty-keyboard.ts). */
  readonly kitty: KittyKeyboardState;
  readonly hooks: IDisposable;
}

/** Scrollback lines kept in full fidelity (colours, wrapping) and sent with every attach snapshot. */
export const LIVE_SCROLLBACK_LINES = 300;
/**
 * Extra xterm scrollback beyond the live window: lines wait here until they are copied into LineHistory. One
 * model write never scrolls more than HISTORY_SLACK_LINES / 2 lines (writes are split), so none are lost.
 */
export const HISTORY_SLACK_LINES = 100;
export { MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from './screen-limits.js';
/** Chunks shorter than this always go through xterm whole (a plain-text skip needs a buffer's worth of rows). */
export const PLAIN_SKIP_MIN_BYTES = 16 * 1024;
/** Most bytes of queued chunks joined into one (see pump). */
export const PLAIN_SKIP_MERGE_BYTES = 2 * 1024 * 1024;
const LF = 0x0a;

export interface ScreenSnapshot {
  /** The restore string (restore-string.ts): replayed into a fresh terminal of `cols`×`rows`, this screen. */
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
  private live: LiveTerminal | null;
  /**
   * While hibernated: the restore string as exact-size UTF-8 bytes, exact at `written`. Bytes, not the
   * string: it is a rope of thousands of small strings that costs several times its length.
   */
  private frozen: Uint8Array | null = null;
  /** The size callers asked for (reported at once); `termSize` is the terminal's, which follows in order. */
  private size: { cols: number; rows: number };
  private termSize: { cols: number; rows: number };
  readonly history = new LineHistory();
  /** Marker on the first normal-buffer line not yet copied to history; undefined = buffer line 0. */
  private frontier: IMarker | undefined;
  /** Offset of the end of all bytes handed to `write` so far. */
  private written = 0;
  /** Offset of the end of the bytes given to xterm (or skipped past it). */
  private handed = 0;
  /** Offset of the end of all bytes xterm has finished parsing (or skipped past it). */
  private parsed = 0;
  /**
   * What waits for xterm to finish what it has, in stream order: chunks of bytes, and steps (a resize, a
   * whenParsed answer) that must happen exactly between them. xterm gets the next only once it is idle, so a
   * chunk always meets the terminal state everything before it left (skipPlainFlood reads that state).
   */
  private readonly queue: Array<Uint8Array | (() => void)> = [];
  private disposed = false;
  /** term.write calls whose callback has not run: xterm's state is current only at 0. */
  private inFlight = 0;
  private readonly skipFloods: boolean;
  private skipped = 0;
  /** A flood's rest that handOverHead put back at the front of the queue, with its lines already found. */
  private scanned: { readonly chunk: Uint8Array; readonly lines: PlainLines } | null = null;

  /** `offset`: the stream offset of the first byte this model will see (0 for a model made at spawn). */
  constructor(cols: number, rows: number, offset = 0, options: { skipPlainFloods?: boolean } = {}) {
    checkSize(cols, rows);
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new RangeError('offset must be a non-negative integer');
    this.size = { cols, rows };
    this.termSize = { cols, rows };
    this.skipFloods = options.skipPlainFloods ?? true;
    this.written = offset;
    this.handed = offset;
    this.parsed = offset;
    this.live = this.makeTerminal();
  }

  get cols(): number {
    return this.size.cols;
  }

  get rows(): number {
    return this.size.rows;
  }

  /** Bytes that went straight to history without xterm parsing them (skipPlainFlood); for benches and tests. */
  get skippedBytes(): number {
    return this.skipped;
  }

  /** True while the model is parked as a string (see `hibernate`). */
  get hibernated(): boolean {
    return this.frozen !== null;
  }

  /** Bytes handed to the model that xterm has not parsed yet (the pipeline's backpressure signal). */
  get backlog(): number {
    return this.written - this.parsed;
  }

  /**
   * Feeds PTY bytes, in stream order; the model keeps `chunk` until parsed (do not reuse it). Split so no
   * write scrolls past the harvest slack.
   */
  write(chunk: Uint8Array): void {
    if (this.disposed || chunk.byteLength === 0) return;
    this.written += chunk.byteLength;
    this.queue.push(chunk);
    this.pump();
  }

  /** Hands queued chunks and steps to xterm while it is idle. */
  private pump(): void {
    while (this.inFlight === 0 && this.queue.length > 0 && !this.disposed) {
      const item = this.queue.shift()!;
      if (typeof item === 'function') {
        item();
        continue;
      }
      // Chunks that piled up while xterm was busy go on as one: a plain-text skip then parses one buffer's
      // worth of rows per pile instead of per 64 KiB batch.
      let chunk = item;
      // Merging keeps the rest's bytes at the front, so its scan still holds for the merged chunk's prefix.
      const known = this.scanned?.chunk === item ? this.scanned.lines : undefined;
      this.scanned = null;
      if (this.skipFloods && this.queue.length > 0 && typeof this.queue[0] !== 'function') {
        const parts = [item];
        let bytes = item.byteLength;
        while (
          bytes < PLAIN_SKIP_MERGE_BYTES &&
          this.queue.length > 0 &&
          typeof this.queue[0] !== 'function'
        ) {
          const next = this.queue.shift() as Uint8Array;
          parts.push(next);
          bytes += next.byteLength;
        }
        chunk = Buffer.concat(parts, bytes);
      }
      if (!this.skipPlainFlood(chunk, known)) this.writeSplit(chunk);
    }
  }

  private writeSplit(chunk: Uint8Array): void {
    const maxLines = HISTORY_SLACK_LINES / 2;
    const maxBytes = maxLines * this.termSize.cols;
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
    this.handed += piece.byteLength;
    const upTo = this.handed;
    this.inFlight++;
    term.write(piece, () => {
      this.inFlight--;
      this.parsed = upTo;
      this.harvest();
      this.pump();
    });
  }

  /**
   * A flood of plain text (printable ASCII lines, CR LF: `cat` of a log, base64, `seq`) scrolls almost all of
   * itself straight through the screen into history, where only each row's text is kept. When the terminal is
   * in a state where plain text can only do that — normal screen, cursor at the start of a blank bottom row,
   * whole-screen scroll region, wraparound on, no insert or origin mode, default charset and attributes — the
   * rows that would leave xterm before the flood ends are cut into rows here and go to history directly; xterm
   * parses only the last screenful plus scrollback, then whatever follows the flood. History, screen,
   * scrollback and modes come out exactly as if xterm had parsed it all (screen-model.property.test.ts), for a
   * fraction of the CPU (issue 14: parsing every byte was most of the daemon's cost per MB).
   *
   * A chunk is a hand-over of the output log (up to a MiB, lazy-screen.ts), so a flood often sits behind
   * something else — a coloured header, the end of a full-screen program, a line cut in two — or in front of a
   * prompt: xterm parses up to the flood's start (handOverHead) and the flood is looked at again from there;
   * what follows a flood is parsed after its tail. Anything else, or xterm still busy: false, parse it all.
   */
  private skipPlainFlood(chunk: Uint8Array, known: PlainLines | undefined): boolean {
    const live = this.live;
    if (!this.skipFloods || live === null || chunk.byteLength < PLAIN_SKIP_MIN_BYTES || this.inFlight > 0)
      return false;
    const { term } = live;
    const { cols, rows } = this.termSize;
    // The CR of this LF ended the last chunk: xterm takes the LF, then the rest is looked at again.
    if (chunk[0] === LF) return this.handOverHead(chunk, 1);
    const lines = plainLines(chunk, known);
    const keep = LIVE_SCROLLBACK_LINES + HISTORY_SLACK_LINES + rows;
    const rowsOf = (i: number) => Math.max(1, Math.ceil((lines.ends[i]! - lines.starts[i]!) / cols));
    // Complete lines from the end of the plain prefix until they fill xterm's whole buffer: everything before
    // them would be gone.
    let tail = lines.count;
    let tailRows = 0;
    while (tail > 0 && tailRows < keep) tailRows += rowsOf(--tail);
    if (tailRows >= keep && tail > 0 && plainModes(term, rows)) {
      if (!atPlainBottom(term, rows)) {
        // A hand-over boundary cut a line, or the cursor is above the bottom row (after a clear): xterm prints
        // lines until a fresh bottom row has scrolled in (rows − cursorY line ends), then the rest is looked at
        // again.
        const k = Math.min(lines.count, rows - term.buffer.active.cursorY);
        return this.handOverHead(chunk, lines.starts[k]!, dropLines(lines, k));
      }
      this.skipRows(chunk, lines, tail);
      const skipped = lines.starts[tail]!;
      // What follows the flood: xterm parses it up to the next flood, which is looked at again.
      const next = lines.plainToEnd
        ? -1
        : nextPlainRun(chunk, lines.starts[lines.count]!, PLAIN_SKIP_MIN_BYTES);
      if (next > skipped) {
        this.queue.unshift(chunk.subarray(next));
        this.writeSplit(chunk.subarray(skipped, next));
      } else {
        this.writeSplit(chunk.subarray(skipped));
      }
      return true;
    }
    // Nothing to skip where the chunk starts: if a flood starts further on, xterm parses up to it.
    const from = lines.plainToEnd ? chunk.byteLength : lines.starts[lines.count]!;
    const next = nextPlainRun(chunk, from, PLAIN_SKIP_MIN_BYTES);
    return next > 0 && this.handOverHead(chunk, next);
  }

  /**
   * Lines [0, tail) of a plain flood go to history as the rows xterm would have scrolled off — as one block of
   * their bytes, cut into rows only if a history page asks for them (LineHistory.pushFlood) — and the offsets
   * move past them as if xterm had parsed them.
   */
  private skipRows(chunk: Uint8Array, lines: PlainLines, tail: number): void {
    const { cols } = this.termSize;
    // Rows already in xterm above the cursor leave it while the tail scrolls in: history takes them first.
    this.harvest(true);
    let rows = 0;
    for (let i = 0; i < tail; i++) {
      const length = lines.ends[i]! - lines.starts[i]!;
      rows += length === 0 ? 1 : Math.ceil(length / cols);
    }
    const skipped = lines.starts[tail]!;
    // A copy: the hand-over buffer goes back to the daemon's thread once parsed (screen-worker.ts).
    this.history.pushFlood(Buffer.from(chunk.subarray(0, skipped)), cols, rows);
    this.handed += skipped;
    this.parsed += skipped;
    this.skipped += skipped;
  }

  /**
   * xterm parses `chunk[0, at)`; the rest (whose lines are `rest`, when known) goes back to the front of the
   * queue, to be looked at once it has.
   */
  private handOverHead(chunk: Uint8Array, at: number, rest?: PlainLines): boolean {
    if (at <= 0 || chunk.byteLength - at < PLAIN_SKIP_MIN_BYTES) return false;
    const tail = chunk.subarray(at);
    this.queue.unshift(tail);
    this.scanned = rest === undefined ? null : { chunk: tail, lines: rest };
    this.writeSplit(chunk.subarray(0, at));
    return true;
  }

  /** Resolves once every byte written so far is parsed; `then` runs at exactly that point in the stream. */
  whenParsed<T>(then: (offset: number) => T): Promise<T> {
    const at = this.written;
    if (this.disposed) return Promise.reject(new Error('the screen model was disposed'));
    return new Promise((resolve, reject) => {
      this.queue.push(() => {
        try {
          resolve(then(at));
        } catch (err) {
          reject(err);
        }
      });
      this.pump();
    });
  }

  /** The current screen, exact at the returned offset. */
  snapshot(): Promise<ScreenSnapshot> {
    return this.whenParsed((offset) => ({
      data:
        this.frozen !== null
          ? Buffer.from(this.frozen.buffer, this.frozen.byteOffset, this.frozen.byteLength).toString('utf8')
          : this.restore(this.live!),
      cols: this.termSize.cols,
      rows: this.termSize.rows,
      offset,
      historyEnd: this.history.endLine,
    }));
  }

  /** Takes effect after every byte written before it (xterm's own resize would jump the queue). */
  resize(cols: number, rows: number): void {
    checkSize(cols, rows);
    if (cols === this.size.cols && rows === this.size.rows) return;
    this.size = { cols, rows };
    const step = () => {
      if (cols === this.termSize.cols && rows === this.termSize.rows) return;
      if (this.live === null) {
        // Parked: the replay goes to xterm first (its write is queued there); the resize follows it.
        this.wake();
        this.queue.unshift(step);
        return;
      }
      this.termSize = { cols, rows };
      this.live.term.resize(cols, rows);
    };
    this.queue.push(step);
    this.pump();
  }

  /**
   * Parks an idle model as its restore string and frees the terminal (~1.5 MB of cell buffers); the next
   * write, resize or dispose-free read wakes it by replaying that string into a fresh terminal. Lossless: the
   * string carries every state later bytes depend on (restore-string.ts; screen-model.park.property.test.ts),
   * alternate screen included. A model whose parser stands inside an escape sequence or a UTF-8 character
   * (the last read ended mid-sequence) is not parked: the rest of it would meet a terminal that never saw its
   * start. Resolves whether it parked.
   */
  hibernate(): Promise<boolean> {
    if (this.live === null || this.disposed) return Promise.resolve(false);
    const live = this.live;
    return this.whenParsed((at) => {
      if (this.live !== live || at !== this.written || !internals(live.term).atGround) return false;
      this.harvest();
      this.frozen = new Uint8Array(Buffer.from(this.restore(live), 'utf8'));
      this.frontier?.dispose();
      this.frontier = undefined;
      live.hooks.dispose();
      live.term.dispose();
      this.live = null;
      return true;
    });
  }

  dispose(): void {
    this.disposed = true;
    this.queue.length = 0;
    this.frontier?.dispose();
    this.live?.hooks.dispose();
    this.live?.term.dispose();
    this.live = null;
    this.frozen = null;
  }

  /** The serialized terminal from history's end on (`unharvested`: usually LIVE_SCROLLBACK_LINES of scrollback). */
  private restore(live: LiveTerminal): string {
    return restoreString(live.term, { scrollback: this.unharvested(), kitty: live.kitty });
  }

  private makeTerminal(): LiveTerminal {
    const term = new Terminal({
      cols: this.termSize.cols,
      rows: this.termSize.rows,
      scrollback: LIVE_SCROLLBACK_LINES + HISTORY_SLACK_LINES,
      // The width table (terminal-widths.ts) is behind xterm's proposed API.
      allowProposedApi: true,
    });
    applySessionWidths(term);
    const kitty = emptyKittyState();
    const kittyHooks = trackKittyKeyboard(term, kitty);
    // Sequences that erase scrolled-off lines (ED 3, `clear`'s last step; RIS): history takes what is due first,
    // at that exact point of the stream — not at the end of the write, when a hand-over that holds a flood and
    // then the erase would have lost the flood's last lines (false: xterm then handles the sequence).
    const harvestFirst = () => {
      if (this.live?.term === term) this.harvest();
      return false;
    };
    const eraseHooks = [
      term.parser.registerCsiHandler({ final: 'J' }, (params) => (params[0] === 3 ? harvestFirst() : false)),
      term.parser.registerEscHandler({ final: 'c' }, harvestFirst),
    ];
    const hooks = {
      dispose: () => {
        kittyHooks.dispose();
        for (const h of eraseHooks) h.dispose();
      },
    };
    return { term, kitty, hooks };
  }

  /** The live terminal, replaying the parked string first if the model was hibernated. */
  private wake(): LiveTerminal {
    if (this.live !== null) return this.live;
    const live = this.makeTerminal();
    // The parked string holds exactly the lines not yet in history (live scrollback + screen), so the fresh
    // terminal's line 0 is the harvest frontier; the replay is queued before any new bytes.
    if (this.frozen !== null) {
      this.inFlight++;
      live.term.write(this.frozen, () => {
        this.inFlight--;
        this.pump();
      });
    }
    this.frozen = null;
    this.frontier = undefined;
    this.live = live;
    return live;
  }

  /**
   * Scrollback lines not in history yet: what a snapshot (or the parked string) carries, so that its first line
   * is exactly history's end (R-ATTACH-5). Usually LIVE_SCROLLBACK_LINES; after a resize that no write has
   * followed, xterm has moved lines into scrollback (fewer rows) or back out of it (more rows) and the
   * frontier, not a fixed count, says where history stops.
   */
  private unharvested(): number {
    const buf = this.live!.term.buffer.normal;
    const from = this.frontier === undefined || this.frontier.isDisposed ? 0 : this.frontier.line;
    return Math.max(0, buf.baseY - from);
  }

  /**
   * Copies normal-buffer lines older than the live window into history; `aboveCursor`: every line above the
   * cursor's (skipPlainFlood, whose tail pushes them all out of xterm).
   */
  private harvest(aboveCursor = false): void {
    if (this.live === null) return;
    const { term } = this.live;
    // The normal buffer's lines, whichever buffer is active: output that scrolled it and then switched to the
    // alternate screen within one write (a flood, then a full-screen program: one hand-over, lazy-screen.ts)
    // must still reach history while that program runs.
    const buf = term.buffer.normal;
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
    const until = aboveCursor ? buf.baseY + buf.cursorY : buf.baseY - LIVE_SCROLLBACK_LINES;
    if (until <= from) return;
    for (let i = from; i < until; i++) {
      const line = buf.getLine(i);
      this.history.push(line === undefined ? '' : lineText(line));
    }
    this.frontier?.dispose();
    this.frontier = normalBufferMarker(term, until);
  }
}
