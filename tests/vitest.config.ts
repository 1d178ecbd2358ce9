import { configDefaults, defineConfig } from 'vitest/config';
import { SOLO_FILES, shared, sharedTest } from './vitest.shared.js';

// Two files at a time: most of an integration file's wall time is waiting (wrangler starting, liveness
// windows, settle timers), not CPU, and one at a time made `npm test` pass 15 minutes on two cores.
export default defineConfig({
  ...shared,
  test: {
    ...sharedTest,
    name: 'integration',
    include: ['integration/**/*.test.ts', 'e2e/**/*.test.ts', 'fuzz/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...SOLO_FILES],
    fileParallelism: true,
    maxWorkers: 2,
  },
});
