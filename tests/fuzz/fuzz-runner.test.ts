/**
 * The fuzz runner itself: it must report a finding (with a seed and path that replay that very case), count
 * documented rejections as rejections rather than findings, and record a failed whole-run check — else a
 * green fuzz.test.ts would prove nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runTarget } from './fuzz-runner.js';
import { FuzzFinding, type FuzzTarget } from './fuzz-target.js';

class DocumentedRefusal extends Error {}

/** Refuses odd numbers (documented), breaks on multiples of 97 (a bug), checks a bound after each batch. */
function syntheticTarget(options: { failAfterBatch?: boolean } = {}): FuzzTarget<number> {
  return {
    name: 'synthetic',
    about: 'a target with a planted bug',
    async: false,
    testRuns: 500,
    async start() {
      return {
        input: fc.integer({ min: 1, max: 10_000 }),
        isExpected: (error) => error instanceof DocumentedRefusal,
        run(n) {
          if (n % 97 === 0) throw new RangeError(`planted bug at ${n}`);
          if (n % 2 === 1) throw new DocumentedRefusal('odd');
          return 'accepted';
        },
        afterBatch() {
          if (options.failAfterBatch) throw new FuzzFinding('bound exceeded');
        },
      };
    },
  };
}

describe('runTarget', () => {
  it('records a planted bug with a seed and path that replay it, and counts refusals as rejections', async () => {
    const report = await runTarget(syntheticTarget(), { seed: 42, runs: 3_000 });
    expect(report.runs).toBeGreaterThan(0);
    expect(report.rejected).toBeGreaterThan(0);
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.findings.length).toBeGreaterThan(0);
    const first = report.findings[0]!;
    expect(first.error).toMatch(/^RangeError: planted bug at \d+/);
    const replay = await runTarget(syntheticTarget(), { seed: first.seed, path: first.path });
    expect(replay.runs).toBe(1);
    expect(replay.findings.map((f) => f.error)).toEqual([first.error]);
    expect(replay.findings[0]!.input).toBe(first.input);
  });

  it('stops on a time budget and records a failed whole-run check', async () => {
    const report = await runTarget(syntheticTarget({ failAfterBatch: true }), { seed: 7, seconds: 0.2 });
    expect(report.seconds).toBeGreaterThanOrEqual(0.2);
    expect(report.findings.some((f) => f.error.includes('bound exceeded') && f.path === '')).toBe(true);
    expect(report.heapEnd).toBeGreaterThan(0);
  });
});
