/**
 * Issue 8, "Hostile input": every fuzz target with a bounded, seeded run in `npm test` (the long run is
 * `npm run fuzz`, tests/fuzz/main.ts). Each test prints its `[figure]` line and fails on any finding, with
 * the seed and path that replay it. The live-relay target starts `wrangler dev` once, in its own describe.
 */
import { describe, expect, it } from 'vitest';
import { type FuzzReport, figureLine, runTarget } from './fuzz-runner.js';
import { IN_PROCESS_TARGETS, LIVE_TARGETS } from './targets/index.js';

/** Fixed, so a red run replays exactly. */
const SEED = 0x1_55e8;
/**
 * Heap growth allowed over a bounded run (after a full GC each side). Generous: JIT code and fast-check's
 * caches grow too; a leak per case would show as far more over these run counts.
 */
const MAX_HEAP_GROWTH_BYTES = 32 * 1024 * 1024;

function expectClean(report: FuzzReport): void {
  console.log(figureLine(report));
  const findings = report.findings.map(
    (f) => `${f.error} — replay: npm run fuzz -- --target ${report.target} --seed ${f.seed} --path ${f.path}`,
  );
  expect(findings).toEqual([]);
  expect(report.runs).toBeGreaterThan(0);
  expect(report.heapEnd - report.heapStart).toBeLessThan(MAX_HEAP_GROWTH_BYTES);
}

describe('fuzz: in-process parsers and decoders', () => {
  for (const target of IN_PROCESS_TARGETS) {
    it(`${target.name}: ${target.testRuns} seeded cases, no finding, heap bounded`, async () => {
      const report = await runTarget(target, { seed: SEED, runs: target.testRuns });
      expect(report.runs).toBe(target.testRuns);
      expectClean(report);
    });
  }
});

describe('fuzz: the real relay under wrangler dev', () => {
  for (const target of LIVE_TARGETS) {
    it(`${target.name}: ${target.testRuns} seeded requests, every answer a 4xx JSON error or the route's success`, async () => {
      const report = await runTarget(target, { seed: SEED, runs: target.testRuns });
      expect(report.runs).toBe(target.testRuns);
      expectClean(report);
    }, 180_000);
  }
});
