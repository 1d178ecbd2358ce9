import { defineConfig } from 'vitest/config';
import { shared, sharedTest } from './vitest.shared.js';

/**
 * The browser e2e files, once per engine: the root config declares one project per engine (e2e-chromium,
 * e2e-firefox, e2e-webkit) extending this and providing `e2eEngine` (tests/e2e/phone/phone.ts). Files of every
 * project share the root's two workers, so two engine files run at a time.
 */
export default defineConfig({
  ...shared,
  root: import.meta.dirname,
  test: {
    ...sharedTest,
    include: ['e2e/**/*.test.ts'],
    fileParallelism: true,
  },
});
