import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { pocketBuildManifest } from './pocket-build-manifest.js';
import { APP_MANIFEST } from './src/shell/app-manifest.js';

const DIST = resolve(import.meta.dirname, 'dist');

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
      // The icons and the web manifest are precached through globPatterns (they are in dist/ by then), so every
      // precached file passes through pocketBuildManifest; the plugin still appends the web manifest once more
      // after the transforms, which the worker folds into the hashed entry (installed-build.ts).
      includeAssets: [],
      includeManifestIcons: false,
      injectManifest: {
        // The terminal view is a lazy chunk: precache it too, so an offline phone can still open a terminal
        // the moment its computer is reachable again.
        globPatterns: ['**/*.{js,css,html,png,svg,webmanifest,woff2}'],
        rollupFormat: 'es',
        // Issue 16 item 7: each file's SHA-256 for the worker, and dist/pocket-build.json for the Burrow.
        manifestTransforms: [pocketBuildManifest(DIST)],
      },
    }),
  ],
  build: {
    outDir: DIST,
    emptyOutDir: true,
    target: 'es2022',
    // No inline data: URLs: the CSP's default-src 'self' would block them.
    assetsInlineLimit: 0,
  },
});
