import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { APP_MANIFEST } from './src/shell/app-manifest.js';

// The relay serves dist/ as static assets under a strict CSP (DESIGN §4.1): no inline script anywhere, so the
// service worker is registered from our own bundle (workbox-window), never by an injected inline snippet.
export default defineConfig({
  // 'source' bundles the workspace packages (@burrow/protocol, @burrow/crypto) from their TypeScript sources.
  resolve: { conditions: ['source', 'module', 'browser', 'development|production'] },
  plugins: [
    react(),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src/sw',
      filename: 'sw.ts',
      injectRegister: false,
      registerType: 'prompt',
      manifest: APP_MANIFEST,
      includeAssets: ['icons/*.png'],
      injectManifest: {
        // The terminal view is a lazy chunk: precache it too, so an offline phone can still open a terminal
        // the moment its computer is reachable again.
        globPatterns: ['**/*.{js,css,html,png,svg,webmanifest,woff2}'],
        rollupFormat: 'es',
      },
    }),
  ],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No inline data: URLs: the CSP's default-src 'self' would block them.
    assetsInlineLimit: 0,
  },
});
