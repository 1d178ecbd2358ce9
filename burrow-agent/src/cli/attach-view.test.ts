/**
 * `burrow attach`'s view, its output read back through a headless xterm standing for the local terminal: a
 * session larger than the terminal shows clipped (its own cells, unwrapped), following the cursor, with the
 * hint line; one of the same size gets its bytes straight through. (tests/integration/attach-clipped.test.ts
 * does the same through the real CLI, daemon and tmux.)
 */
import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { AttachView, type Size } from './attach-view.js';
import { follow } from './clip-render.js';

const LOCAL: Size = { cols: 80, rows: 24 };
const SESSION: Size = { cols: 100, rows: 30 };

/** Row r of the session's screen: its number, then letters up to the last column. */
const rowText = (r: number, cols = SESSION.cols) =>
  `${`R${String(r).padStart(2, '0')}:${'abcdefghijklmnopqrstuvwxyz'.repeat(4)}`.slice(0, cols - 1)}|`;
const drawSession = (cursor: string) =>
  `\x1b[H\x1b[2J${Array.from({ length: SESSION.rows }, (_, r) => `\x1b[${r + 1};1H${rowText(r)}`).join('')}${cursor}`;

function rig(local = LOCAL) {
  const screen = new xtermHeadless.Terminal({ ...local, allowProposedApi: true });
  let written = Promise.resolve();
  const raw: string[] = [];
  const calls = { resync: 0, held: [] as boolean[] };
  const view = new AttachView({
    write: (d) => {
      raw.push(typeof d === 'string' ? d : Buffer.from(d).toString());
      written = written.then(() => new Promise<void>((r) => screen.write(d, r)));
      return true;
    },
    resync: () => calls.resync++,
    hold: (h) => calls.held.push(h),
    local,
    fitKey: 'Ctrl-B f',
    sessionName: () => 'build',
  });
  /** The local terminal's rows once everything written so far is drawn (frames are drawn within FRAME_MS). */
  const lines = async () => {
    await new Promise((r) => setTimeout(r, 60));
    await written;
    const b = screen.buffer.active;
    return Array.from({ length: screen.rows }, (_, y) =>
      (b.getLine(b.viewportY + y)?.translateToString(true) ?? '').trimEnd(),
    );
  };
  return { view, screen, lines, raw, calls };
}

const sizeEvent = (s: Size, holder: 'you' | 'local' | 'remote' = 'remote') =>
  ({ event: 'size', ...s, cause: 'attach', holder, holderAway: false }) as const;

describe('burrow attach view (R-SIZE-8: clipped, never garbled)', () => {
  it('a larger session shows its top-left cells unwrapped, with the hint line', async () => {
    const { view, lines } = rig();
    view.snapshot(SESSION, drawSession('\x1b[1;1H'));
    view.size(sizeEvent(SESSION));
    expect(view.mode).toBe('clipped');
    const shown = await lines();
    for (let r = 0; r < LOCAL.rows - 1; r++) expect(shown[r]).toBe(rowText(r).slice(0, LOCAL.cols));
    expect(shown[23]!.trim()).toBe('Ctrl-B f: fit here · build is 100×30, sized by your phone · more →↓');
  });

  it('follows the cursor to the bottom right, as tmux does, and live output lands in the clipped view', async () => {
    const { view, lines, screen } = rig();
    view.snapshot(SESSION, drawSession('\x1b[30;100H'));
    view.size(sizeEvent(SESSION));
    let shown = await lines();
    // The window moved just enough to hold the cursor: columns 21–100, rows 8–30.
    for (let r = 0; r < 23; r++) expect(shown[r]).toBe(rowText(r + 7).slice(20));
    expect(shown[23]).toContain('sized by your phone · more ←↑');
    expect([screen.buffer.active.cursorX, screen.buffer.active.cursorY]).toEqual([79, 22]);
    // Output: a line at the bottom scrolls the session's screen; the view shows it where the session has it.
    view.output(Buffer.from('\r\nnew bottom line'));
    shown = await lines();
    // The cursor is now in column 16: the window moved left just enough to keep it (columns 16–95).
    expect(shown[22]).toBe('');
    expect(shown[21]).toBe(rowText(29).slice(15, 95));
    expect([screen.buffer.active.cursorX, screen.buffer.active.cursorY]).toEqual([0, 22]);
  });

  it('a wide character cut by the edge is a space; the rest of the row stays in its columns', async () => {
    const { view, lines } = rig();
    // 中 in columns 80–81 of the session: cut by the window's right edge at 80.
    view.snapshot(SESSION, `\x1b[1;78Hab中x\x1b[2;1Hok\x1b[H`);
    view.size(sizeEvent(SESSION));
    let shown = await lines();
    expect(shown[0]).toBe(`${' '.repeat(77)}ab`);
    expect(shown[1]).toBe('ok');
    // With the cursor at the far right the window starts at column 21: 中 in columns 20–21 is cut on the left.
    view.output(Buffer.from('\x1b[1;1H\x1b[2K\x1b[1;20H中yz\x1b[30;100H'));
    shown = await lines();
    expect(shown[0]).toBe('');
    expect(shown[23]).toContain('more ←↑');
    view.output(Buffer.from('\x1b[8;1H\x1b[2K\x1b[8;20H中yz'));
    shown = await lines();
    expect(shown[0]).toBe(' yz');
  });

  it('a smaller session is drawn at the top left with the rest dotted, and the hint says who holds it', async () => {
    const { view, lines } = rig();
    const small = { cols: 40, rows: 10 };
    view.snapshot(small, '\x1b[1;1Hhello\x1b[10;1Hbottom');
    view.size(sizeEvent(small, 'local'));
    const shown = await lines();
    expect(shown[0]).toBe(`hello${' '.repeat(35)}${'·'.repeat(40)}`);
    expect(shown[9]!.startsWith('bottom')).toBe(true);
    expect(shown[10]).toBe('·'.repeat(80));
    expect(shown[23]!.trim()).toBe('Ctrl-B f: fit here · build is 40×10, sized by another terminal');
  });

  it('switches to the bytes themselves when the sizes match again, through a fresh snapshot', async () => {
    const { view, lines, calls, raw } = rig();
    view.snapshot(SESSION, drawSession('\x1b[H'));
    view.size(sizeEvent(SESSION));
    await lines();
    // The session takes this terminal's size (a fit): the view asks for a snapshot and waits for it.
    view.size(sizeEvent(LOCAL, 'you'));
    expect([calls.resync, view.mode]).toEqual([1, 'waiting']);
    view.output(Buffer.from('dropped: the snapshot covers it'));
    view.snapshot(LOCAL, '\x1b[Hsnapshot at 80x24');
    expect(view.direct).toBe(true);
    const shown = await lines();
    expect(shown[0]).toBe('snapshot at 80x24');
    expect(raw.join('')).not.toContain('dropped');
    expect(raw.at(-1)).toBe('\x1bc\x1b[Hsnapshot at 80x24\x1b[?1004h');
    // Direct output is written as it came.
    expect(view.output(Buffer.from('\r\nraw'))).toBe(true);
    expect(raw.at(-1)).toBe('\r\nraw');
  });

  it("keeps Burrow's line above the session, in the scrollback, and the screen exactly the snapshot's", async () => {
    // Long enough to wrap to two rows; a RIS before it would have wiped it at once (xterm.js, VTE).
    const preface = `[burrow: attached to api; resumed Codex conversation ${'0123456789'.repeat(6)}; detach with Ctrl-B d]`;
    const snapshot = `${'old line\r\n'.repeat(30)}\x1b[2J\x1b[Hsession screen\x1b[5;3Hcursor`;
    const plain = rig();
    plain.view.snapshot(LOCAL, snapshot);
    const withLine = rig();
    withLine.view.snapshot(LOCAL, snapshot, preface);
    expect(await withLine.lines()).toEqual(await plain.lines());
    const at = (t: typeof plain.screen) => [t.buffer.active.cursorX, t.buffer.active.cursorY];
    expect(at(withLine.screen)).toEqual(at(plain.screen));
    const b = withLine.screen.buffer.normal;
    const rowsOf = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, y) => b.getLine(from + y)?.translateToString(true) ?? '');
    // The terminal's scrollback: the line first, then the session's own, as it would have been alone.
    expect(rowsOf(0, 2).join('')).toBe(preface);
    expect(b.baseY).toBe(plain.screen.buffer.normal.baseY + 2);
    expect(rowsOf(2, b.baseY)).toEqual(
      Array.from({ length: plain.screen.buffer.normal.baseY }, (_, y) =>
        plain.screen.buffer.normal.getLine(y)!.translateToString(true),
      ),
    );
  });

  it("a clipped view leaves Burrow's line on the terminal's normal screen, under its own", async () => {
    const { view, screen, lines } = rig();
    view.snapshot(
      SESSION,
      drawSession('\x1b[1;1H'),
      '[burrow: attached to build; resumed Gemini CLI conversation g1]',
    );
    view.size(sizeEvent(SESSION));
    expect(view.mode).toBe('clipped');
    expect((await lines())[0]).toBe(rowText(0).slice(0, LOCAL.cols));
    expect(screen.buffer.normal.getLine(0)?.translateToString(true)).toBe(
      '[burrow: attached to build; resumed Gemini CLI conversation g1]',
    );
  });

  it('a resize of the session lands between the bytes around it (the model resizes in stream order)', async () => {
    const { view, lines } = rig({ cols: 30, rows: 6 });
    view.snapshot(SESSION, '\x1b[H');
    view.size(sizeEvent(SESSION));
    // 60 columns of text at 100 columns wide: one row, cut to 20 when the PTY then narrows (xterm re-wraps
    // only lines that wrapped). Had the resize jumped ahead of the text, it would wrap into three rows.
    view.output(Buffer.from('x'.repeat(60)));
    view.size(sizeEvent({ cols: 20, rows: 10 }));
    const shown = await lines();
    const dots = '·'.repeat(10);
    expect(shown.slice(0, 3)).toEqual([
      `${'x'.repeat(20)}${dots}`,
      `${' '.repeat(20)}${dots}`,
      `${' '.repeat(20)}${dots}`,
    ]);
  });

  it('follow() moves a window as little as keeps the cursor in it', () => {
    expect(follow(0, 5, 10, 8)).toBe(0); // it all fits
    expect(follow(0, 5, 10, 30)).toBe(0);
    expect(follow(0, 12, 10, 30)).toBe(3);
    expect(follow(3, 5, 10, 30)).toBe(3);
    expect(follow(10, 5, 10, 30)).toBe(5);
    expect(follow(25, 29, 10, 30)).toBe(20);
  });
});
