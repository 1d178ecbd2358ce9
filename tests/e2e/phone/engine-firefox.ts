/**
 * Debian's Firefox ESR as a phone: puppeteer-core over WebDriver BiDi (Firefox's built-in remote agent, no
 * geckodriver and no downloaded browser), headless, the phone viewport at 3×, a fresh profile per run.
 * Firefox has no touch emulation over BiDi, so taps are pointer clicks (caps.touch false).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type KeyInput } from 'puppeteer-core';
import { freePort } from '../../../relay-worker/test/harness.js';
import { type EngineDriver, pageLog, pageNavigation, type ViewportSize } from './engine.js';
import type { BrowserNetns, LaunchedEngine } from './phone.js';

export const FIREFOX_PATH = '/usr/bin/firefox-esr';

/** What every run needs: notifications allowed without a prompt (the push e2e asks for them). */
const BASE_PREFS = {
  'permissions.default.desktop-notification': 1,
  'dom.webnotifications.requireuserinteraction': false,
  // The system backend is libnotify over D-Bus, which a test machine has no daemon for: showNotification
  // then fails with NS_ERROR_FAILURE. Firefox's own alert windows work headless.
  'alerts.useSystemBackend': false,
  // No push service unless a test brings its own (firefoxPrefs['dom.push.serverURL']): never the network.
  'dom.push.connection.enabled': false,
};

export async function launchFirefox(
  phone: ViewportSize,
  prefs: Readonly<Record<string, string | number | boolean>>,
  netns?: BrowserNetns,
): Promise<LaunchedEngine> {
  if (!existsSync(FIREFOX_PATH))
    throw new Error(`${FIREFOX_PATH} is missing: install Debian's firefox-esr package`);
  const profile = mkdtempSync(join(tmpdir(), 'pocket-e2e-firefox-'));
  // Inside a namespace, WebDriver BiDi listens on the namespace's loopback: a fixed port, exposed here.
  const debuggingPort = netns ? await freePort() : undefined;
  if (netns && debuggingPort !== undefined) await netns.exposeToRoot(debuggingPort);
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: netns ? netns.wrapper(FIREFOX_PATH) : FIREFOX_PATH,
    ...(debuggingPort !== undefined ? { debuggingPort } : {}),
    headless: true,
    userDataDir: profile,
    extraPrefsFirefox: { ...BASE_PREFS, ...prefs },
  });
  const page = (await browser.pages())[0] ?? (await browser.newPage());
  const setViewport = (size: ViewportSize) =>
    page.setViewport({ width: size.width, height: size.height, deviceScaleFactor: 3 });
  await setViewport(phone);
  const log = pageLog();
  page.on('console', (m) => log.push(`console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => log.push(`pageerror: ${e instanceof Error ? e.message : String(e)}`));
  const driver: EngineDriver = {
    caps: { offline: true, touch: false },
    ...pageNavigation(page),
    tap: (selector) => page.click(selector),
    fill: (selector, text) => page.locator(selector).fill(text),
    type: (text) => page.keyboard.type(text),
    press: (key) => page.keyboard.press(key as KeyInput),
    async wheel(x, y, deltaX, deltaY) {
      await page.mouse.move(x, y);
      await page.mouse.wheel({ deltaX, deltaY });
    },
    setViewport,
    setOffline: (offline) => page.setOfflineMode(offline),
    screenshot: async (path) => void (await page.screenshot({ path: path as `${string}.png` })),
    log: log.lines,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
  return { driver, native: { engine: 'firefox', browser, page } };
}
