import { defineConfig } from 'vitest/config';
import { SOLO_FILES, shared, sharedTest } from './vitest.shared.js';

// The load test asserts the echo bound (p99 < 50 ms), so it runs after every other project has
// finished (the last group), alone on the machine.
export default defineConfig({
  ...shared,
  test: {
    ...sharedTest,
    name: 'integration-solo',
    include: SOLO_FILES,
    fileParallelism: false,
    sequence: { groupOrder: 2 },
  },
});
