/**
 * Issue 22 items 9 and 10 in Pocket, in every engine (chromium, firefox, webkit):
 *  - a PTY larger than the phone's screen — another viewer holds the size — keeps its grid (never re-wrapped),
 *    says who holds the size, pans with the wheel (a drag does the same on a touch screen), and "Fit" takes
 *    the size back (protocol R-SIZE-2, R-SIZE-8);
 *  - after a network cut long enough that the Burrow can no longer resume the phone (more output than its
 *    replay buffer went by), the phone is resynced from a snapshot and keeps the scrollback it had: every line
 *    it had received is still in xterm, in order, with everything printed during the cut (R-ATTACH-8; the
 *    issue measured 344 lines left).
 * Real relay (wrangler dev) behind a proxy that cuts the network, a real Burrow (in process), real bash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTPUT_KEEP_BYTES } from '../../burrow-agent/src/session/session.js';
import type { Attachment } from '../../burrow-agent/src/viewer/viewer.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { startRemoteBurrow } from '../helpers/remote-burrow.js';
import { stopAll } from '../helpers/stop-all.js';
import { type OutageProxy, startOutageProxy } from './outage-proxy.js';
import type { Phone } from './phone/phone.js';
import { launchPhone } from './phone/project.js';
import { POCKET_DIST, preparePocket, reportFailures } from './pocket-browser.js';
import { until, waitForPaintedTerminal, waitForTerminal } from './pocket-screens.js';

let relay: RelayHandle;
/** The phone and the Burrow reach the relay through this, so the network can be cut and come back. */
let front: OutageProxy;
let burrow: Awaited<ReturnType<typeof startRemoteBurrow>>;
let phone: Phone;

beforeAll(async () => {
  await preparePocket();
  relay = await startRelay({ assetsDir: POCKET_DIST });
  front = await startOutageProxy(relay.port);
  burrow = await startRemoteBurrow(front.url);
  await until(() => burrow.service.linkStatus.kind === 'connected', 'the relay link');
  phone = await launchPhone();
});

reportFailures('terminal-size', () => phone);

afterAll(() =>
  stopAll(
    () => phone?.close(),
    () => burrow?.stop(),
    () => front?.stop(),
    () => relay?.stop(),
  ),
);

const compose = () => phone.getByRole('textbox', { name: 'Type a line to send' });
const session = () => burrow.registry.get(burrow.registry.list()[0]!.id);
/** The terminal's pan offset in CSS pixels (TerminalScreen sets it on the host). */
const pan = async () =>
  ((await phone.locator('.term-host').getAttribute('data-pan')) ?? '0,0').split(',').map(Number);

/** Every line xterm holds (scrollback and screen), read from the Select view as a person would copy them. */
async function xtermLines(): Promise<string[]> {
  await phone.getByRole('button', { name: 'Select text to copy' }).tap();
  const text = (await phone.locator('.selection pre').textContent()) ?? '';
  await phone.getByRole('button', { name: 'Done' }).tap();
  return text.split('\n');
}

/** The slice of the page's DOM `wordBox` reads (this file is typed for Node, not the DOM). */
interface Rect {
  readonly left: number;
  readonly width: number;
}
interface PageScope {
  readonly document: {
    querySelector(s: string): { getBoundingClientRect(): Rect } | null;
    querySelectorAll(s: string): Iterable<{ textContent: string | null; getBoundingClientRect(): Rect }>;
  };
}

/**
 * Where a word on the terminal is drawn, relative to the terminal's box (left < 0 or ≥ width: off screen).
 * A row is as wide as the grid (`cols` cells) and holds one cell per character here.
 */
async function wordBox(word: string, cols: number) {
  return phone.evaluate(
    ([w, n]: [string, number]) => {
      const { document } = globalThis as unknown as PageScope;
      const host = document.querySelector('.term-host')!.getBoundingClientRect();
      for (const row of document.querySelectorAll('.xterm-rows > div')) {
        const at = (row.textContent ?? '').indexOf(w);
        if (at < 0) continue;
        const r = row.getBoundingClientRect();
        return { left: r.left + (at * r.width) / n - host.left, width: host.width };
      }
      return null;
    },
    [word, cols] as [string, number],
  );
}

