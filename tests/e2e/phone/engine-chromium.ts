/**
 * Debian's Chromium as a phone (DESIGN §8): playwright-core, the phone viewport at 3× with touch and a mobile
 * user agent, a fresh persistent profile per run (so the service worker survives reloads). Never downloads a
 * browser.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { type EngineDriver, pageLog, pageNavigation, type ViewportSize } from './engine.js';
import type { LaunchedEngine, LaunchOptions } from './phone.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';
const PHONE_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

export async function launchChromium(
  phone: ViewportSize,
  options: LaunchOptions = {},
): Promise<LaunchedEngine> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium package`);
  const profile = mkdtempSync(join(tmpdir(), 'pocket-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    // Playwright drives Chromium over a pipe, which the namespace wrapper passes through unchanged.
    executablePath: options.netns ? options.netns.wrapper(CHROMIUM_PATH) : CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...(options.chromiumArgs ?? []),
    ],
    viewport: phone,
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true,
    userAgent: PHONE_UA,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const log = pageLog();
  page.on('console', (m) => log.push(`console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`));
  const driver: EngineDriver = {
    caps: { offline: true, touch: true },
    ...pageNavigation(page),
    tap: (selector) => page.tap(selector),
    fill: (selector, text) => page.fill(selector, text),
    type: (text) => page.keyboard.type(text),
    press: (key) => page.keyboard.press(key),
    async wheel(x, y, deltaX, deltaY) {
      await page.mouse.move(x, y);
      await page.mouse.wheel(deltaX, deltaY);
    },
    setViewport: (size) => page.setViewportSize(size),
    setOffline: (offline) => context.setOffline(offline),
    screenshot: async (path) => void (await page.screenshot({ path })),
    log: log.lines,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
  return { driver, native: { engine: 'chromium', context, page } };
}
