/**
 * What `burrow attach` shows in the local terminal (issue 22 item 9, protocol R-SIZE-8):
 *  - **direct** while the local terminal and the session's PTY have the same size: the PTY's bytes go to the
 *    terminal untouched (the fast path: a keystroke's echo costs one write);
 *  - **clipped** while they differ: a headless xterm of the session (fed a fresh snapshot, then the output) is
 *    drawn onto the terminal's alternate screen — the part of the session's grid that fits, following the
 *    cursor as tmux does, never re-wrapped at the wrong width — above one line saying the session's size, who
 *    holds it and which key takes it back.
 * Switching asks the daemon for a fresh snapshot (`resync`), so each mode starts from an exact screen: direct
 * replays it raw after RIS (as the attach itself does), clipped builds its model from it.
 */
import type { Terminal as XTerminal } from '@xterm/headless';
import xtermHeadless from '@xterm/headless';
import type { StreamEvent } from '../control/control-messages.js';
import { applySessionWidths } from '../screen/terminal-widths.js';
import { follow, renderWindow } from './clip-render.js';

const { Terminal } = xtermHeadless;

export interface Size {
  readonly cols: number;
  readonly rows: number;
}

type SizeEvent = Extract<StreamEvent, { event: 'size' }>;

/** Enables focus reports from the host terminal (cleared by the RIS before a raw snapshot). */
export const FOCUS_REPORTS_ON = '\x1b[?1004h';
/**
 * Least time between two clipped frames (ms): a flood redraws at most ~60 times a second; a keystroke after a
 * quiet spell is drawn at once.
 */
export const FRAME_MS = 16;
/** Longest a clipped frame waits for a program's synchronized update (DECSET 2026) to end (ms). */
export const SYNC_WAIT_MS = 200;
/** Bytes handed to the clipped model and not yet parsed before the daemon is asked to wait (backpressure). */
export const MODEL_PAUSE_BYTES = 1024 * 1024;
/** ... and resumed below this. */
export const MODEL_RESUME_BYTES = 256 * 1024;
/** Scrollback of the clipped model (the daemon's model keeps 300 + 100; a snapshot brings 300). */
export const MODEL_SCROLLBACK_LINES = 1000;
/** How long a resize of a terminal that holds the size waits for the daemon's answer before judging (ms). */
export const OWN_RESIZE_WAIT_MS = 500;

/** Leaves the host terminal as a clipped frame needs it: mouse reports off (the grid is offset), no wrap. */
const CLIPPED_ENTER = '\x1b[?1049h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?7l\x1b[2J';
const CLIPPED_LEAVE = '\x1b[?7h\x1b[?1049l';

export interface AttachViewOptions {
  /** Writes to the local terminal; false when its buffer is full (the view then asks the daemon to wait). */
  readonly write: (data: string | Uint8Array) => boolean;
  /** Asks the daemon for a fresh snapshot of the session. */
  readonly resync: () => void;
  /** The daemon should stop (true) or resume (false) sending output. */
  readonly hold: (held: boolean) => void;
  /** The local terminal's size. */
  readonly local: Size;
  /** The key that takes the size back, as people write it ("Ctrl-B f"). */
  readonly fitKey: string;
  /** The session's name as shown (it may be learnt after the view starts). */
  readonly sessionName: () => string;
}

/**
 * The clipped model and what waits for it, in stream order: bytes, and resizes that must land exactly between
 * them (xterm's own resize would jump ahead of bytes it has not parsed yet).
 */
interface Clipped {
  readonly kind: 'clipped';
  readonly term: XTerminal;
  readonly queue: Array<string | Uint8Array | Size>;
  parsing: boolean;
}

type Mode =
  | { readonly kind: 'waiting'; readonly target: 'direct' | 'clipped' }
  | { readonly kind: 'direct' }
  | Clipped;

export class AttachView {
  readonly #o: AttachViewOptions;
  #mode: Mode = { kind: 'waiting', target: 'direct' };
  #local: Size;
  #pty: Size | null = null;
  #holder: SizeEvent['holder'] = null;
  #holderAway = false;
  /** Top-left of the window over the session's grid (clipped). */
  #x = 0;
  #y = 0;
  /** What each local row shows now (clipped): only changed rows are redrawn. */
  #shown: string[] = [];
  #frameTimer: NodeJS.Timeout | undefined;
  #lastFrameAt = Number.NEGATIVE_INFINITY;
  #syncSince: number | null = null;
  #pending = 0;
  #held = false;
  #cursorHidden = false;
  #ownResize: NodeJS.Timeout | undefined;
  #modes = '';
  #disposed = false;

