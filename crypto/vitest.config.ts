import { defineConfig } from 'vitest/config';

export default defineConfig({
  // 'source' makes workspace packages resolve to their TypeScript sources, so tests never see a stale build.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: { name: 'crypto', include: ['src/**/*.test.ts', 'node/**/*.test.ts', 'test/**/*.test.ts'] },
});
