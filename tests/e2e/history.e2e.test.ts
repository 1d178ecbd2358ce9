import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { startRemoteBurrow } from '../helpers/remote-burrow.js';
import { stopAll } from '../helpers/stop-all.js';
import type { Phone } from './phone/phone.js';
import { launchPhone } from './phone/project.js';
import { POCKET_DIST, preparePocket, reportFailures } from './pocket-browser.js';
import { terminalText, until, waitForPaintedTerminal } from './pocket-screens.js';

const LINES = 3000;

let relay: RelayHandle;
let burrow: Awaited<ReturnType<typeof startRemoteBurrow>>;
let phone: Phone;

const historyText = async () => (await phone.locator('.history-page').allTextContents()).join('\n');

beforeAll(async () => {
  await preparePocket();
  relay = await startRelay({ assetsDir: POCKET_DIST });
  burrow = await startRemoteBurrow(`http://127.0.0.1:${relay.port}`);
  await until(() => burrow.service.linkStatus.kind === 'connected', 'the relay link');
  phone = await launchPhone();
});

reportFailures('history', () => phone);

afterAll(() =>
  stopAll(
    () => phone?.close(),
    () => burrow?.stop(),
    () => relay?.stop(),
  ),
);

describe('Pocket older history', () => {
  it('re-attaching to a long session pages older lines in on scroll, contiguously, to line 1', {
    timeout: 120_000,
  }, async () => {
    await phone.goto(await burrow.newPairingLink());
    await phone
      .getByRole('region', { name: 'test burrow' })
      .getByText('connected')
      .waitFor({ timeout: 20_000 });
    await phone.getByRole('button', { name: 'New session' }).tap();
    await phone.getByRole('button', { name: 'Start' }).tap();
    await waitForPaintedTerminal(phone);
    const compose = phone.getByRole('textbox', { name: 'Type a line to send' });
    await compose.fill(`seq -f 'n%g' 1 ${LINES}; echo printed-''all`);
    await compose.press('Enter');
    await until(async () => /printed-all/.test(await terminalText(phone)), 'the numbers to print', 30_000);

    // Re-attach: the snapshot carries only the live model's lines; older ones are the Burrow's history.
    await phone.getByRole('button', { name: 'Back to the session list' }).tap();
    await phone
      .getByRole('button', { name: /^Open / })
      .first()
      .tap();
    await waitForPaintedTerminal(phone);
    await until(async () => /printed-all/.test(await terminalText(phone)), 'the current screen at once');
    await phone.screenshot('history-attached');
    expect(await phone.locator('.history-region').count()).toBe(0);

    // Wheel up over xterm until it is at its top and the region opens with a phone.
    const box = (await phone.locator('.term-host').boundingBox())!;
    // Several turns per look: the look is the slow part, and `until` backs off to 100 ms between looks.
    await until(
      async () => {
        for (let turn = 0; turn < 4; turn++)
          await phone.mouse.wheel(box.x + box.width / 2, box.y + box.height / 2, 0, -4000);
        return (await phone.locator('.history-page').count()) > 0;
      },
      'the history region to show a page',
      30_000,
    );
    await phone.screenshot('history-first-page');

    // Scroll the region up (as a swipe would) until the start of history.
    await until(
      async () => {
        await phone.locator('.history-scroll').evaluate((el) => {
          el.scrollTop = 0;
          el.dispatchEvent(new Event('scroll'));
        });
        return (await phone.getByText('start of history').count()) > 0;
      },
      'the start of history',
      60_000,
    );
    await phone.screenshot('history-start');
    expect(await phone.locator('.history-page').first().textContent()).toMatch(/\bn1\n/);

    // xterm's whole buffer, from the Select view; then every number once, in order, across both.
    await phone.getByRole('button', { name: 'Select text to copy' }).tap();
    const xtermText = (await phone.locator('.selection pre').textContent()) ?? '';
    await phone.getByRole('button', { name: 'Done' }).tap();
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
