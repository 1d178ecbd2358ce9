/**
 * What the page driver (phone.ts) needs from a browser engine, and nothing more: each engine's adapter
 * (engine-chromium.ts, engine-firefox.ts, engine-webkit.ts) implements this with its own automation client.
 * Elements are addressed by CSS only: the page driver resolves roles and text in the page (in-page.ts) and
 * hands the engine a `[data-e2e="N"]` selector for the one element to act on.
 */

export type EngineName = 'chromium' | 'firefox' | 'webkit';
export const ENGINES: readonly EngineName[] = ['chromium', 'firefox', 'webkit'];

export interface EngineCaps {
  /** The engine can take the page offline (navigator.onLine false, every request fails). */
  readonly offline: boolean;
  /** Taps arrive as touch input (a phone) rather than mouse clicks. */
  readonly touch: boolean;
}

export interface ViewportSize {
  readonly width: number;
  readonly height: number;
}

export interface EngineDriver {
  readonly caps: EngineCaps;
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  back(): Promise<void>;
  url(): Promise<string>;
  /** Evaluates a JavaScript expression in the page (a promise is awaited); resolves to what it returns. */
  evaluate(expression: string): Promise<unknown>;
  /** Taps (touch engines) or clicks the one element `selector` matches, as a user would. */
  tap(selector: string): Promise<void>;
  /** Replaces the text of the input `selector` matches, as typing would (input events fire). */
  fill(selector: string, text: string): Promise<void>;
  /** Types into the focused element, key by key. */
  type(text: string): Promise<void>;
  /** Presses one key (Playwright's names: 'Enter', 'Escape', 'ArrowUp', …) on the focused element. */
  press(key: string): Promise<void>;
  /** A mouse wheel turn at (x, y) in CSS pixels of the viewport. */
  wheel(x: number, y: number, deltaX: number, deltaY: number): Promise<void>;
  /** Sets the page's layout viewport (CSS pixels). */
  setViewport(size: ViewportSize): Promise<void>;
  /** Only when caps.offline. */
  setOffline(offline: boolean): Promise<void>;
  /** A PNG of the viewport. */
  screenshot(path: string): Promise<void>;
  /** What the page logged, as far as the engine's client reports it (the page driver adds its own). */
  log(): readonly string[];
  close(): Promise<void>;
}

/**
 * `expression` wrapped so every engine returns the same thing: its awaited value as JSON text (each
 * automation protocol serialises values its own way; JSON is what all three carry alike).
 */
export function asJsonText(expression: string): string {
  return `Promise.resolve().then(() => (${expression})).then((v) => JSON.stringify(v === undefined ? null : v))`;
}

/** The JSON text `asJsonText` produced, parsed back. */
export function fromJsonText(text: unknown): unknown {
  if (typeof text !== 'string') throw new Error(`the page answered ${typeof text}, not JSON text`);
  return JSON.parse(text);
}

/** Most page-log lines an adapter keeps (a failed test prints the tail). */
export const PAGE_LOG_MAX_LINES = 200;

/** A page log that keeps only its newest PAGE_LOG_MAX_LINES lines. */
export function pageLog(): { push(line: string): void; lines(): readonly string[] } {
  const lines: string[] = [];
  return {
    push(line) {
      lines.push(line);
      if (lines.length > PAGE_LOG_MAX_LINES) lines.shift();
    },
    lines: () => [...lines],
  };
}

/** The navigation and evaluation calls Playwright's and Puppeteer's pages share. */
export interface ScriptablePage {
  goto(url: string): Promise<unknown>;
  reload(): Promise<unknown>;
  goBack(): Promise<unknown>;
  url(): string;
  evaluate(expression: string): Promise<unknown>;
}

/** An EngineDriver's navigation and evaluation over such a page. */
export function pageNavigation(
  page: ScriptablePage,
): Pick<EngineDriver, 'goto' | 'reload' | 'back' | 'url' | 'evaluate'> {
  return {
    goto: async (url) => void (await page.goto(url)),
    reload: async () => void (await page.reload()),
    back: async () => void (await page.goBack()),
    url: async () => page.url(),
    evaluate: async (expression) => fromJsonText(await page.evaluate(asJsonText(expression))),
  };
}
