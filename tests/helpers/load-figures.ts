/**
 * How long the load tests run and how they report: `LOAD_SECONDS` (default 20, for `npm test`; the long variant
 * `npm run load -w tests` sets minutes) and one `[figure]` line per measurement, which the lead collects from
 * the test output for docs/reliability.md (issue 8).
 */

/** Default load window in `npm test` (s): keeps the file near a minute on a 2-core machine. */
export const DEFAULT_LOAD_SECONDS = 20;
/** Longest load window accepted (s). */
export const MAX_LOAD_SECONDS = 3_600;

/** The load window (s) from `LOAD_SECONDS`; RangeError on anything but an integer 1 … MAX_LOAD_SECONDS. */
export function loadSeconds(value: string | undefined = process.env.LOAD_SECONDS): number {
  if (value === undefined || value === '') return DEFAULT_LOAD_SECONDS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LOAD_SECONDS)
    throw new RangeError(`LOAD_SECONDS must be an integer from 1 to ${MAX_LOAD_SECONDS}`);
  return n;
}

/** The load window of this run, read once (test timeouts are derived from it). */
export const LOAD_SECONDS = loadSeconds();

/** `[figure] <what>: k=v …` — integers rounded; strings (pre-formatted decimals) as given. */
export function figure(what: string, values: Record<string, number | string>): void {
  const parts = Object.entries(values).map(([k, v]) => `${k}=${typeof v === 'number' ? Math.round(v) : v}`);
  console.log(`[figure] ${what}: ${parts.join(' ')}`);
}
