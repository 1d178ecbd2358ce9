import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './tests/longest-first-sequencer.js';

// One `vitest run` at the root runs every package's project; coverage is reported (and enforced) for the
// shared packages every other part builds on.
export default defineConfig({
  test: {
    // Two workers on this two-core machine, for every project: integration files spend most of their wall
    // time waiting (wrangler starting, liveness windows, settle timers), so two at a time nearly halves it.
    maxWorkers: 2,
    // The long files start first, across projects (tests/longest-first-sequencer.ts says why).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      'crypto',
      'protocol',
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
    ],
    coverage: {
      provider: 'v8',
      include: ['crypto/src/**/*.ts', 'protocol/src/**/*.ts'],
      exclude: ['**/*.test.ts', '**/*.d.ts', '**/test/**'],
      reporter: ['text-summary', 'text'],
      thresholds: { lines: 90 },
    },
  },
});
