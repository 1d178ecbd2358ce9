import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './tests/longest-first-sequencer.js';

// One `vitest run` at the root runs every package's project; coverage is reported (and enforced) for the
// shared packages every other part builds on.
export default defineConfig({
  test: {
    // Three groups, one after the other (sequence.groupOrder). The suite is CPU-bound on this two-core machine
    // (19% idle over a full run), except while the real agent CLIs wait: agents-ring types into idle agents for
    // its 3 minutes, which left half the CPU idle beside it. So the first group — the agents, the unit projects
    // and e2e-chromium — runs on three workers (this default); the second — integration, e2e-firefox,
    // e2e-webkit — on two (set in those projects); the last, the solo files, alone.
    maxWorkers: 3,
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
      'tests/vitest.agents.config.ts',
      ...(['chromium', 'firefox', 'webkit'] as const).map((engine) => ({
        extends: './tests/vitest.e2e.config.ts',
        root: './tests',
        test: {
          name: `e2e-${engine}`,
          provide: { e2eEngine: engine },
          ...(engine === 'chromium' ? {} : { maxWorkers: 2, sequence: { groupOrder: 1 } }),
        },
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
