import { configDefaults, defineConfig } from 'vitest/config';
import { SOLO_FILES, shared, sharedTest } from './vitest.shared.js';

// Files in parallel (two workers: the root's maxWorkers): most of an integration file's wall time is waiting
// (wrangler starting, liveness windows, settle timers), not CPU; one at a time made `npm test` pass 15 minutes.
export default defineConfig({
  ...shared,
  test: {
    ...sharedTest,
    name: 'integration',
    include: ['integration/**/*.test.ts', 'fuzz/**/*.test.ts', 'agents/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...SOLO_FILES],
    fileParallelism: true,
  },
});
