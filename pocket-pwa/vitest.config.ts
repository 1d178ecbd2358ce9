import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  // 'source' makes workspace packages resolve to their TypeScript sources, so tests never see a stale build.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'pocket-pwa',
    environment: 'happy-dom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/test-setup.ts'],
    // Real CSS for the stylesheet whose iOS rules a test reads (shell/ios-meta.test.ts); others stay empty.
    css: { include: [/app\/app\.css/] },
  },
});
