import { configDefaults, defineConfig } from 'vitest/config';
import { SOLO_FILES, shared, sharedTest } from './vitest.shared.js';

// Files in parallel, two workers: most of an integration file's wall time is waiting (wrangler starting,
// liveness windows, settle timers), not CPU; one at a time made `npm test` pass 15 minutes. The second group
// (the first is the agents, units and Chromium on three workers: the root config says why).
export default defineConfig({
  ...shared,
  test: {
    ...sharedTest,
    name: 'integration',
    include: ['integration/**/*.test.ts', 'fuzz/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...SOLO_FILES],
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { groupOrder: 1 },
  },
});
