/**
 * Which Pocket build this page's service worker serves (R-BUILD-2): the installed build's files read back from
 * the worker's cache and hashed here — the bytes the worker answers requests with, not a version string the
 * code reports about itself. See the README's security section for what this does and does not prove.
 */
import type { BuildFile } from '@burrow/protocol';
import { buildIdOf, cachedBuildFiles, readBuildState } from '../store/build-cache.js';

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
  return { kind: 'served', buildId: await buildIdOf(files), files };
}