describe('Pocket with a PTY of another size (R-SIZE-2, R-SIZE-8)', () => {
  let desk: Attachment;

  it('opens a shell from the phone, which holds the size', { timeout: 60_000 }, async () => {
    await phone.goto(await burrow.newPairingLink());
    await phone
      .getByRole('region', { name: 'test burrow' })
      .getByText('connected')
      .waitFor({ timeout: 20_000 });
    await phone.getByRole('button', { name: 'New session' }).tap();
    await phone.getByRole('button', { name: 'Start' }).tap();
    await waitForPaintedTerminal(phone);
    await waitForTerminal(phone, /[#$]\s*$/);
    expect(session().info().cols).toBeLessThan(60); // a phone's width
    expect(await phone.locator('.term-size').count()).toBe(0);
  });

  it('a wider desk terminal takes the size: the phone keeps its grid, says who holds it, and pans', {
    timeout: 60_000,
  }, async () => {
    const phoneCols = session().info().cols;
    // The desk attaches at 160×50 (what `burrow attach` in a big terminal does): last attach wins.
    desk = session().attach(
      { id: 'desk', kind: 'local', backlog: () => 0, deliver: () => {}, close: () => {} },
      { size: { cols: 160, rows: 50 } },
    );
    await phone
      .getByRole('status')
      .getByText(
        '160×50, sized by the terminal on your computer. Drag to see the rest; Fit makes it this screen’s size.',
      )
      .waitFor({ timeout: 10_000 });
    // A line as wide as the desk: on the phone it stays one row of the grid, its end off to the right.
    await compose().fill(`clear; printf '%147s' ''; echo RIGHT""EDGE`);
    await compose().press('Enter');
    await waitForTerminal(phone, /RIGHTEDGE/);
    const before = await wordBox('RIGHTEDGE', 160);
    expect(before).not.toBeNull();
    expect(before!.left).toBeGreaterThan(before!.width); // beyond the screen's right edge
    await phone.screenshot('terminal-size-wider-pty');
    // The wheel sideways (a drag on a touch screen) pans the grid until the end of the line is in view.
    // One long turn of the wheel; WebKit under WebDriver delivers a single wheel event for repeated turns at
    // one spot, so each try turns it somewhere else.
    const box = (await phone.locator('.term-host').boundingBox())!;
    let seen = '';
    let turn = 0;
    await until(
      async () => {
        turn++;
        await phone.mouse.wheel(box.x + box.width / 2 + turn, box.y + box.height / 3 + turn, 2000, 0);
        const now = await wordBox('RIGHTEDGE', 160);
        seen = `the word at ${JSON.stringify(now)}, pan ${await pan()} of ${await phone.locator('.term-host').getAttribute('data-pan-max')}`;
        return now !== null && now.left >= 0 && now.left < now.width;
      },
      () => `the end of the line to pan into view (${seen})`,
      15_000,
    );
    expect((await pan())[0]).toBeGreaterThan(0);
    await phone.screenshot('terminal-size-panned');
    expect(session().info().cols).toBe(160); // panning asked the Burrow for nothing
    // "Fit" takes the size back: the PTY is the phone's again, nothing to pan, the line gone.
    await phone.getByRole('button', { name: 'Fit to this screen' }).tap();
    await until(() => session().info().cols === phoneCols, 'the PTY back at the phone’s width');
    await until(async () => (await phone.locator('.term-size').count()) === 0, 'the size line gone');
    await until(async () => (await pan()).join() === '0,0', 'no pan left');
  });

  it('a taller PTY: the window follows the cursor down and the wheel pans it up', {
    timeout: 60_000,
  }, async () => {
    desk.fit(40, 120);
    await phone
      .getByRole('status')
      .getByText(/^40×120, sized by the terminal on your computer/)
      .waitFor();
    await compose().fill('clear; seq 1 119 | sed s/^/row/');
    await compose().press('Enter');
    await waitForTerminal(phone, /row119/);
    // The cursor is at the bottom of the grid: the window followed it down.
    await until(async () => (await pan())[1]! > 0, 'the window to follow the cursor down');
    const bottom = (await pan())[1]!;
    const box = (await phone.locator('.term-host').boundingBox())!;
    await phone.mouse.wheel(box.x + box.width / 2, box.y + box.height / 2, 0, -300);
    await until(async () => (await pan())[1]! < bottom, 'the window to move up over the grid');
    desk.detach();
    // The desk left: the phone, the one viewer left, holds at its screen's size (R-SIZE-4).
    await until(() => session().info().rows < 120, 'the size back at the phone');
    await until(async () => (await phone.locator('.term-size').count()) === 0, 'the size line gone');
  });
});

describe('Pocket keeps its scrollback through a resync (R-ATTACH-8)', () => {
  it('a network cut with more output than the Burrow can replay: every line is still there, in order', {
    timeout: 180_000,
  }, async () => {
    await compose().fill(`clear; seq -f 'n%g' 1 500; echo first-''part`);
    await compose().press('Enter');
    await waitForTerminal(phone, /first-part/, 30_000);
    const before = (await xtermLines()).filter((l) => /^n\d+$/.test(l));
    expect(before).toEqual(Array.from({ length: 500 }, (_, i) => `n${i + 1}`));
    const snapshots = Number(await phone.locator('.term-host').getAttribute('data-snapshots'));
    // Output that starts once the network is gone: 9000 lines of 40 characters (one row each on the phone),
    // ~370 KB: more than the Burrow keeps to resume a viewer, so the phone gets a snapshot; fewer lines than
    // the phone keeps (10,000).
    await compose().fill(
      `sleep 2; seq -f 'm%g ..................................' 1 9000; echo flood-''done`,
    );
    await compose().press('Enter');
    // The command reached the shell (its echo is back) before the network goes.
    await waitForTerminal(phone, /sleep 2; seq -f/);
    const cutAt = session().info().offset;
    await front.cut();
    await phone
      .getByRole('status')
      .getByText(/reconnecting/)
      .waitFor({ timeout: 15_000 });
    await until(
      () => session().info().offset - cutAt > OUTPUT_KEEP_BYTES,
      'the flood to pass the replay buffer',
      30_000,
    );
    await new Promise((r) => setTimeout(r, 20_000 - 2_000));
    await front.restore();
    await waitForTerminal(phone, /flood-done/, 90_000);
    // It could not resume: the Burrow sent a fresh snapshot.
    expect(Number(await phone.locator('.term-host').getAttribute('data-snapshots'))).toBe(snapshots + 1);
    await phone.screenshot('terminal-size-after-resync');
    const after = await xtermLines();
    const n = after.filter((l) => /^n\d+$/.test(l));
    const m = after.filter((l) => /^m\d+ \.+$/.test(l)).map((l) => l.split(' ')[0]);
    // Nothing the phone had is gone (the issue: 344 lines left), and nothing printed meanwhile is missing.
    expect(n).toEqual(before);
    expect(m).toEqual(Array.from({ length: 9000 }, (_, i) => `m${i + 1}`));
    expect(after.length).toBeGreaterThan(9500);
  });
});
