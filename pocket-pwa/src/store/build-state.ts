/**
 * Which Pocket build the service worker serves, as pure decisions (issue 16 item 7; the I/O is
 * installed-build.ts). Shared by the worker and the page (the page reads the same state to check the build and
 * to offer updates), so it has neither DOM nor WebWorker types.
 *
 * Every build lives in its own cache, named by its build id (R-BUILD-3). One small state record says which build
 * is **installed** — the only one the worker serves — and which newer one is **offered**. A new worker (the
 * relay served a new `sw.js`) downloads its build, checks every file against the SHA-256 its own manifest
 * carries, and records it as offered; nothing changes for the user until they accept the update. That holds
 * even when the browser activates the new worker by itself (every Pocket window closed): the state, not the
 * worker's age, decides what is served. Only the very first install takes effect at once — there is nothing
 * installed to protect yet.
 */

/** Each build's files: `pocket-build-<build id>`. */
export const BUILD_CACHE_PREFIX = 'pocket-build-';
/** The cache holding the one state record. */
export const BUILD_STATE_CACHE = 'pocket-build-state';
/** The state record's key inside BUILD_STATE_CACHE (never a path the app or the relay uses). */
export const BUILD_STATE_PATH = '/__pocket/build-state';
/** Caches an earlier Pocket (Workbox precaching) left behind: removed once this worker activates. */
const LEGACY_CACHE_PREFIX = 'workbox-precache';

/** A build id (R-BUILD-3) in hex: 64 characters. */
const BUILD_ID = /^[0-9a-f]{64}$/;

export interface BuildState {
  /** The build the worker serves. */
  readonly installed: string;
  /** A newer build, downloaded and checked, waiting for the user's accept; null when there is none. */
  readonly offered: string | null;
}

export function buildCacheName(buildId: string): string {
  if (!BUILD_ID.test(buildId)) throw new RangeError('a build id is 64 hex characters');
  return BUILD_CACHE_PREFIX + buildId;
}

/** Reads a stored state record; anything malformed counts as none (the worker then starts over). */
export function parseBuildState(value: unknown): BuildState | null {
  if (value === null || typeof value !== 'object') return null;
  const { installed, offered } = value as Record<string, unknown>;
  if (typeof installed !== 'string' || !BUILD_ID.test(installed)) return null;
  if (offered !== null && (typeof offered !== 'string' || !BUILD_ID.test(offered))) return null;
  return { installed, offered: offered === installed ? null : offered };
}

/**
 * After a worker downloaded and checked its build `own`: the first install serves it at once (and the worker
 * takes over without waiting); otherwise it is offered, and the installed build stays.
 */
export function afterInstall(
  previous: BuildState | null,
  own: string,
): { readonly state: BuildState; readonly takeOverNow: boolean } {
  if (previous === null) return { state: { installed: own, offered: null }, takeOverNow: true };
  if (previous.installed === own) return { state: { installed: own, offered: null }, takeOverNow: false };
  return { state: { installed: previous.installed, offered: own }, takeOverNow: false };
}

/** The user accepted the update to `own` (only the worker whose build it is may apply it). */
export function afterAccept(previous: BuildState | null, own: string): BuildState | null {
  if (previous === null || previous.offered !== own) return null;
  return { installed: own, offered: null };
}

/** Caches to delete: other builds' and legacy ones; never the installed, the offered, or this worker's own. */
export function staleCaches(names: readonly string[], state: BuildState, own: string): string[] {
  const keep = new Set([BUILD_STATE_CACHE, BUILD_CACHE_PREFIX + state.installed, BUILD_CACHE_PREFIX + own]);
  if (state.offered !== null) keep.add(BUILD_CACHE_PREFIX + state.offered);
  return names.filter(
    (n) => !keep.has(n) && (n.startsWith(BUILD_CACHE_PREFIX) || n.startsWith(LEGACY_CACHE_PREFIX)),
  );
}

/**
 * What a same-origin GET is answered with: `null` = the network (the relay's API under /v1/), otherwise the
 * path of the installed build's file to serve — index.html for every navigation (the app routes by path).
 */
export function servedPath(pathname: string, isNavigation: boolean): string | null {
  if (pathname === '/v1' || pathname.startsWith('/v1/')) return null;
  return isNavigation ? '/index.html' : pathname;
}
