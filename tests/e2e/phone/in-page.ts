/**
 * Runs inside the page under test, in every engine alike (bundled by in-page-bundle.ts and injected by the
 * page driver): resolves a locator chain (steps.ts) against the live DOM and answers one query about it.
 *
 * Roles and accessible names come from @testing-library/dom (its `queryAllByRole`: ARIA-in-HTML implicit
 * roles, accname computation, inaccessible elements left out), so "the button named Start" means the same
 * thing in Chromium, Firefox and WebKit, instead of three engines' own selector dialects. Text matching is
 * written here because it is Playwright's rule (the innermost element whose whole text matches), which the
 * e2e bodies were written against, and testing-library's `ByText` matches an element's own text nodes only.
 */
import { queryAllByRole } from '@testing-library/dom';
import {
  type Box,
  type Hit,
  IN_PAGE_GLOBAL,
  MARK_ATTRIBUTE,
  type Query,
  type Reached,
  type Step,
  type TextMatch,
} from './steps.js';

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();

function matches(match: TextMatch, text: string): boolean {
  if (match.kind === 'regex') return new RegExp(match.source, match.flags).test(text);
  const t = normalise(text);
  return match.exact
    ? t === normalise(match.value)
    : t.toLowerCase().includes(normalise(match.value).toLowerCase());
}

/** The scope itself counts, as in Playwright: `getByRole('status').getByText(…)` finds the status's own text. */
function byText(root: Element, match: TextMatch): Element[] {
  const found: Element[] = [];
  for (const el of [root, ...root.querySelectorAll('*')]) {
    if (el.closest('script, style, head') !== null) continue;
    if (!matches(match, el.textContent ?? '')) continue;
    // Innermost: a child that matches on its own is the match instead.
    if ([...el.children].some((child) => matches(match, child.textContent ?? ''))) continue;
    found.push(el);
  }
  return found;
}

function step(roots: Element[], s: Step): Element[] {
  switch (s.by) {
    case 'nth': {
      const at = s.index < 0 ? roots.length + s.index : s.index;
      const one = roots[at];
      return one === undefined ? [] : [one];
    }
    case 'has':
      return roots.filter((root) => resolve([root], s.chain).length > 0);
    default: {
      const out = new Set<Element>();
      for (const root of roots) {
        const found =
          s.by === 'css'
            ? [...root.querySelectorAll(s.selector)]
            : s.by === 'text'
              ? byText(root, s.text)
              : queryAllByRole(root as HTMLElement, s.role, {
                  hidden: false,
                  ...(s.name === null ? {} : { name: (name: string) => matches(s.name!, name) }),
                });
        for (const el of found) out.add(el);
      }
      // Document order, as every engine's own locators report.
      return [...out].sort((a, b) =>
        a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1,
      );
    }
  }
}

function resolve(roots: Element[], chain: readonly Step[]): Element[] {
  return chain.reduce(step, roots);
}

function visible(el: Element): boolean {
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden';
}

let nextMark = 1;

/** This document, for telling a tap that navigated from one that did nothing. */
const documentId = `${Date.now()}-${Math.random()}`;
/** The element the last `hit` looked at, and whether an event of a tap has reached it since. */
let watched: { el: Element; reached: boolean } | null = null;
for (const type of ['pointerdown', 'mousedown', 'touchstart', 'click']) {
  addEventListener(
    type,
    (e) => {
      if (watched !== null && e.target instanceof Node && watched.el.contains(e.target))
        watched.reached = true;
    },
    { capture: true },
  );
}

function hit(el: Element): Hit {
  let r = el.getBoundingClientRect();
  // Out of view (a row below the fold of a long list): scrolled to first, as WebDriver's click and Playwright's
  // actionability checks do. Only then: a box in view is never moved by looking at it.
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    r = el.getBoundingClientRect();
  }
  const x = Math.min(Math.max(r.x + r.width / 2, 0), innerWidth - 1);
  const y = Math.min(Math.max(r.y + r.height / 2, 0), innerHeight - 1);
  const top = document.elementFromPoint(x, y);
  watched = { el, reached: false };
  return {
    box: { x: r.x, y: r.y, width: r.width, height: r.height },
    onTop: top !== null && el.contains(top),
    document: documentId,
  };
}

/** Answers one query; a single-element query on zero or several matches says so instead of guessing. */
function run(query: Query): unknown {
  if (query.op === 'reached') {
    const answer: Reached = { reached: watched?.reached ?? false, document: documentId };
    return answer;
  }
  const all = resolve([document.documentElement], query.chain);
  switch (query.op) {
    case 'count':
      return all.length;
    case 'state':
      return { count: all.length, visible: all.filter(visible).length };
    case 'texts':
      return all.map((el) => el.textContent ?? '');
  }
  if (all.length !== 1) return { matched: all.length };
  const el = all[0] as HTMLElement;
  switch (query.op) {
    case 'text':
      return { value: el.textContent ?? '' };
    case 'value':
      return { value: (el as HTMLInputElement).value ?? null };
    case 'attr':
      return { value: el.getAttribute(query.name) };
    case 'box': {
      if (!visible(el)) return { value: null };
      const r = el.getBoundingClientRect();
      const box: Box = { x: r.x, y: r.y, width: r.width, height: r.height };
      return { value: box };
    }
    case 'focus':
      el.focus();
      return { value: document.activeElement === el };
    case 'mark': {
      let id = el.getAttribute(MARK_ATTRIBUTE);
      if (id === null) {
        id = String(nextMark++);
        el.setAttribute(MARK_ATTRIBUTE, id);
      }
      el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      return { value: `[${MARK_ATTRIBUTE}="${id}"]` };
    }
    case 'hit':
      return { value: hit(el) };
  }
}

/** Runs `fn` (compiled by the automation channel that sent it) on the one element `chain` matches. */
async function evaluateOn(
  chain: readonly Step[],
  fn: (el: Element, arg: unknown) => unknown,
  arg: unknown,
): Promise<unknown> {
  const all = resolve([document.documentElement], chain);
  if (all.length !== 1) return { matched: all.length };
  // JSON drops an undefined member: a function that returns nothing answers null.
  const value = await fn(all[0]!, arg);
  return { value: value === undefined ? null : value };
}

/** Console lines, kept for a failed test's report (WebDriver classic has no log of its own). */
const consoleLog: string[] = [];
const CONSOLE_LOG_MAX = 200;
for (const level of ['log', 'info', 'warn', 'error'] as const) {
  const original = console[level].bind(console);
  console[level] = (...args: unknown[]) => {
    consoleLog.push(`console.${level}: ${args.map(String).join(' ')}`);
    if (consoleLog.length > CONSOLE_LOG_MAX) consoleLog.shift();
    original(...args);
  };
}
addEventListener('error', (e) => consoleLog.push(`pageerror: ${e.message}`));
addEventListener('unhandledrejection', (e) => consoleLog.push(`unhandledrejection: ${String(e.reason)}`));

(globalThis as unknown as Record<string, unknown>)[IN_PAGE_GLOBAL] = {
  run,
  evaluateOn,
  log: () => [...consoleLog],
};
