import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { startRemoteBurrow } from '../helpers/remote-burrow.js';
import { type OutageProxy, startOutageProxy } from './outage-proxy.js';
import { ARTIFACTS_DIR, launchPhone, PHONE, POCKET_DIST, preparePocket } from './pocket-browser.js';

let relay: RelayHandle;
/** Everything (phone and Burrow) reaches the relay through this, so the relay can be taken away and back. */
let front: OutageProxy;
let burrow: Awaited<ReturnType<typeof startRemoteBurrow>>;
let phone: Awaited<ReturnType<typeof launchPhone>>;
let context: BrowserContext;
let page: Page;
const pageLog: string[] = [];

const until = async (cond: () => boolean, what: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};
const terminalText = async () => (await page.locator('.xterm-rows').textContent()) ?? '';
/** Polls the terminal's rendered rows (xterm's DOM renderer) until `re` matches. */
const waitForTerminal = async (re: RegExp, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!re.test(await terminalText())) {
    if (Date.now() > end) throw new Error(`terminal never showed ${re}; it shows:\n${await terminalText()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

beforeAll(async () => {
  preparePocket();
  relay = await startRelay({ assetsDir: POCKET_DIST });
  front = await startOutageProxy(relay.port);
  burrow = await startRemoteBurrow(front.url);
  await until(() => burrow.service.linkStatus.kind === 'connected', 'the relay link');
  phone = await launchPhone();
  context = phone.context;
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => pageLog.push(`console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => pageLog.push(`pageerror: ${e.message}`));
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state !== 'fail') return;
  await page.screenshot({ path: join(ARTIFACTS_DIR, `failed-${ctx.task.name.replace(/\W+/g, '-')}.png`) });
  console.error(`page log:\n${pageLog.slice(-40).join('\n')}`);
});

afterAll(async () => {
  await phone?.close();
  await burrow?.stop();
  await front?.stop();
  await relay?.stop();
});

