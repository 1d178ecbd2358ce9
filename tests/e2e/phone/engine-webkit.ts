/**
 * Debian's WebKitGTK as a phone: WebKitWebDriver (webkit2gtk-driver) speaking WebDriver classic, driven by
 * selenium-webdriver, launching WebKitGTK's MiniBrowser in automation mode on a private Xvfb display (the
 * GTK 3 MiniBrowser has no headless mode). A fresh HOME and XDG folders per run keep the profile fresh.
 *
 * WebDriver classic has no network emulation, touch input or device scale: caps.offline and caps.touch are
 * false and screenshots are 1×. MiniBrowser's toolbar would hold the window at ≥ 447 px wide; a GTK user
 * style sheet shrinks the toolbar so the page gets the phone's 390 px.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, By, Key } from 'selenium-webdriver';
import { freePort } from '../../../relay-worker/test/harness.js';
import { asJsonText, type EngineDriver, fromJsonText, type ViewportSize } from './engine.js';
import { poll } from './locator.js';
import type { BrowserNetns, LaunchedEngine } from './phone.js';
import { startXvfb } from './xvfb.js';

export const WEBKIT_DRIVER_PATH = '/usr/bin/WebKitWebDriver';
export const MINIBROWSER_PATH = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
/** How long WebKitWebDriver may take to answer /status. */
const DRIVER_START_MS = 15_000;
/** Longest wait for a window size to be applied and stop changing. */
const VIEWPORT_SETTLE_MS = 5_000;

/** GTK 3 user CSS ($XDG_CONFIG_HOME/gtk-3.0/gtk.css): MiniBrowser's toolbar widgets shrunk to nothing. */
const TINY_TOOLBAR_CSS = `
toolbar, toolbar *, entry, button, progressbar {
  min-width: 0; min-height: 0; padding: 0; margin: 0; border-width: 0; font-size: 1px;
}
`;

/** Playwright's key names (what the bodies use) → WebDriver's key code points. */
const KEYS: Readonly<Record<string, string>> = {
  Enter: Key.ENTER,
  Escape: Key.ESCAPE,
  Tab: Key.TAB,
  Backspace: Key.BACK_SPACE,
  Delete: Key.DELETE,
  ArrowUp: Key.ARROW_UP,
  ArrowDown: Key.ARROW_DOWN,
  ArrowLeft: Key.ARROW_LEFT,
  ArrowRight: Key.ARROW_RIGHT,
  Home: Key.HOME,
  End: Key.END,
  PageUp: Key.PAGE_UP,
  PageDown: Key.PAGE_DOWN,
};

/** selenium-webdriver's wheel input (lib/input.js `Actions.scroll`), which @types/selenium-webdriver lacks. */
interface WheelActions {
  scroll(x: number, y: number, deltaX: number, deltaY: number): { perform(): Promise<void> };
}

function keyOf(name: string): string {
  if ([...name].length === 1) return name;
  const key = KEYS[name];
  if (key === undefined) throw new Error(`no WebDriver key for ${name}`);
  return key;
}

