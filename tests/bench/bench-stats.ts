/** Small helpers the full-chain bench shares: quantiles, polling with a deadline, and an aligned table. */
import { performance } from 'node:perf_hooks';

export interface Quantiles {
  readonly p50: number;
  readonly p99: number;
}

/** Nearest-rank quantiles of a sample (milliseconds in, milliseconds out). */
export function quantiles(samples: readonly number[]): Quantiles {
  if (samples.length === 0) throw new RangeError('quantiles of an empty sample');
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

export const median = (samples: readonly number[]): number => quantiles(samples).p50;

/** Polls `cond` every `pollMs` until it holds; rejects naming `what` after `ms`. */
export async function until(cond: () => boolean, what: string, ms: number, pollMs = 2): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`bench timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Prints rows as aligned columns (first row is the header). */
export function printTable(rows: readonly (readonly string[])[]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  for (const row of rows)
    console.log(
      row
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}

export const ms = (v: number) => `${v.toFixed(3)} ms`;
export const us = (v: number) => `${(v * 1000).toFixed(0)} µs`;
