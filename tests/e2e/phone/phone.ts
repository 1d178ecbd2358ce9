/**
 * The engine-neutral page driver the browser e2e bodies are written against: one phone, in whichever engine
 * it is launched in (project.ts: the vitest project's, e2e-chromium, e2e-firefox or e2e-webkit). Its surface is
 * Playwright's (goto, getByRole, locator, keyboard, screenshot, …) so a Chromium-only body ports by changing
 * `page.` to `phone.`; what differs per engine lives in the adapters behind `EngineDriver`, and the few
 * things only some engines can do are in `phone.caps` and `phone.native`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { Browser as PuppeteerBrowser, Page as PuppeteerPage } from 'puppeteer-core';
import type { WebDriver } from 'selenium-webdriver';
import { ARTIFACTS_DIR } from '../pocket-browser.js';
import type { EngineCaps, EngineDriver, EngineName, ViewportSize } from './engine.js';
import { inPageScript } from './in-page-bundle.js';
import { Locator, type LocatorHost, type RoleOptions, type Text, type TextOptions } from './locator.js';
import { IN_PAGE_GLOBAL, NOT_INSTALLED, type Query, type Step } from './steps.js';

export type { EngineName } from './engine.js';

/** The phone every e2e body starts from: 390×844 CSS pixels, portrait. */
export const PHONE: ViewportSize = { width: 390, height: 844 };

export interface LaunchOptions {
  /** Firefox preferences on top of the adapter's (e.g. the push service to connect to). */
  readonly firefoxPrefs?: Readonly<Record<string, string | number | boolean>>;
  /** Chromium command-line switches on top of the adapter's. */
  readonly chromiumArgs?: readonly string[];
  /** Run the browser inside this network namespace (tests/helpers/netns.ts: the direct path's tests). */
  readonly netns?: BrowserNetns;
}

/** What an engine needs to run its browser inside a test network namespace. */
export interface BrowserNetns {
  /** An executable that runs `file` inside the namespace. */
  wrapper(file: string): string;
  /** `[command, args]` running `file` inside the namespace. */
  command(file: string, args?: readonly string[]): [string, string[]];
  /** The test's 127.0.0.1:port reaches 127.0.0.1:port inside. */
  exposeToRoot(port: number): Promise<void>;
}

/** The engine's own client, for what only that engine can do (DevTools push delivery, …). */
export type NativeHandle =
  | { readonly engine: 'chromium'; readonly context: BrowserContext; readonly page: Page }
  | { readonly engine: 'firefox'; readonly browser: PuppeteerBrowser; readonly page: PuppeteerPage }
  | { readonly engine: 'webkit'; readonly driver: WebDriver };

export interface LaunchedEngine {
  readonly driver: EngineDriver;
  readonly native: NativeHandle;
}

async function launchEngine(engine: EngineName, options: LaunchOptions): Promise<LaunchedEngine> {
  // Each adapter loads only when asked for, so a Chromium run never imports the WebDriver client.
  switch (engine) {
    case 'chromium':
      return (await import('./engine-chromium.js')).launchChromium(PHONE, options);
    case 'firefox':
      return (await import('./engine-firefox.js')).launchFirefox(
        PHONE,
        options.firefoxPrefs ?? {},
        options.netns,
      );
    case 'webkit':
      return (await import('./engine-webkit.js')).launchWebKit(PHONE, options.netns);
  }
}

export class Phone implements LocatorHost {
  readonly keyboard = {
    type: (text: string) => this.driver.type(text),
    press: (key: string) => this.driver.press(key),
  };
  readonly mouse = {
    /** Playwright's is move-then-wheel; here the position comes with the turn. */
    wheel: (x: number, y: number, deltaX: number, deltaY: number) => this.driver.wheel(x, y, deltaX, deltaY),
  };

  private constructor(
    readonly engine: EngineName,
    private readonly driver: EngineDriver,
    readonly native: NativeHandle,
    /** Where this engine's screenshots go: test-artifacts/<engine>/. */
    readonly artifacts: string,
  ) {}

  static async launch(engine: EngineName, options: LaunchOptions = {}): Promise<Phone> {
    const artifacts = join(ARTIFACTS_DIR, engine);
    mkdirSync(artifacts, { recursive: true });
    const { driver, native } = await launchEngine(engine, options);
    return new Phone(engine, driver, native, artifacts);
  }

