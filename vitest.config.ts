import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './tests/longest-first-sequencer.js';

/** The projects whose code coverage is measured (and enforced): the shared packages every other part builds on. */
const COVERED = ['crypto', 'protocol'];
const REST = [
  'relay-worker',
  'burrow-agent',
  'pocket-pwa',
  'tests/vitest.config.ts',
  // The browser e2e bodies, once per engine phones use (tests/e2e/phone/phone.ts reads `e2eEngine`).
  ...(['chromium', 'firefox', 'webkit'] as const).map((engine) => ({
    extends: './tests/vitest.e2e.config.ts',
    root: './tests',
    test: { name: `e2e-${engine}`, provide: { e2eEngine: engine } },
  })),
  'tests/vitest.solo.config.ts',
];

/**
 * `BURROW_TEST_PART` picks the projects: `covered` (run with `--coverage`) or `rest`; unset, all of them.
 * `npm test` runs the two parts one after the other because coverage slows every worker, not only the code it
 * measures: lossless-output took 56 s without it, 66–71 s with V8 coverage, and 66 s with istanbul, which
 * instrumented nothing in that file (4 Dec 2026). Vitest's `--project '!a' --project '!b'` cannot say "all but
 * these two": its filters are OR-ed.
 */
const PART = process.env.BURROW_TEST_PART;
if (PART !== undefined && PART !== 'covered' && PART !== 'rest')
  throw new RangeError(`BURROW_TEST_PART must be "covered" or "rest", not "${PART}"`);
const PROJECTS = PART === 'covered' ? COVERED : PART === 'rest' ? REST : [...COVERED, ...REST];

// A `vitest run` at the root runs the packages' projects; with `--coverage`, coverage is reported (and
// enforced) for the COVERED ones.
export default defineConfig({
  test: {
    // Two workers on this two-core machine, for every project: integration files spend most of their wall
    // time waiting (wrangler starting, liveness windows, settle timers), so two at a time nearly halves it.
    maxWorkers: 2,
    // The long files start first, across projects (tests/longest-first-sequencer.ts says why).
    sequence: { sequencer: LongestFirstSequencer },
    projects: PROJECTS,
    coverage: {
      provider: 'v8',
      include: ['crypto/src/**/*.ts', 'protocol/src/**/*.ts'],
      exclude: ['**/*.test.ts', '**/*.d.ts', '**/test/**'],
      reporter: ['text-summary', 'text'],
      thresholds: { lines: 90 },
    },
  },
});
