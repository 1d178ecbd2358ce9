/**
 * Pocket attach-to-first-paint (DESIGN §9): the built app, served by the bench's relay, in Debian's Chromium
 * as a phone (tests/e2e/phone, the e2e's own page driver), paired from a link like the e2e test does. Each run taps the row
 * of a session holding 10,000 lines and times, in the page, from the tap to the frame after the terminal
 * reports `data-painted="yes"` (xterm has parsed and rendered the `attached` snapshot).
 */
import { Phone } from '../e2e/phone/phone.js';

const UI_TIMEOUT_MS = 30_000;
const BACK_SETTLE_MS = 300;

/**
 * The in-page timer, as source text (this package compiles without DOM types): clicks the first button whose
 * label starts with `labelPrefix`, resolves with the milliseconds until the frame after the terminal painted.
 */
const TAP_TO_PAINT = (labelPrefix: string, timeoutMs: number) => `new Promise((done, fail) => {
  const painted = () => document.querySelector('.term-host[data-painted="yes"]') !== null;
  const button = [...document.querySelectorAll('button')].find((b) =>
    (b.getAttribute('aria-label') ?? '').startsWith(${JSON.stringify(labelPrefix)}));
  if (!button) return fail(new Error('no session row'));
  const timer = setTimeout(() => fail(new Error('no paint')), ${timeoutMs});
  const t0 = performance.now();
  const observer = new MutationObserver(() => {
    if (!painted()) return;
    observer.disconnect();
    clearTimeout(timer);
    requestAnimationFrame(() => done(performance.now() - t0));
  });
  observer.observe(document.body, { subtree: true, childList: true, attributes: true });
  button.click();
})`;

export interface PaintResult {
  /** Milliseconds, tap → frame after paint, first run (TerminalScreen chunk loaded cold). */
  readonly cold: number;
  /** The warm runs after it. */
  readonly warm: number[];
}

/**
 * Pairs the phone from `pairingLink`, then opens the session whose row is labelled `Open <rowName>…`
 * `runs` times. The caller owns the relay and the Burrow.
 */
export async function pocketAttachToPaint(
  pairingLink: string,
  burrowName: string,
  rowName: string,
  runs: number,
): Promise<PaintResult> {
  if (!Number.isInteger(runs) || runs < 2) throw new RangeError('runs must be an integer ≥ 2');
  // Chromium: the baseline engine of DESIGN §9's budgets (the launch fails loudly without it).
  const page = await Phone.launch('chromium');
  try {
    await page.goto(pairingLink);
    await page
      .getByRole('region', { name: burrowName })
      .getByText('connected')
      .waitFor({ timeout: UI_TIMEOUT_MS });
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const row = page.getByRole('button', { name: new RegExp(`^Open ${rowName}`) });
      await row.waitFor({ timeout: UI_TIMEOUT_MS });
      // Timed inside the page so the driver's own round trips are not counted.
      const elapsed = Number(await page.evaluate(TAP_TO_PAINT(`Open ${rowName}`, UI_TIMEOUT_MS)));
      times.push(elapsed);
      await page.getByRole('button', { name: 'Back to the session list' }).tap();
      await new Promise((r) => setTimeout(r, BACK_SETTLE_MS));
    }
    return { cold: times[0]!, warm: times.slice(1) };
  } finally {
    await page.close();
  }
}
