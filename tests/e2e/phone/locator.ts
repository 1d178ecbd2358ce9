/**
 * Locators with Playwright's names and meaning (getByRole, getByText, locator, filter({ has }), first, nth;
 * actions and reads wait for their element), resolved in the page by in-page.ts, so one test body runs in
 * every engine. Actions and single-element reads are strict like Playwright's: several matches are an error
 * that names the locator, never a silent pick.
 */
import type { Box, Hit, Query, Reached, Step, TextMatch } from './steps.js';

/** How long an action or read waits for its element unless told otherwise. */
export const DEFAULT_WAIT_MS = 15_000;
/** Between two looks at the page while waiting. */
export const POLL_MS = 50;

export type Text = string | RegExp;
/** An element inside the page, as `Locator.evaluate` hands it over (the tests compile without DOM types). */
// biome-ignore lint/suspicious/noExplicitAny: a DOM element, whose type the Node-side tests do not have
export type PageElement = any;
export interface RoleOptions {
  readonly name?: Text;
  readonly exact?: boolean;
}
export interface TextOptions {
  readonly exact?: boolean;
}
export type WaitState = 'visible' | 'attached' | 'detached' | 'hidden';

/** What a locator needs from its page: one query, one evaluation, and the engine's actions. */
export interface LocatorHost {
  query(q: Query): Promise<unknown>;
  evaluateOn(chain: readonly Step[], fn: string, arg: unknown): Promise<unknown>;
  tap(selector: string): Promise<void>;
  fill(selector: string, text: string): Promise<void>;
  press(key: string): Promise<void>;
  type(text: string): Promise<void>;
}

/** Fills tried before a field that will not take its text fails the test (see `Locator.fill`). */
const FILL_ATTEMPTS = 5;
/** Taps tried before an element no tap reaches fails the test (see `Locator.tap`). */
const TAP_ATTEMPTS = 3;

const sameBox = (a: Box, b: Box) =>
  a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;

export function textMatch(text: Text, exact = false): TextMatch {
  return typeof text === 'string'
    ? { kind: 'string', value: text, exact }
    : { kind: 'regex', source: text.source, flags: text.flags };
}

/** Several elements matched where one was meant: a broken locator, never retried. */
export class StrictnessError extends Error {
  override readonly name = 'StrictnessError';
}