describe('Pocket in a phone browser', () => {
  it('pairs from the link, and the secret leaves the address bar at once', async () => {
    const link = await burrow.newPairingLink();
    expect(link.startsWith(`${front.url}/#pair=`)).toBe(true);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Pocket' }).waitFor({ timeout: 20_000 });
    expect(page.url()).toBe(`${front.url}/`);
    expect(await page.evaluate('location.hash')).toBe('');
    await page
      .getByRole('region', { name: 'test burrow' })
      .getByText('connected')
      .waitFor({ timeout: 20_000 });
  });

  it('starts a shell from the phone and attaches to it', async () => {
    await page.getByRole('button', { name: 'New session' }).tap();
    await page.getByRole('button', { name: 'Start' }).tap();
    await page.locator('.term-host[data-painted="yes"]').waitFor({ timeout: 20_000 });
    await waitForTerminal(/[#$]\s*$/); // the prompt
  });

  it('types into the terminal and through the composition input, and shows the output', async () => {
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type('echo hel""lo-direct');
    await page.keyboard.press('Enter');
    await waitForTerminal(/hello-direct/);
    const compose = page.getByRole('textbox', { name: 'Type a line to send' });
    await compose.fill('echo hel""lo-composed');
    await compose.press('Enter');
    await waitForTerminal(/hello-composed/);
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'pocket-terminal.png') });
  });

  it('Ctrl is a sticky modifier: Ctrl then c interrupts a running command', async () => {
    const compose = page.getByRole('textbox', { name: 'Type a line to send' });
    await compose.fill('sleep 600; echo not-interrupted');
    await compose.press('Enter');
    await page.getByRole('button', { name: 'Control', exact: true }).tap();
    expect(await page.getByRole('button', { name: 'Control (next key)' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type('c');
    await waitForTerminal(/\^C/);
    expect(
      await page.getByRole('button', { name: 'Control', exact: true }).getAttribute('aria-pressed'),
    ).toBe('false');
    await compose.fill('echo after-ctrl-c');
    await compose.press('Enter');
    await waitForTerminal(/after-ctrl-c[\s\S]*after-ctrl-c/);
    // Only the command line itself says it: the `echo` after the sleep never ran.
    expect((await terminalText()).match(/not-interrupted/g)).toHaveLength(1);
  });

  it('rotating the phone resizes the session', async () => {
    const cols = () => burrow.registry.list()[0]!.cols;
    const before = cols();
    await page.setViewportSize({ width: PHONE.height, height: PHONE.width });
    await until(() => cols() > before, 'the PTY to widen', 10_000);
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'pocket-terminal-landscape.png') });
    await page.setViewportSize(PHONE);
    await until(() => cols() === before, 'the PTY to narrow back', 10_000);
  });

  it('the relay goes away and comes back: the page says so and the terminal resumes without lost output', async () => {
    const compose = page.getByRole('textbox', { name: 'Type a line to send' });
    await compose.fill("for i in $(seq 1 30); do echo tick-$i; sleep 0.2; done; echo ticks-''done");
    await compose.press('Enter');
    await waitForTerminal(/tick-2\b/);
    await front.cut();
    await page
      .getByRole('status')
      .getByText(/reconnecting/)
      .waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'pocket-terminal-reconnecting.png') });
    await new Promise((r) => setTimeout(r, 2000));
    await front.restore();
    await waitForTerminal(/ticks-done/, 90_000);
    const text = await terminalText();
    for (let i = 1; i <= 30; i++) expect(text.match(new RegExp(`tick-${i}(?!\\d)`, 'g'))).toHaveLength(1);
  });

  it('offline and back: the shell opens offline and says so, then carries on', {
    timeout: 120_000,
  }, async () => {
    await context.setOffline(true);
    await page.getByText(/Offline — Pocket reconnects/).waitFor();
    // The precached shell opens with no network at all (service worker navigation fallback).
    expect(await page.evaluate('navigator.serviceWorker.controller !== null')).toBe(true);
    await page.reload();
    await page.getByText(/Offline — Pocket reconnects/).waitFor();
    await page.getByRole('main', { name: /^Terminal: / }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'pocket-offline.png') });
    await context.setOffline(false);
    await page.locator('.term-host[data-painted="yes"]').waitFor({ timeout: 30_000 });
    // Connected again: the terminal view's connection notice is gone.
    await page.locator('.term-status').waitFor({ state: 'detached', timeout: 30_000 });
    await page.getByText(/Offline — Pocket reconnects/).waitFor({ state: 'detached' });
    const compose = page.getByRole('textbox', { name: 'Type a line to send' });
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type("echo via-xterm-''after-offline");
    await page.keyboard.press('Enter');
    await waitForTerminal(/via-xterm-after-offline/, 20_000);
    await compose.fill("echo back-''online");
    expect(await compose.inputValue()).toBe("echo back-''online");
    await compose.press('Enter');
    await waitForTerminal(/back-online/, 60_000);
  });

  it('back to the list; removing the pairing asks the Burrow to forget this phone', async () => {
    await page.getByRole('button', { name: 'Back to the session list' }).tap();
    await page.getByRole('region', { name: 'test burrow' }).waitFor();
    // A long name in CJK, Arabic, combining marks and emoji wraps inside the row: no control leaves the screen.
    const long = `終わらない名前${'ا'.repeat(12)}e\u0301${'🦡'.repeat(8)}_${'x'.repeat(30)}`;
    await page.getByRole('button', { name: /^More actions for / }).tap();
    await page.getByRole('button', { name: 'Rename' }).tap();
    await page.getByRole('textbox', { name: /^New name for / }).fill(long);
    await page.getByRole('button', { name: 'Save' }).tap();
    // The Burrow normalizes what it stores (e + U+0301 may come back composed): find the row by its start.
    await page.getByRole('button', { name: /^Open 終わらない名前/ }).waitFor();
    for (const button of await page.getByRole('button').all()) {
      const box = await button.boundingBox();
      if (box !== null) expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width + 0.5);
    }
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'pocket-list.png') });
    expect(burrow.service.listDevices().length).toBe(1);
    await page.getByRole('button', { name: 'Settings for test burrow' }).tap();
    await page.getByRole('button', { name: 'Remove…' }).tap();
    await page.getByRole('button', { name: 'Remove', exact: true }).tap();
    await page.getByText(/No computer is paired yet/).waitFor();
    await until(() => burrow.service.listDevices().length === 0, 'the Burrow to forget the phone', 10_000);
    await page.reload();
    await page.getByText(/No computer is paired yet/).waitFor();
  });
});