  constructor(options: AttachViewOptions) {
    this.#o = options;
    this.#local = options.local;
  }

  /** True while PTY bytes go straight to the terminal. */
  get direct(): boolean {
    return this.#mode.kind === 'direct';
  }

  get mode(): 'waiting' | 'direct' | 'clipped' {
    return this.#mode.kind;
  }

  /**
   * A snapshot of the session (the attach's, or one this view asked for). `preface`: a line of Burrow's own
   * (attach-line.ts) the terminal keeps just above the session — in its scrollback, never on the session's
   * screen, which stays exactly the snapshot.
   */
  snapshot(size: Size, data: string, preface?: string): void {
    this.#pty = size;
    const target = this.#want();
    this.#leaveClipped();
    if (target === 'direct') {
      // RIS gives the snapshot a clean terminal; it also clears 1004, so ask for focus reports again. RIS also
      // empties the scrollback in xterm.js and VTE, so a line written before it is gone at once: the preface
      // comes after it, and one CR LF per row scrolls it (however many rows it wrapped to) into the scrollback,
      // leaving a blank screen with the cursor at home — the state the snapshot is made for (protocol
      // R-ATTACH-8 refills scrollback the same way).
      const above = preface === undefined ? '' : `${preface}${'\r\n'.repeat(size.rows)}\x1b[H`;
      this.#o.write(`\x1bc${above}${data}${FOCUS_REPORTS_ON}`);
      this.#mode = { kind: 'direct' };
      return;
    }
    // Clipped: the alternate screen (CLIPPED_ENTER) leaves the preface on the normal one, there after leaving.
    if (preface !== undefined) this.#o.write(`${preface}\r\n`);
    // Scrollback as the daemon's model keeps (screen-model.ts): a PTY that grows pulls lines back down from it,
    // and the view must show the same ones.
    const term = new Terminal({
      cols: size.cols,
      rows: size.rows,
      scrollback: MODEL_SCROLLBACK_LINES,
      allowProposedApi: true,
    });
    applySessionWidths(term);
    // DECTCEM is not in xterm's public modes: watch it go by (and RIS / DECSTR, which show the cursor).
    term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, (p) => this.#cursorMode(p, false));
    term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, (p) => this.#cursorMode(p, true));
    term.parser.registerCsiHandler({ intermediates: '!', final: 'p' }, () => this.#cursorShown());
    term.parser.registerEscHandler({ final: 'c' }, () => this.#cursorShown());
    term.onTitleChange((title) => this.#o.write(`\x1b]2;${title.replace(/[\x00-\x1f\x7f-\x9f]/g, '')}\x07`));
    term.onBell(() => this.#o.write('\x07'));
    this.#cursorHidden = false;
    const clipped: Clipped = { kind: 'clipped', term, queue: [], parsing: false };
    this.#mode = clipped;
    this.#o.write(CLIPPED_ENTER);
    this.#shown = [];
    this.#modes = '';
    this.#feed(clipped, data);
  }

  /** PTY bytes. Direct: written through (the caller's fast path does the same); clipped: into the model. */
  output(data: Uint8Array): boolean {
    const mode = this.#mode;
    if (mode.kind === 'direct') return this.#o.write(data);
    // Waiting: the snapshot asked for covers these bytes.
    if (mode.kind === 'clipped') this.#feed(mode, data);
    return true;
  }

  /** The daemon's word on the session's size and who holds it, in stream order. */
  size(e: SizeEvent): void {
    this.#holder = e.holder;
    this.#holderAway = e.holderAway;
    const changed = this.#pty === null || this.#pty.cols !== e.cols || this.#pty.rows !== e.rows;
    this.#pty = { cols: e.cols, rows: e.rows };
    clearTimeout(this.#ownResize);
    this.#ownResize = undefined;
    const mode = this.#mode;
    // In stream order with the output, so the model resizes exactly where the PTY did.
    if (changed && mode.kind === 'clipped') this.#feed(mode, { cols: e.cols, rows: e.rows });
    this.#judge();
    if (this.#mode.kind === 'clipped') this.#schedule(true);
  }

  /** The local terminal was resized (SIGWINCH). */
  localResize(size: Size): void {
    this.#local = size;
    if (this.#holder === 'you' && this.#mode.kind === 'direct') {
      // The daemon resizes the PTY to match and says so: judge then, not on the way (no flicker through a
      // clipped frame). If nothing comes back (a size it cannot take), judge anyway.
      clearTimeout(this.#ownResize);
      this.#ownResize = setTimeout(() => this.#judge(), OWN_RESIZE_WAIT_MS);
      this.#ownResize.unref();
      return;
    }
    this.#judge();
    if (this.#mode.kind === 'clipped') this.#schedule(true);
  }

  /** Stops drawing; what the caller writes next restores the terminal. */
  dispose(): void {
    this.#disposed = true;
    clearTimeout(this.#frameTimer);
    clearTimeout(this.#ownResize);
    this.#leaveClipped();
  }

  #want(): 'direct' | 'clipped' {
    const pty = this.#pty;
    return pty !== null && pty.cols === this.#local.cols && pty.rows === this.#local.rows
      ? 'direct'
      : 'clipped';
  }

  /** Switches mode if the sizes say so: via a fresh snapshot, so the new mode starts exact. */
  #judge(): void {
    if (this.#disposed) return;
    const want = this.#want();
    const mode = this.#mode;
    if (mode.kind === 'waiting') {
      this.#mode = { kind: 'waiting', target: want };
      return;
    }
    if (mode.kind === want) return;
    this.#mode = { kind: 'waiting', target: want };
    this.#o.resync();
  }

  #leaveClipped(): void {
    const mode = this.#mode;
    if (mode.kind !== 'clipped') return;
    mode.term.dispose();
    this.#o.write(CLIPPED_LEAVE);
    this.#setHeld(false);
    this.#pending = 0;
  }

  #feed(clipped: Clipped, item: string | Uint8Array | Size): void {
    if (typeof item === 'string' || item instanceof Uint8Array) {
      this.#pending += item.length;
      if (this.#pending > MODEL_PAUSE_BYTES) this.#setHeld(true);
    }
    clipped.queue.push(item);
    this.#pump(clipped);
  }

  /**
   * Hands the model the next item once it has parsed the last: bytes to xterm, sizes to `resize`. Once it has
   * caught up, a frame is due.
   */
  #pump(clipped: Clipped): void {
    while (!clipped.parsing && clipped.queue.length > 0 && this.#mode === clipped) {
      const item = clipped.queue.shift()!;
      if (!(typeof item === 'string' || item instanceof Uint8Array)) {
        clipped.term.resize(item.cols, item.rows);
        continue;
      }
      clipped.parsing = true;
      clipped.term.write(item, () => {
        clipped.parsing = false;
        if (this.#mode !== clipped) return;
        this.#pending -= item.length;
        if (this.#pending < MODEL_RESUME_BYTES) this.#setHeld(false);
        this.#pump(clipped);
      });
    }
    if (!clipped.parsing && clipped.queue.length === 0 && this.#mode === clipped) this.#schedule(false);
  }

  #setHeld(held: boolean): void {
    if (held === this.#held) return;
    this.#held = held;
    this.#o.hold(held);
  }

  #cursorMode(params: (number | number[])[], hidden: boolean): boolean {
    if (params.includes(25)) this.#cursorHidden = hidden;
    return false; // xterm handles the sequence as well
  }

  #cursorShown(): boolean {
    this.#cursorHidden = false;
    return false;
  }

  /** Draws a frame now if the last one is FRAME_MS old, else when it is; `full` redraws every row. */
  #schedule(full: boolean): void {
    if (full) this.#shown = [];
    if (this.#frameTimer !== undefined || this.#disposed) return;
    const wait = Math.max(0, this.#lastFrameAt + FRAME_MS - performance.now());
    if (wait === 0) {
      this.#frame();
      return;
    }
    this.#frameTimer = setTimeout(() => {
      this.#frameTimer = undefined;
      this.#frame();
    }, wait);
  }

  #frame(): void {
    const mode = this.#mode;
    if (mode.kind !== 'clipped' || this.#pty === null) return;
    const { term } = mode;
    // Drawn once the model has caught up (the bytes that resize it, too).
    if (mode.parsing || mode.queue.length > 0) return;
    // A program in the middle of a synchronized update: draw when it ends (or after SYNC_WAIT_MS).
    if (term.modes.synchronizedOutputMode) {
      this.#syncSince ??= performance.now();
      if (performance.now() - this.#syncSince < SYNC_WAIT_MS) {
        this.#frameTimer = setTimeout(() => {
          this.#frameTimer = undefined;
          this.#frame();
        }, FRAME_MS);
        return;
      }
    }
    this.#syncSince = null;
    this.#lastFrameAt = performance.now();
    const local = this.#local;
    const pty = this.#pty;
    const hint = local.rows > 1 ? 1 : 0;
    const view = { cols: Math.min(local.cols, pty.cols), rows: Math.min(local.rows - hint, pty.rows) };
    const buffer = term.buffer.active;
    this.#x = follow(this.#x, buffer.cursorX, view.cols, pty.cols);
    this.#y = follow(this.#y, buffer.cursorY, view.rows, pty.rows);
    const body = renderWindow(term, { x: this.#x, y: this.#y, ...view });
    const fill = `\x1b[0;2m${'·'.repeat(local.cols)}\x1b[0m`;
    const rows: string[] = [];
    for (let r = 0; r < local.rows - hint; r++) {
      const row = body[r];
      if (row === undefined) rows.push(fill);
      else if (view.cols < local.cols)
        rows.push(`${row}\x1b[0;2m${'·'.repeat(local.cols - view.cols)}\x1b[0m`);
      else rows.push(row);
    }
    if (hint) rows.push(this.#hintLine(view));
    let out = '\x1b[?2026h\x1b[?25l';
    for (let r = 0; r < rows.length; r++) {
      if (this.#shown[r] === rows[r]) continue;
      out += `\x1b[${r + 1};1H${rows[r]}`;
    }
    this.#shown = rows;
    out += this.#modeChanges(term);
    const cx = buffer.cursorX - this.#x;
    const cy = buffer.cursorY - this.#y;
    if (!this.#cursorHidden && cx >= 0 && cx < view.cols && cy >= 0 && cy < view.rows)
      out += `\x1b[${cy + 1};${cx + 1}H\x1b[?25h`;
    this.#o.write(`${out}\x1b[?2026l`);
  }

  /** The input modes the program set, mirrored on the host terminal so keys are encoded as it expects. */
  #modeChanges(term: XTerminal): string {
    const m = term.modes;
    const modes =
      (m.applicationCursorKeysMode ? '\x1b[?1h' : '\x1b[?1l') +
      (m.applicationKeypadMode ? '\x1b=' : '\x1b>') +
      (m.bracketedPasteMode ? '\x1b[?2004h' : '\x1b[?2004l');
    if (modes === this.#modes) return '';
    this.#modes = modes;
    return modes;
  }

  /**
   * The bottom line: the key that fits the session here (first: it must survive a narrow terminal), the
   * session's size and who holds it, and arrows where more of it lies outside the window.
   */
  #hintLine(view: Size): string {
    const pty = this.#pty!;
    const who =
      this.#holder === 'remote'
        ? this.#holderAway
          ? 'your phone (reconnecting)'
          : 'your phone'
        : this.#holder === 'local'
          ? 'another terminal'
          : this.#holder === 'you'
            ? 'this terminal'
            : 'nobody';
    const more =
      (this.#x > 0 ? '←' : '') +
      (this.#x + view.cols < pty.cols ? '→' : '') +
      (this.#y > 0 ? '↑' : '') +
      (this.#y + view.rows < pty.rows ? '↓' : '');
    const text = ` ${this.#o.fitKey}: fit here · ${this.#o.sessionName()} is ${pty.cols}×${pty.rows}, sized by ${who}${more === '' ? '' : ` · more ${more}`} `;
    const cut = [...text].slice(0, this.#local.cols).join('');
    return `\x1b[0;7m${cut}${' '.repeat(Math.max(0, this.#local.cols - [...cut].length))}\x1b[0m`;
  }
}
