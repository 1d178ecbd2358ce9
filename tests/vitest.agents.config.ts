import { defineConfig } from 'vitest/config';
import { shared, sharedTest } from './vitest.shared.js';

/**
 * The real agent CLIs (tests/agents/). Most of their wall time is waiting: agents-ring types into idle agents
 * every 10 s for the 3 minutes. So they run in the first group (sequence.groupOrder 0, with the unit
 * projects and e2e-chromium) on three workers: while agents-ring waits, two other files keep both cores busy.
 * The other integration and e2e projects follow on two workers (vitest.config.ts at the root).
 */
export default defineConfig({
  ...shared,
  test: {
    ...sharedTest,
    name: 'agents',
    include: ['agents/**/*.test.ts'],
    fileParallelism: true,
  },
});
