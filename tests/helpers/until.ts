/**
 * Waits for a condition, polling: every 25 ms at first, backing off to every 100 ms. A condition true within a
 * moment is seen within 25 ms; a long wait polls a tenth as often as a fixed 25 ms would, which matters on this
 * two-core machine when the condition spawns a CLI, runs tmux or reads a page through a WebDriver (the suite is
 * CPU-bound: polling was a measurable share of it).
 */
export const POLL_FIRST_MS = 25;
export const POLL_MAX_MS = 100;

export async function until(
  cond: () => boolean | Promise<boolean>,
  what: string | (() => string),
  ms = 20_000,
): Promise<void> {
  const end = Date.now() + ms;
  let wait = POLL_FIRST_MS;
  while (!(await cond())) {
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(POLL_MAX_MS, Math.round(wait * 1.5));
  }
}
