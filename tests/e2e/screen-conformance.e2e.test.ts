/**
 * Screen conformance in Pocket (issue 22), in each engine the e2e projects run: the cases of
 * tests/helpers/screen-cases.ts run as sessions of a Burrow; the phone opens each one (a snapshot), the program
 * draws more (live output), the phone leaves, the session parks, the phone opens it again (the parked
 * snapshot) and the program draws more. After each step the cells and modes of Pocket's xterm.js are compared
 * with tmux fed exactly the bytes the program wrote, at the phone's size: 0 differing cells.
 *
 * tmux's capture-pane does not report the background of blanks erased to the end of a line (BCE: curses
 * clears a coloured title bar that way), so the background of a row's trailing blanks is not compared here
 * where tmux shows the default; tests/integration/screen-conformance.test.ts (tmux against tmux) and the unit
 * tests (xterm.js against itself) compare it.
 *
 * Sessions are created at the phone's terminal size, so opening one does not resize the program (a resize
 * reflows the reference and the viewer differently: that is not what this measures). htop and top are stopped
 * once drawn, as in tests/integration/screen-conformance.test.ts, which says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Attachment, ViewerEvent, ViewerSink } from '../../burrow-agent/src/viewer/viewer.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { startRemoteBurrow } from '../helpers/remote-burrow.js';
import { SCREEN_CASES } from '../helpers/screen-cases.js';
import { stopAll } from '../helpers/stop-all.js';
import {
  type Cell,
  diffCells,
  diffModes,
  type ScreenCapture,
  type ScreenModes,
  TmuxServer,
} from '../helpers/tmux-screen.js';
import type { Phone } from './phone/phone.js';
import { launchPhone } from './phone/project.js';
import { POCKET_DIST, preparePocket, reportFailures } from './pocket-browser.js';
import { until, waitForPaintedTerminal } from './pocket-screens.js';

const QUIET_MS = 600;

let relay: RelayHandle;
let burrow: Awaited<ReturnType<typeof startRemoteBurrow>>;
let phone: Phone;
let tmux: TmuxServer;
let size: { cols: number; rows: number };
let work: string;

/** Pocket's terminal, read in the page: rows of cells in tmux-screen.ts's attribute key, and the modes. */
function readTerminal(): { rows: Cell[][]; modes: ScreenModes; cols: number; rowCount: number } {
  // biome-ignore lint/suspicious/noExplicitAny: xterm.js internals, read the way xterm-internals.ts does
  const term = (globalThis as any).document.querySelector('.term-host').xterm as any;
  const buf = term.buffer.active;
  const core = term._core;
  const colour = (mode: number, value: number) =>
    mode === 0 ? 'd' : mode === 0x3000000 ? `r${value.toString(16).padStart(6, '0')}` : `p${value}`;
  const rows: { text: string; attrs: string }[][] = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buf.getLine(buf.baseY + y);
    const cells: { text: string; attrs: string }[] = [];
    for (let x = 0; x < term.cols; x++) {
      const c = line.getCell(x);
      if (c.getWidth() === 0) continue;
      const ext = (c.bg & 0x10000000) !== 0 ? c.extended : null;
      const ul = c.isUnderline() ? (ext !== null ? (ext._ext >>> 26) & 7 || 1 : 1) : 0;
      const ulColor = ul !== 0 && ext !== null ? ext.underlineColor & 0x3ffffff : 0;
      const f = (on: number | boolean, ch: string) => (on ? ch : '-');
      const attrs =
        `${f(c.isBold(), 'b')}${f(c.isDim(), 'd')}${f(c.isItalic(), 'i')}u${ul}${f(c.isBlink(), 'k')}` +
        `${f(c.isInverse(), 'v')}${f(c.isInvisible(), 'h')}${f(c.isStrikethrough(), 's')}${f(c.isOverline(), 'o')}` +
        ` f${colour(c.getFgColorMode(), c.getFgColor())} b${colour(c.getBgColorMode(), c.getBgColor())}` +
        ` u${colour(ulColor & 0x3000000, ulColor & 0xffffff)}`;
      cells.push({ text: c.getChars() === '' ? ' ' : c.getChars(), attrs });
    }
    rows.push(cells);
  }
  const tabs: number[] = [];
  for (let x = 1; x < term.cols; x++) if (core.buffer.tabs[x]) tabs.push(x);
  const m = term.modes;
  const mouse = m.mouseTrackingMode === 'x10' ? 'vt200' : m.mouseTrackingMode;
  return {
    rows,
    cols: term.cols,
    rowCount: term.rows,
    modes: {
      // tmux reports a cursor waiting to wrap (past the last column) on the last column.
      cursor: `${Math.min(buf.cursorX, term.cols - 1)},${buf.cursorY}`,
      cursorVisible: !core.coreService.isCursorHidden,
      insert: m.insertMode,
      applicationCursor: m.applicationCursorKeysMode,
      applicationKeypad: m.applicationKeypadMode,
      mouse,
      mouseSgr: core.coreMouseService.activeEncoding === 'SGR',
      origin: m.originMode,
      wrap: m.wraparoundMode,
      alternate: buf.type === 'alternate',
      scrollRegion: `${core.buffer.scrollTop},${core.buffer.scrollBottom}`,
      tabs: tabs.join(','),
      title: core._inputHandler._windowTitle,
    },
  };
}

