import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { decodePocketBuildManifest, encodePocketBuildManifest } from '@burrow/protocol';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { BUILD_MANIFEST_FILE, pocketBuildManifest } from './pocket-build-manifest.js';
import { APP_MANIFEST } from './src/shell/app-manifest.js';

const DIST = resolve(import.meta.dirname, 'dist');
/** The service worker's path: also in src/store/build-state.ts (`SERVICE_WORKER_PATH`). */
const SERVICE_WORKER_PATH = '/sw.js';
/** This Pocket's release (package.json), written to every build as `/release.json` (issue 24.6). */
const RELEASE: string = JSON.parse(
  readFileSync(resolve(import.meta.dirname, 'package.json'), 'utf8'),
).version;

/**
 * `/release.json`: `{ "version": "<release>" }`, a file of the build like any other (precached, hashed, vouched
 * for by the Burrow), so the service worker and the page can tell an older build offered by the relay from a
 * newer one (src/store/build-state.ts `isDowngrade`).
 */
/**
 * Adds `/sw.js` to `dist/pocket-build.json` once vite-plugin-pwa has written it (issue 24.7). The worker's own
 * list cannot name it (the list is inside it), but the Burrow's manifest can: Pocket's page then compares the
 * `sw.js` the relay serves with the one its computer vouches for (src/build-check/served-build.ts).
 */
function vouchServiceWorker(): Plugin {
  return {
    name: 'pocket-vouch-service-worker',
    closeBundle: {
      sequential: true,
      order: 'post',
      async handler() {
        const manifestPath = resolve(DIST, BUILD_MANIFEST_FILE);
        const { files } = decodePocketBuildManifest(readFileSync(manifestPath, 'utf8'));
        const sha256 = createHash('sha256')
          .update(readFileSync(resolve(DIST, 'sw.js')))
          .digest('base64url');
        const others = files.filter((f) => f.path !== SERVICE_WORKER_PATH);
        writeFileSync(
          manifestPath,
          encodePocketBuildManifest([...others, { path: SERVICE_WORKER_PATH, sha256 }]),
        );
      },
    },
  };
}

function releaseFile(): Plugin {
  return {
    name: 'pocket-release',
    generateBundle() {
      this.emitFile({
        type: 'asset',
        fileName: 'release.json',
        source: `${JSON.stringify({ version: RELEASE })}\n`,
      });
    },
  };
}

// The relay serves dist/ as static assets under a strict CSP (DESIGN §4.1): no inline script anywhere, so the
// service worker is registered from our own bundle (workbox-window), never by an injected inline snippet.
export default defineConfig({
  // 'source' bundles the workspace packages (@burrow/protocol, @burrow/crypto) from their TypeScript sources.
  resolve: { conditions: ['source', 'module', 'browser', 'development|production'] },
  plugins: [
    react(),
    releaseFile(),
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
        globPatterns: ['**/*.{js,css,html,png,svg,webmanifest,woff2}', 'release.json'],
        rollupFormat: 'es',
        // Issue 16 item 7: each file's SHA-256 for the worker, and dist/pocket-build.json for the Burrow.
        manifestTransforms: [pocketBuildManifest(DIST)],
      },
    }),
    // After VitePWA's closeBundle (sequential, in plugin order; 'post' on top): sw.js exists by then.
    vouchServiceWorker(),
  ],
  build: {
    outDir: DIST,
    emptyOutDir: true,
    target: 'es2022',
    // No inline data: URLs: the CSP's default-src 'self' would block them.
    assetsInlineLimit: 0,
  },
});
