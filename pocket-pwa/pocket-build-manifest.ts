/**
 * Build step (vite.config.ts): every file the service worker precaches gets its SHA-256 — as the precache
 * entry's `integrity`, so the worker checks each download against its own build (src/sw/installed-build.ts),
 * and in `dist/pocket-build.json` (protocol R-BUILD-1), the manifest the Burrow ships and vouches for
 * (burrow-agent/src/remote/vouched-build.ts). One list feeds both, so they cannot disagree.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BuildFile, encodePocketBuildManifest } from '@burrow/protocol';
import type { ManifestTransform } from 'workbox-build';

export const BUILD_MANIFEST_FILE = 'pocket-build.json';

export function pocketBuildManifest(distDir: string): ManifestTransform {
  return async (entries) => {
    const files: BuildFile[] = [];
    const manifest = await Promise.all(
      entries.map(async (entry) => {
        const digest = createHash('sha256')
          .update(await readFile(join(distDir, entry.url)))
          .digest();
        files.push({ path: `/${entry.url}`, sha256: digest.toString('base64url') });
        // The file's hash names it exactly: no cache-busting revision needed on top.
        return { ...entry, revision: null, integrity: `sha256-${digest.toString('base64')}` };
      }),
    );
    await writeFile(join(distDir, BUILD_MANIFEST_FILE), encodePocketBuildManifest(files));
    return { manifest, warnings: [] };
  };
}