async function phoneScreen(): Promise<ScreenCapture> {
  const r = (await phone.evaluate(readTerminal)) as ReturnType<typeof readTerminal>;
  return { rows: r.rows, modes: r.modes };
}

/** Waits until Pocket's screen stops changing. */
async function settled(): Promise<void> {
  let last = '';
  let since = Date.now();
  await until(
    async () => {
      const now = JSON.stringify(await phoneScreen());
      if (now !== last) {
        last = now;
        since = Date.now();
      }
      return Date.now() - since >= 500;
    },
    'Pocket’s terminal to settle',
    30_000,
  );
}

async function reference(bytes: Buffer): Promise<ScreenCapture> {
  const pane = tmux.feed(bytes);
  await until(() => tmux.fed(pane), 'the reference pane to be fed');
  let last = '';
  let since = Date.now();
  await until(() => {
    const now = tmux.text(pane);
    if (now !== last) {
      last = now;
      since = Date.now();
    }
    return Date.now() - since >= 300;
  }, 'the reference pane');
  const c = tmux.capture(pane);
  tmux.kill(pane);
  // A cursor waiting to wrap: tmux 3.3a reports it past the last column after some writes (top at 47 columns)
  // and on it after others (htop at the same width), with the same screen and the same next character; the
  // phone's is read on the last column too (readTerminal), so both sides compare alike.
  const [x, y] = c.modes.cursor.split(',').map(Number) as [number, number];
  return { ...c, modes: { ...c.modes, cursor: `${Math.min(x, size.cols - 1)},${y}` } };
}

/** A viewer from `from` on the Burrow itself (in process): every byte the program wrote, into `into`. */
function record(sessionId: string, from: number, into: Buffer[]): { att: Attachment } {
  let snapshot = false;
  const sink: ViewerSink = {
    id: `rec-${Date.now()}`,
    kind: 'local',
    backlog: () => 0,
    deliver: (e: ViewerEvent) => {
      if (e.type === 'snapshot') snapshot = true;
      if (e.type === 'output') into.push(Buffer.from(e.data));
    },
    close: () => {},
  };
  const att = burrow.registry.get(sessionId).attach(sink, { resumeFrom: from });
  if (snapshot) throw new Error('the recorder got a snapshot: the Burrow no longer held the bytes');
  return { att };
}

/** Waits until the program wrote past `after` bytes and then went quiet: it has drawn. */
async function quiet(bytes: Buffer[], after = 0): Promise<void> {
  let n = -1;
  let since = Date.now();
  await until(
    () => {
      const len = bytes.reduce((s, b) => s + b.byteLength, 0);
      if (len !== n) {
        n = len;
        since = Date.now();
      }
      return len > after && Date.now() - since >= QUIET_MS;
    },
    'the program to draw',
    30_000,
  );
}

/** Types `keys` into the session and waits for the program's answer to be drawn. */
async function type(att: Attachment, bytes: Buffer[], keys: string): Promise<void> {
  const before = bytes.reduce((s, b) => s + b.byteLength, 0);
  att.input(Buffer.from(keys));
  await quiet(bytes, before);
}

/** Taps on a row before openSession gives up on reaching the session it names (see there). */
const OPEN_ATTEMPTS = 3;

/**
 * Opens a session on the phone; its screen is read once settled(). The list puts the most recently active
 * session first, and the one a case just typed into can move up after the row to tap was found (its directory
 * update arrives late): the tap then opens the neighbour that slid under it ("modes" opened
 * "wrap-at-region-top", Chromium, full run of 4 Dec 2026). A person who lands on the wrong session goes back and
 * taps again; so does this.
 */
async function openSession(name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await phone.getByRole('button', { name: new RegExp(`^Open ${name}`) }).tap();
    await phone.getByRole('button', { name: 'Back to the session list' }).waitFor();
    // The heading comes with the back button (one header): this one, not a neighbour.
    if ((await phone.getByRole('heading', { name: new RegExp(`^${name}$`) }).count()) === 1) break;
    const opened = (await phone.getByRole('heading').allTextContents()).join(', ');
    if (attempt === OPEN_ATTEMPTS) throw new Error(`tapping ${name} opened ${opened} ${OPEN_ATTEMPTS} times`);
    console.warn(`[e2e] tapping ${name} opened ${opened}: back, and again`);
    await backToList();
  }
  await waitForPaintedTerminal(phone);
}