  get caps(): EngineCaps {
    return this.driver.caps;
  }

  goto(url: string): Promise<void> {
    return this.driver.goto(url);
  }
  reload(): Promise<void> {
    return this.driver.reload();
  }
  goBack(): Promise<void> {
    return this.driver.back();
  }
  url(): Promise<string> {
    return this.driver.url();
  }
  setViewportSize(size: ViewportSize): Promise<void> {
    return this.driver.setViewport(size);
  }
  setOffline(offline: boolean): Promise<void> {
    if (!this.caps.offline)
      throw new Error(`${this.engine} cannot emulate being offline (phone.caps.offline)`);
    return this.driver.setOffline(offline);
  }

  /** `fn(arg)` in the page (its source is sent, so it may use only its argument), or an expression. */
  evaluate<R>(expression: string): Promise<R>;
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  async evaluate<R, A>(fn: string | ((arg: A) => R | Promise<R>), arg?: A): Promise<R> {
    const expression = typeof fn === 'string' ? fn : `(${fn.toString()})(${JSON.stringify(arg ?? null)})`;
    return (await this.driver.evaluate(expression)) as R;
  }

  locator(selector: string): Locator {
    return new Locator(this, [{ by: 'css', selector }]);
  }
  getByRole(role: string, options?: RoleOptions): Locator {
    return new Locator(this, []).getByRole(role, options);
  }
  getByText(text: Text, options?: TextOptions): Locator {
    return new Locator(this, []).getByText(text, options);
  }

  /** Writes test-artifacts/<engine>/<name>.png; returns its path. */
  async screenshot(name: string): Promise<string> {
    const path = join(this.artifacts, `${name}.png`);
    await this.driver.screenshot(path);
    return path;
  }

  /** The page's console and errors, newest last: the engine client's, else what in-page.ts kept. */
  async log(): Promise<string[]> {
    const native = this.driver.log();
    if (native.length > 0) return [...native];
    try {
      return (await this.#inPage(`${IN_PAGE_GLOBAL}.log()`)) as string[];
    } catch (error) {
      return [`(no page log: ${error})`];
    }
  }

  /** For afterEach: a screenshot named for the failed test and the page log's tail, as one printable text. */
  async reportFailure(testName: string): Promise<string> {
    const shot = await this.screenshot(`failed-${testName.replace(/\W+/g, '-')}`).catch(
      (e) => `(no screenshot: ${e})`,
    );
    return `${this.engine} screenshot: ${shot}\npage log:\n${(await this.log()).slice(-40).join('\n')}`;
  }

  close(): Promise<void> {
    return this.driver.close();
  }

  /** Runs `call` (an expression on the in-page global), injecting in-page.ts first into a new document. */
  async #inPage(call: string): Promise<unknown> {
    const expression = `(globalThis.${IN_PAGE_GLOBAL} ? ${call} : ${JSON.stringify(NOT_INSTALLED)})`;
    const first = await this.driver.evaluate(expression);
    if (first !== NOT_INSTALLED) return first;
    // The bundle is statements; the engines evaluate expressions, so it runs as a function's body.
    await this.driver.evaluate(`(() => { ${await inPageScript()}\n return null; })()`);
    return this.driver.evaluate(expression);
  }

  /** LocatorHost: the in-page half of every locator. */
  query(q: Query): Promise<unknown> {
    return this.#inPage(`${IN_PAGE_GLOBAL}.run(${JSON.stringify(q)})`);
  }
  evaluateOn(chain: readonly Step[], fn: string, arg: unknown): Promise<unknown> {
    return this.#inPage(
      `${IN_PAGE_GLOBAL}.evaluateOn(${JSON.stringify(chain)}, (${fn}), ${JSON.stringify(arg)})`,
    );
  }
  tap(selector: string): Promise<void> {
    return this.driver.tap(selector);
  }
  fill(selector: string, text: string): Promise<void> {
    return this.driver.fill(selector, text);
  }
  press(key: string): Promise<void> {
    return this.driver.press(key);
  }
  type(text: string): Promise<void> {
    return this.driver.type(text);
  }
}
