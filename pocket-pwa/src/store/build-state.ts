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
 *
 * Going back (issue 24.6): the record also keeps the builds this phone has run (`ran`) and the newest release
 * it has run (`newestRelease`, the `version` of a build's own `/release.json`). An offered build this phone
 * ran before, or whose release is older than the newest it ran (or that has no release at all, as builds
 * before this one), is a **downgrade**: a relay may be rolling Pocket back to a version with a known hole.
 * The page shows it as a warning, not as an update, and the worker installs it only when the page says the
 * user chose it after that warning (`afterAccept(…, confirmedDowngrade)`).
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
  /** Another build, downloaded and checked, waiting for the user's accept; null when there is none. */
  readonly offered: string | null;
  /** Builds this phone has served, oldest first, at most MAX_RAN_BUILDS (the installed one last). */
  readonly ran: readonly string[];
  /** The newest release (`/release.json` version) among the builds this phone has served; null: none known. */
  readonly newestRelease: string | null;
}

/** Builds remembered in `ran`. */
export const MAX_RAN_BUILDS = 16;
/** The file in every build that says its release (`{ "version": "<semver>" }`, written by vite.config.ts). */
export const RELEASE_PATH = '/release.json';
/** Longest release version read (characters). */
const MAX_RELEASE_CHARS = 64;
const RELEASE = /^(\d{1,9})\.(\d{1,9})\.(\d{1,9})(?:-([0-9A-Za-z.-]{1,40}))?$/;

/** A release version as `/release.json` gives it, or null when it is none. */
export function parseRelease(json: unknown): string | null {
  if (json === null || typeof json !== 'object') return null;
  const version = (json as { version?: unknown }).version;
  if (typeof version !== 'string' || version.length > MAX_RELEASE_CHARS || !RELEASE.test(version))
    return null;
  return version;
}

/**
 * Semantic-version order of two releases (SemVer 2.0 §11: numbers compared as numbers, a pre-release below its
 * release, pre-release identifiers compared one by one): negative when `a` is older.
 */
export function compareReleases(a: string, b: string): number {
  const pa = RELEASE.exec(a);
  const pb = RELEASE.exec(b);
  if (!pa || !pb) throw new RangeError('not a release version');
  for (let i = 1; i <= 3; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return d;
  }
  const [xa, xb] = [pa[4], pb[4]];
  if (xa === undefined || xb === undefined) return xa === xb ? 0 : xa === undefined ? 1 : -1;
  const ia = xa.split('.');
  const ib = xb.split('.');
  for (let i = 0; i < Math.min(ia.length, ib.length); i++) {
    const [ca, cb] = [ia[i]!, ib[i]!];
    if (ca === cb) continue;
    const [na, nb] = [/^\d+$/.test(ca), /^\d+$/.test(cb)];
    if (na && nb) return Number(ca) - Number(cb);
    if (na !== nb) return na ? -1 : 1;
    return ca < cb ? -1 : 1;
  }
  return ia.length - ib.length;
}

/**
 * Whether installing the offered build `offered` (with release `release`, null when it has none) would take
 * this phone back: to a build it ran before, or to a release older than the newest it ran.
 */
export function isDowngrade(state: BuildState, offered: string, release: string | null): boolean {
  if (offered === state.installed) return false;
  if (state.ran.includes(offered)) return true;
  if (state.newestRelease === null) return false;
  return release === null || compareReleases(release, state.newestRelease) < 0;
}

function ranWith(ran: readonly string[], build: string): string[] {
  return [...ran.filter((b) => b !== build), build].slice(-MAX_RAN_BUILDS);
}

function newest(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return compareReleases(a, b) >= 0 ? a : b;
}

export function buildCacheName(buildId: string): string {
  if (!BUILD_ID.test(buildId)) throw new RangeError('a build id is 64 hex characters');
  return BUILD_CACHE_PREFIX + buildId;
}

/**
 * Reads a stored state record; anything malformed counts as none (the worker then starts over). A record from
 * before `ran` and `newestRelease` existed reads as having run only its installed build, release unknown.
 */
export function parseBuildState(value: unknown): BuildState | null {
  if (value === null || typeof value !== 'object') return null;
  const { installed, offered, ran, newestRelease } = value as Record<string, unknown>;
  if (typeof installed !== 'string' || !BUILD_ID.test(installed)) return null;
  if (offered !== null && (typeof offered !== 'string' || !BUILD_ID.test(offered))) return null;
  const history =
    Array.isArray(ran) &&
    ran.length <= MAX_RAN_BUILDS &&
    ran.every((b) => typeof b === 'string' && BUILD_ID.test(b))
      ? ranWith(ran as string[], installed)
      : [installed];
  const release = typeof newestRelease === 'string' ? parseRelease({ version: newestRelease }) : null;
  return { installed, offered: offered === installed ? null : offered, ran: history, newestRelease: release };
}

/**
 * After a worker downloaded and checked its build `own` (release `release`): the first install serves it at
 * once (and the worker takes over without waiting); otherwise it is offered, and the installed build stays.
 */
export function afterInstall(
  previous: BuildState | null,
  own: string,
  release: string | null,
): { readonly state: BuildState; readonly takeOverNow: boolean } {
  if (previous === null)
    return {
      state: { installed: own, offered: null, ran: [own], newestRelease: release },
      takeOverNow: true,
    };
  if (previous.installed === own) return { state: { ...previous, offered: null }, takeOverNow: false };
  return { state: { ...previous, offered: own }, takeOverNow: false };
}

/**
 * The user accepted the offered build `own` (release `release`; only the worker whose build it is may apply it).
 * A downgrade (`isDowngrade`) is applied only when the page confirms the user chose it after the warning.
 */
export function afterAccept(
  previous: BuildState | null,
  own: string,
  release: string | null,
  confirmedDowngrade = false,
): BuildState | null {
  if (previous === null || previous.offered !== own) return null;
  if (isDowngrade(previous, own, release) && !confirmedDowngrade) return null;
  return {
    installed: own,
    offered: null,
    ran: ranWith(previous.ran, own),
    newestRelease: newest(previous.newestRelease, release),
  };
}

/** Caches to delete: other builds' and legacy ones; never the installed, the offered, or this worker's own. */
export function staleCaches(names: readonly string[], state: BuildState, own: string): string[] {
  const keep = new Set([BUILD_STATE_CACHE, BUILD_CACHE_PREFIX + state.installed, BUILD_CACHE_PREFIX + own]);
  if (state.offered !== null) keep.add(BUILD_CACHE_PREFIX + state.offered);
  return names.filter(
    (n) => !keep.has(n) && (n.startsWith(BUILD_CACHE_PREFIX) || n.startsWith(LEGACY_CACHE_PREFIX)),
  );
}

/** The service worker's script: not in the build it serves, but in the manifest the Burrow vouches for. */
export const SERVICE_WORKER_PATH = '/sw.js';

/**
 * What a same-origin GET is answered with: `null` = the network (the relay's API under /v1/, and `/sw.js`, which
 * the page fetches to compare with the Burrow's word, issue 24.7), otherwise the path of the installed build's
 * file to serve — index.html for every navigation (the app routes by path).
 */
export function servedPath(pathname: string, isNavigation: boolean): string | null {
  if (pathname === '/v1' || pathname.startsWith('/v1/')) return null;
  if (pathname === SERVICE_WORKER_PATH && !isNavigation) return null;
  return isNavigation ? '/index.html' : pathname;
}