export async function launchWebKit(phone: ViewportSize, netns?: BrowserNetns): Promise<LaunchedEngine> {
  for (const [path, pkg] of [
    [WEBKIT_DRIVER_PATH, 'webkit2gtk-driver'],
    [MINIBROWSER_PATH, 'libwebkit2gtk-4.1-0'],
  ] as const)
    if (!existsSync(path)) throw new Error(`${path} is missing: install Debian's ${pkg} package`);
  const home = mkdtempSync(join(tmpdir(), 'pocket-e2e-webkit-'));
  mkdirSync(join(home, 'config', 'gtk-3.0'), { recursive: true });
  writeFileSync(join(home, 'config', 'gtk-3.0', 'gtk.css'), TINY_TOOLBAR_CSS);
  const display = await startXvfb();
  const port = await freePort();
  // Inside a namespace the driver (and the MiniBrowser it starts) listens on the namespace's loopback.
  if (netns) await netns.exposeToRoot(port);
  const [driverFile, driverArgs] = netns
    ? netns.command(WEBKIT_DRIVER_PATH, [`--port=${port}`])
    : [WEBKIT_DRIVER_PATH, [`--port=${port}`]];
  const child: ChildProcess = spawn(driverFile, driverArgs, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      DISPLAY: display.name,
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_DATA_HOME: join(home, 'data'),
      XDG_CACHE_HOME: join(home, 'cache'),
      // WebKit's web and GPU processes outlive the session by a moment and would still be writing Mesa's
      // shader cache into the folder being removed.
      MESA_SHADER_CACHE_DISABLE: 'true',
    },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const server = `http://127.0.0.1:${port}`;
  await poll(
    async () => ((await fetch(`${server}/status`).catch(() => null))?.ok ? true : undefined),
    () => `WebKitWebDriver on port ${port} (${stderr})`,
    DRIVER_START_MS,
  );
  const wd = await new Builder()
    .usingServer(server)
    .withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER_PATH, args: ['--automation'] },
    })
    .build();

  /** innerWidth × innerHeight once two reads 100 ms apart agree: GTK applies a window size asynchronously. */
  const settledInnerSize = async (): Promise<[number, number]> => {
    const read = async () => (await wd.executeScript('return [innerWidth, innerHeight]')) as [number, number];
    let last = await read();
    const end = Date.now() + VIEWPORT_SETTLE_MS;
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      const now = await read();
      if (now[0] === last[0] && now[1] === last[1]) return now;
      last = now;
    }
    return last;
  };
  /**
   * The window is the viewport plus MiniBrowser's (shrunk) toolbar: measured once the first size has been
   * applied (a read taken before it, on a loaded machine, once gave a negative width), then added.
   */
  const setViewport = async (size: ViewportSize) => {
    await wd.manage().window().setRect({ width: size.width, height: size.height });
    const [innerWidth, innerHeight] = await settledInnerSize();
    const chromeWidth = size.width - innerWidth;
    const chromeHeight = size.height - innerHeight;
    if (chromeWidth < 0 || chromeHeight < 0)
      throw new Error(
        `WebKit's window shows ${innerWidth}×${innerHeight} for a ${size.width}×${size.height} window`,
      );
    if (chromeWidth !== 0 || chromeHeight !== 0) {
      await wd
        .manage()
        .window()
        .setRect({ width: size.width + chromeWidth, height: size.height + chromeHeight });
      await settledInnerSize();
    }
  };
  await wd.get('about:blank');
  await setViewport(phone);

  const driver: EngineDriver = {
    caps: { offline: false, touch: false },
    goto: (url) => wd.get(url),
    reload: () => wd.navigate().refresh(),
    back: () => wd.navigate().back(),
    url: () => wd.getCurrentUrl(),
    async evaluate(expression) {
      const answer = await wd.executeAsyncScript(
        `const done = arguments[arguments.length - 1];
         ${asJsonText(expression)}.then(done, (e) => done({ error: String((e && e.stack) || e) }));`,
      );
      if (typeof answer === 'object' && answer !== null) throw new Error((answer as { error: string }).error);
      return fromJsonText(answer);
    },
    tap: (selector) => wd.findElement(By.css(selector)).click(),
    async fill(selector, text) {
      const el = await wd.findElement(By.css(selector));
      await el.clear();
      await el.sendKeys(text);
    },
    type: (text) => wd.actions().sendKeys(text).perform(),
    press: (key) => wd.actions().sendKeys(keyOf(key)).perform(),
    wheel: (x, y, deltaX, deltaY) =>
      (wd.actions() as unknown as WheelActions)
        .scroll(Math.round(x), Math.round(y), Math.round(deltaX), Math.round(deltaY))
        .perform(),
    setViewport,
    setOffline: async () => {
      throw new Error('WebDriver classic has no network emulation');
    },
    async screenshot(path) {
      writeFileSync(path, Buffer.from(await wd.takeScreenshot(), 'base64'));
    },
    log: () => [],
    async close() {
      await wd.quit().catch(() => undefined);
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
      await display.stop();
      // The browser's child processes exit with the display, a moment later.
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
  return { driver, native: { engine: 'webkit', driver: wd } };
}
