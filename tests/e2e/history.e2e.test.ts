import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { startRemoteBurrow } from '../helpers/remote-burrow.js';
import { ARTIFACTS_DIR, launchPhone, POCKET_DIST, preparePocket } from './pocket-browser.js';

const LINES = 3000;

let relay: RelayHandle;
let burrow: Awaited<ReturnType<typeof startRemoteBurrow>>;
let phone: Awaited<ReturnType<typeof launchPhone>>;
let page: Page;
const pageLog: string[] = [];

const until = async (cond: () => Promise<boolean> | boolean, what: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
const terminalText = async () => (await page.locator('.xterm-rows').textContent()) ?? '';
const historyText = async () => (await page.locator('.history-page').allTextContents()).join('\n');

beforeAll(async () => {
  preparePocket();
  relay = await startRelay({ assetsDir: POCKET_DIST });
  burrow = await startRemoteBurrow(`http://127.0.0.1:${relay.port}`);
  await until(() => burrow.service.linkStatus.kind === 'connected', 'the relay link');
  phone = await launchPhone();
  page = phone.context.pages()[0] ?? (await phone.context.newPage());
  page.on('console', (m) => pageLog.push(`console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => pageLog.push(`pageerror: ${e.message}`));
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state !== 'fail') return;
  await page.screenshot({
    path: join(ARTIFACTS_DIR, `failed-history-${ctx.task.name.replace(/\W+/g, '-')}.png`),
  });
  console.error(`page log:\n${pageLog.slice(-40).join('\n')}`);
});

afterAll(async () => {
  await phone?.close();
  await burrow?.stop();
  await relay?.stop();
});

describe('Pocket older history', () => {
  it('re-attaching to a long session pages older lines in on scroll, contiguously, to line 1', {
    timeout: 120_000,
  }, async () => {
    await page.goto(await burrow.newPairingLink());
    await page
      .getByRole('region', { name: 'test burrow' })
      .getByText('connected')
      .waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'New session' }).tap();
    await page.getByRole('button', { name: 'Start' }).tap();
    await page.locator('.term-host[data-painted="yes"]').waitFor({ timeout: 20_000 });
    const compose = page.getByRole('textbox', { name: 'Type a line to send' });
    await compose.fill(`seq -f 'n%g' 1 ${LINES}; echo printed-''all`);
    await compose.press('Enter');
    await until(async () => /printed-all/.test(await terminalText()), 'the numbers to print', 30_000);

    // Re-attach: the snapshot carries only the live model's lines; older ones are the Burrow's history.
    await page.getByRole('button', { name: 'Back to the session list' }).tap();
    await page
      .getByRole('button', { name: /^Open / })
      .first()
      .tap();
    await page.locator('.term-host[data-painted="yes"]').waitFor({ timeout: 20_000 });
    await until(async () => /printed-all/.test(await terminalText()), 'the current screen at once');
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'history-attached.png') });
    expect(await page.locator('.history-region').count()).toBe(0);

    // Wheel up over xterm until it is at its top and the region opens with a page.
    const box = (await page.locator('.term-host').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await until(
      async () => {
        await page.mouse.wheel(0, -4000);
        return (await page.locator('.history-page').count()) > 0;
      },
      'the history region to show a page',
      30_000,
    );
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'history-first-page.png') });

    // Scroll the region up (as a swipe would) until the start of history.
    await until(
      async () => {
        await page.locator('.history-scroll').evaluate((el) => {
          el.scrollTop = 0;
          el.dispatchEvent(new Event('scroll'));
        });
        return (await page.getByText('start of history').count()) > 0;
      },
      'the start of history',
      60_000,
    );
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'history-start.png') });
    expect(await page.locator('.history-page').first().textContent()).toMatch(/\bn1\n/);

    // xterm's whole buffer, from the Select view; then every number once, in order, across both.
    await page.getByRole('button', { name: 'Select text to copy' }).tap();
    const xtermText = (await page.locator('.selection pre').textContent()) ?? '';
    await page.getByRole('button', { name: 'Done' }).tap();
    const numbers = `${await historyText()}\n${xtermText}`
      .split('\n')
      .map((l) => /^n(\d+)\s*$/.exec(l)?.[1])
      .filter((n) => n !== undefined)
      .map(Number);
    expect(numbers).toEqual(Array.from({ length: LINES }, (_, i) => i + 1));
    // The region starts above xterm and xterm did not lose lines to the region (both hold some).
    expect(xtermText).toMatch(/n3000/);
    expect(await historyText()).toMatch(/\bn1\b/);
  });
});
