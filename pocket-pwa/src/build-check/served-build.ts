/**
 * Which Pocket build this page's service worker serves (R-BUILD-2): the installed build's files read back from
 * the worker's cache and hashed here — the bytes the worker answers requests with, not a version string the
 * code reports about itself — and the `/sw.js` the relay serves now, fetched past every cache and hashed
 * (issue 24.7): the script the browser installs next time it looks. See the README's security section for what
 * this does and does not prove (a page cannot read the worker that controls it, and a relay can tell the
 * browser's own fetch of `sw.js` from this one).
 */
import { type BuildFile, encodeBase64url, sortBuildFiles } from '@burrow/protocol';
import { buildIdOf, cachedBuildFiles, readBuildState, sha256 } from '../store/build-cache.js';
import { SERVICE_WORKER_PATH } from '../store/build-state.js';

export type ServedBuild =
  | { readonly kind: 'served'; readonly buildId: string; readonly files: readonly BuildFile[] }
  | { readonly kind: 'unavailable'; readonly why: string };

/**
 * How long to wait for a service worker to become active (ms). A first install downloads the whole build
 * (~0.5 MB); on a slow phone network that can take a while, and until then nothing is vouched for anyway.
 */
export const SERVICE_WORKER_READY_TIMEOUT_MS = 60_000;

export async function servedBuild(): Promise<ServedBuild> {
  if (!('serviceWorker' in navigator) || typeof caches === 'undefined') {
    return { kind: 'unavailable', why: 'this browser runs Pocket without a service worker' };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ready = await Promise.race([
    navigator.serviceWorker.ready.then(() => true),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), SERVICE_WORKER_READY_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (!ready) return { kind: 'unavailable', why: 'Pocket’s service worker did not start' };
  const state = await readBuildState();
  if (state === null) return { kind: 'unavailable', why: 'no Pocket build is installed' };
  const files = await cachedBuildFiles(state.installed);
  const worker = await serviceWorkerScript();
  const all = worker === null ? files : sortBuildFiles([...files, worker]);
  return { kind: 'served', buildId: await buildIdOf(all), files: all };
}

/**
 * `/sw.js` as the relay serves it now: fetched with `cache: 'no-store'` (the HTTP cache skipped) and passed to
 * the network by Pocket's worker (store/build-state.ts `servedPath`). Null when it cannot be read: then the
 * comparison lists it as missing, and nothing is vouched for.
 */
async function serviceWorkerScript(): Promise<BuildFile | null> {
  try {
    const response = await fetch(SERVICE_WORKER_PATH, { cache: 'no-store', credentials: 'same-origin' });
    if (!response.ok) return null;
    return { path: SERVICE_WORKER_PATH, sha256: encodeBase64url(await sha256(await response.arrayBuffer())) };
  } catch {
    return null;
  }
}