async function backToList(): Promise<void> {
  await phone.getByRole('button', { name: 'Back to the session list' }).tap();
  await phone.getByRole('button', { name: 'New session' }).waitFor();
}

beforeAll(async () => {
  process.env.LANG = 'C.UTF-8';
  process.env.LC_ALL = 'C.UTF-8';
  const { mkdtempSync, copyFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { REPO_ROOT } = await import('../../relay-worker/test/harness.js');
  work = mkdtempSync(join(tmpdir(), 'burrow-conformance-'));
  copyFileSync(join(REPO_ROOT, 'README.md'), join(work, 'README'));
  await preparePocket();
  relay = await startRelay({ assetsDir: POCKET_DIST });
  burrow = await startRemoteBurrow(`http://127.0.0.1:${relay.port}`);
  await until(() => burrow.service.linkStatus.kind === 'connected', 'the relay link');
  phone = await launchPhone();
  await phone.goto(await burrow.newPairingLink());
  await phone
    .getByRole('region', { name: 'test burrow' })
    .getByText('connected')
    .waitFor({ timeout: 20_000 });
  // The phone's terminal size: open a probe session once.
  burrow.registry.create({ name: 'probe', cwd: work, command: ['sleep', '600'] });
  await openSession('probe');
  await settled();
  const probe = (await phone.evaluate(readTerminal)) as ReturnType<typeof readTerminal>;
  size = { cols: probe.cols, rows: probe.rowCount };
  await backToList();
  tmux = new TmuxServer(size.cols, size.rows, { LANG: 'C.UTF-8', PATH: process.env.PATH });
});

reportFailures('screen-conformance', () => phone);

afterAll(() =>
  stopAll(
    async () => tmux?.close(),
    () => phone?.close(),
    () => burrow?.stop(),
    () => relay?.stop(),
  ),
);

/** A case's session, started before its turn (its program draws while earlier cases run). */
interface Started {
  readonly id: string;
  readonly bytes: Buffer[];
  readonly rec: { att: Attachment };
  readonly ready: Promise<void>;
}

const started = new Map<string, Started>();

/**
 * Starts every case's program up front, each with its recorder attached (a watched session never parks, so
 * each is still unparked when its turn comes, as it would be started alone): the programs' start-up and
 * drawing overlap the phone's work on earlier cases instead of adding to it.
 */
function startAll(): void {
  for (const c of SCREEN_CASES) {
    const s = burrow.registry.create({ name: c.name, cwd: work, command: c.command(work), ...size });
    const bytes: Buffer[] = [];
    const rec = record(s.id, 0, bytes);
    const ready = quiet(bytes).then(() => {
      if (c.freeze) process.kill(s.info().pid, 'SIGSTOP');
    });
    ready.catch(() => {}); // awaited by the case, which reports it
    started.set(c.name, { id: s.id, bytes, rec, ready });
  }
}

describe('screen conformance: Pocket vs tmux', () => {
  beforeAll(async () => {
    startAll();
    // Every program has drawn (and the clocks are stopped) before the phone taps its first row: a list that
    // still changed under the tap opened another session once (WebKit, "man" for "scroll-region").
    await Promise.all([...started.values()].map((s) => s.ready));
  });
  for (const c of SCREEN_CASES) {
    it(`${c.name}: ${c.about}`, { timeout: 120_000 }, async () => {
      const { id, bytes, ready } = started.get(c.name)!;
      let r = started.get(c.name)!.rec;
      const s = burrow.registry.get(id);
      await ready;
      const diffs: Record<string, unknown> = {};
      const check = async (path: string) => {
        // The reference is drawn while the phone settles.
        const [ref] = await Promise.all([reference(Buffer.concat(bytes)), settled()]);
        const got = await phoneScreen();
        const cells = diffCells(ref.rows, got.rows, { lineEndBackground: false });
        const modes = diffModes(ref.modes, got.modes);
        if (cells.text + cells.attrs > 0 || modes.length > 0) diffs[path] = { ...cells, modes };
      };
      await openSession(c.name);
      await check('snapshot');
      if (c.keys !== undefined) {
        await type(r.att, bytes, c.keys);
        await check('snapshot + live');
      }
      await backToList();
      r.att.detach();
      // The phone's detach crosses the relay: park once it has arrived (a watched session never parks).
      await until(() => s.info().viewers === 0, 'the phone to detach');
      expect(await burrow.registry.sweep(Date.now() + 120_000)).toBeGreaterThanOrEqual(1);
      await openSession(c.name);
      r = record(
        s.id,
        bytes.reduce((n, b) => n + b.byteLength, 0),
        bytes,
      );
      await check('park');
      if (c.keys !== undefined) {
        await type(r.att, bytes, c.keys);
        await check('park + live');
      }
      r.att.detach();
      await backToList();
      if (c.freeze) process.kill(s.info().pid, 'SIGCONT');
      await burrow.registry.kill(s.id);
      expect(diffs).toEqual({});
    });
  }
});
