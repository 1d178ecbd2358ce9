/**
 * The service worker's build caches as both sides read them (issue 16 item 7; the decisions are build-state.ts):
 * the worker fills them and serves from them, the page reads back what they hold and hashes it, to compare with
 * the build its Burrow vouches for (R-BUILD-2). Cache Storage and WebCrypto exist in windows and workers alike.
 */
import {
  type BuildFile,
  buildListing,
  encodeBase64url,
  MAX_BUILD_FILES,
  sortBuildFiles,
} from '@burrow/protocol';
import {
  BUILD_STATE_CACHE,
  BUILD_STATE_PATH,
  type BuildState,
  buildCacheName,
  parseBuildState,
  parseRelease,
  RELEASE_PATH,
} from './build-state.js';

export async function sha256(bytes: ArrayBuffer | Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

/** R-BUILD-3: the build id, hex. */
export async function buildIdOf(files: readonly BuildFile[]): Promise<string> {
  const digest = await sha256(new TextEncoder().encode(buildListing(files)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The state record, or null when there is none (never installed; a reader never creates the cache). */
export async function readBuildState(): Promise<BuildState | null> {
  if (!(await caches.has(BUILD_STATE_CACHE))) return null;
  const response = await (await caches.open(BUILD_STATE_CACHE)).match(BUILD_STATE_PATH);
  if (response === undefined) return null;
  try {
    return parseBuildState(await response.json());
  } catch {
    return null;
  }
}

export async function writeBuildState(state: BuildState): Promise<void> {
  const cache = await caches.open(BUILD_STATE_CACHE);
  await cache.put(
    BUILD_STATE_PATH,
    new Response(JSON.stringify(state), { headers: { 'content-type': 'application/json' } }),
  );
}

/**
 * Every file a build's cache holds, as the worker would serve it: its path and the SHA-256 of the stored body.
 * Read from the cache, not from a list the code carries, so a file added, changed or missing shows. At most
 * MAX_BUILD_FILES + 1 are read: one more than any manifest may list is already a mismatch.
 */
export async function cachedBuildFiles(buildId: string): Promise<BuildFile[]> {
  const name = buildCacheName(buildId);
  if (!(await caches.has(name))) return [];
  const cache = await caches.open(name);
  const requests = (await cache.keys()).slice(0, MAX_BUILD_FILES + 1);
  const files = await Promise.all(
    requests.map(async (request) => {
      const response = await cache.match(request);
      const body = response === undefined ? new ArrayBuffer(0) : await response.arrayBuffer();
      return { path: new URL(request.url).pathname, sha256: encodeBase64url(await sha256(body)) };
    }),
  );
  return sortBuildFiles(files);
}

/** The release (`/release.json` version) of the build in `buildId`'s cache; null when it has none. */
export async function cachedRelease(buildId: string): Promise<string | null> {
  const name = buildCacheName(buildId);
  if (!(await caches.has(name))) return null;
  const response = await (await caches.open(name)).match(RELEASE_PATH);
  if (response === undefined) return null;
  try {
    return parseRelease(await response.json());
  } catch {
    return null;
  }
}