/** Repeats `look` until it returns something other than undefined; a throw counts as not yet (navigation). */
export async function poll<T>(
  look: () => Promise<T | undefined>,
  what: () => string,
  ms: number,
): Promise<T> {
  const end = Date.now() + ms;
  let lastError: unknown;
  for (;;) {
    try {
      const seen = await look();
      if (seen !== undefined) return seen;
    } catch (error) {
      if (error instanceof StrictnessError) throw error;
      lastError = error;
    }
    if (Date.now() > end)
      throw new Error(
        `timed out after ${ms} ms waiting for ${what()}${lastError ? ` (last error: ${lastError})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function describeStep(s: Step): string {
  const text = (t: TextMatch) => (t.kind === 'regex' ? `/${t.source}/${t.flags}` : JSON.stringify(t.value));
  switch (s.by) {
    case 'role':
      return `role=${s.role}${s.name ? `[name=${text(s.name)}]` : ''}`;
    case 'text':
      return `text=${text(s.text)}`;
    case 'css':
      return s.selector;
    case 'has':
      return `:has(${s.chain.map(describeStep).join(' >> ')})`;
    case 'nth':
      return `nth=${s.index}`;
  }
}

export class Locator {
  constructor(
    private readonly host: LocatorHost,
    readonly chain: readonly Step[],
  ) {}

  toString(): string {
    return this.chain.map(describeStep).join(' >> ');
  }

  #then(step: Step): Locator {
    return new Locator(this.host, [...this.chain, step]);
  }
  locator(selector: string): Locator {
    return this.#then({ by: 'css', selector });
  }
  getByRole(role: string, options: RoleOptions = {}): Locator {
    const name = options.name === undefined ? null : textMatch(options.name, options.exact);
    return this.#then({ by: 'role', role, name });
  }
  getByText(text: Text, options: TextOptions = {}): Locator {
    return this.#then({ by: 'text', text: textMatch(text, options.exact) });
  }
  filter(options: { has: Locator }): Locator {
    return this.#then({ by: 'has', chain: options.has.chain });
  }
  nth(index: number): Locator {
    return this.#then({ by: 'nth', index });
  }
  first(): Locator {
    return this.nth(0);
  }
  last(): Locator {
    return this.nth(-1);
  }

  async count(): Promise<number> {
    return (await this.host.query({ op: 'count', chain: this.chain })) as number;
  }
  async all(): Promise<Locator[]> {
    return Array.from({ length: await this.count() }, (_, i) => this.nth(i));
  }
  async allTextContents(): Promise<string[]> {
    return (await this.host.query({ op: 'texts', chain: this.chain })) as string[];
  }

  /** Waits until the locator is visible (default), attached, detached or hidden. */
  async waitFor(options: { state?: WaitState; timeout?: number } = {}): Promise<void> {
    const state = options.state ?? 'visible';
    await poll(
      async () => {
        const s = (await this.host.query({ op: 'state', chain: this.chain })) as {
          count: number;
          visible: number;
        };
        const done =
          state === 'attached'
            ? s.count > 0
            : state === 'detached'
              ? s.count === 0
              : state === 'hidden'
                ? s.visible === 0
                : s.visible > 0;
        return done ? true : undefined;
      },
      () => `${this} to be ${state}`,
      options.timeout ?? DEFAULT_WAIT_MS,
    );
  }

  /** One element's answer, once exactly one matches. */
  async #one<T>(query: Query, timeout = DEFAULT_WAIT_MS): Promise<T> {
    let matched = 0;
    const answer = await poll(
      async () => {
        const r = (await this.host.query(query)) as { value: T } | { matched: number };
        if ('value' in r) return r;
        matched = r.matched;
        if (matched > 1) throw new StrictnessError(`${matched} elements match ${this}`);
        return undefined;
      },
      () => `${this} (${matched} match)`,
      timeout,
    );
    return answer.value;
  }

  textContent(): Promise<string> {
    return this.#one({ op: 'text', chain: this.chain });
  }
  inputValue(): Promise<string> {
    return this.#one({ op: 'value', chain: this.chain });
  }
  getAttribute(name: string): Promise<string | null> {
    return this.#one({ op: 'attr', chain: this.chain, name });
  }
  boundingBox(): Promise<Box | null> {
    return this.#one({ op: 'box', chain: this.chain });
  }
  async focus(): Promise<void> {
    await this.#one({ op: 'focus', chain: this.chain });
  }

  /** The selector of the one visible match, for the engine to act on. */
  async #target(): Promise<string> {
    await this.waitFor();
    return this.#one({ op: 'mark', chain: this.chain });
  }
  /**
   * Taps the element once it holds still and nothing covers it, and checks the tap reached it, as Playwright's
   * actionability checks do for Chromium (page.tap). WebDriver's click (WebKit) and Puppeteer's (Firefox) click
   * wherever the element was when they looked: Pocket's build warning, appearing above a prompt just then,
   * moved "Go back" ~230 px down between the look and the click, and the click landed on the warning's text
   * (WebKit, three full runs of 3–4 Dec 2026). A tap that reached nothing is tried again; one that navigated
   * (another document answers, or the element is gone) counts as taken.
   */
  async tap(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const selector = await this.#target();
      const at = await this.#steady();
      await this.host.tap(selector);
      const after = (await this.host.query({ op: 'reached' }).catch(() => null)) as Reached | null;
      if (after === null || after.reached || after.document !== at.document) return;
      // It reached something else that took the page elsewhere in the same document (a route change: a row that
      // slid under the tap opened its session): the caller, who knows what should have opened, sees where it went.
      if ((await this.count()) === 0) return;
      if (attempt === TAP_ATTEMPTS)
        throw new Error(`${this}: ${TAP_ATTEMPTS} taps never reached it (something moved it or covered it)`);
      console.warn(`[e2e] a tap on ${this} did not reach it; tapping again`);
    }
  }

  /** The element's box once two looks (POLL_MS apart) agree and a tap at its centre would reach it. */
  async #steady(): Promise<Hit> {
    let last: Hit | null = null;
    return poll(
      async () => {
        const now = await this.#one<Hit>({ op: 'hit', chain: this.chain });
        const held = last !== null && sameBox(last.box, now.box);
        last = now;
        return held && now.onTop ? now : undefined;
      },
      () => `${this} to hold still, uncovered (last: ${JSON.stringify(last)})`,
      DEFAULT_WAIT_MS,
    );
  }
  /**
   * Replaces the field's text, and checks it took. Two drivers lose text on a busy machine, and the page is not
   * at fault (each engine's own typing path never loses a key):
   * - Chromium's `Input.insertText` (what Playwright's fill uses) now and then fires beforeinput/input yet
   *   leaves the value unchanged (about one fill in ten here; microsoft/playwright#36039): an empty field.
   * - WebKitWebDriver's sendKeys dropped a key under load (`echo` arrived as `eco`, CI run of 3 Dec 2026).
   * - Puppeteer's fill (Firefox) empties the field through the DOM, which React does not see: a re-render
   *   in between (the list's "just now" ticking) put the old value back, and the text was typed after it
   *   ("bash終わらない名前…", full run of 3 Dec 2026).
   * - Chromium once left a rename field as it was (the session's old name; full run of 4 Dec 2026), and Save
   *   renamed the session to itself.
   * So a fill that left the field empty or as it was, whose value is the text with one or two characters
   * missing, or whose value has the text's start after something else, is repeated. Any other value is the
   * page's to keep (normalized, or cut to the field's length: a cut takes more than two).
   */
  async fill(text: string): Promise<void> {
    // What the field held before: a fill that changed nothing (the old name still there, Chromium) is lost too.
    const before = await this.inputValue();
    for (let attempt = 1; ; attempt++) {
      await this.host.fill(await this.#target(), text);
      const value = await this.inputValue();
      const head = text.slice(0, 4);
      const stale = value.indexOf(head) > 0; // the text typed after something else
      const unchanged = value === before && value !== text;
      if (text === '' || (value !== '' && !unchanged && !droppedFrom(text, value) && !stale)) return;
      if (attempt === FILL_ATTEMPTS)
        throw new Error(`${this} still lost text after ${FILL_ATTEMPTS} fills: ${JSON.stringify(value)}`);
    }
  }
  /** Focuses the element, then presses `key`. */
  async press(key: string): Promise<void> {
    await this.focus();
    await this.host.press(key);
  }

  /** Runs `fn(element, arg)` in the page on the one match (source text: it is sent to the page). */
  async evaluate<R, A = undefined>(fn: (el: PageElement, arg: A) => R | Promise<R>, arg?: A): Promise<R> {
    return poll(
      async () => {
        const r = (await this.host.evaluateOn(this.chain, fn.toString(), arg ?? null)) as
          | { value: R }
          | { matched: number };
        if ('value' in r) return r;
        if (r.matched > 1) throw new StrictnessError(`${r.matched} elements match ${this}`);
        return undefined;
      },
      () => `${this} to evaluate on`,
      DEFAULT_WAIT_MS,
    ).then((r) => r.value);
  }
}

/**
 * Whether `value` is `text` with one or two characters left out, the rest in order. Characters beyond the BMP
 * (emoji) are not counted: WebKitWebDriver cannot type them at all (its keymap has no key for them), so they are
 * always missing there and say nothing about a dropped key.
 */
export function droppedFrom(fullText: string, fullValue: string): boolean {
  const bmp = (s: string) => s.replace(/[\u{10000}-\u{10FFFF}]/gu, '');
  const text = bmp(fullText);
  const value = bmp(fullValue);
  if (value.length >= text.length || text.length - value.length > 2) return false;
  let i = 0;
  for (let k = 0; k < text.length && i < value.length; k++) if (value[i] === text[k]) i++;
  return i === value.length;
}
