/** What several e2e bodies read off Pocket's screens, in any engine. */
import type { Phone } from './phone/phone.js';

/** Polls `cond` until it holds (tests/helpers/until.ts); `what` may be a function, to say what it saw last. */
export { until } from '../helpers/until.js';

/** The terminal's rendered rows (xterm's DOM renderer) as text. */
export async function terminalText(phone: Phone): Promise<string> {
  return phone.locator('.xterm-rows').textContent();
}

/** Polls the terminal's rows until `re` matches. */
export async function waitForTerminal(phone: Phone, re: RegExp, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!re.test(await terminalText(phone))) {
    if (Date.now() > end)
      throw new Error(`terminal never showed ${re}; it shows:\n${await terminalText(phone)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The terminal view once its first screen is painted. */
export async function waitForPaintedTerminal(phone: Phone, ms = 20_000): Promise<void> {
  await phone.locator('.term-host[data-painted="yes"]').waitFor({ timeout: ms });
}
