/// <reference lib="webworker" />
/**
 * The service worker's side of "serve only the installed build" (issue 16 item 7; decisions in
 * store/build-state.ts): learn this worker's own build from the precache list the build injected, download it
 * into its own cache checking every file's SHA-256, and answer requests from the installed build's cache only.
 *
 * Hand-written rather than Workbox precaching: Workbox serves whatever the newest activated worker cached, and
 * a worker activates by itself once every Pocket window is closed. Here the state record decides what is
 * served, so an update takes effect only when the user accepts it.
 */
import { type BuildFile, encodeBase64url, isBuildPath, sortBuildFiles } from '@burrow/protocol';
import { buildIdOf, readBuildState, sha256 } from '../store/build-cache.js';
import { buildCacheName } from '../store/build-state.js';

/** One precache entry as vite-plugin-pwa injects it; `integrity` is the file's SHA-256 (pocket-build-manifest.ts). */
export interface PrecacheEntry {
  readonly url: string;
  readonly revision?: string | null;
  readonly integrity?: string;
}

export interface OwnBuild {
  readonly id: string;
  readonly files: readonly BuildFile[];
}

const SRI_SHA256 = /^sha256-([A-Za-z0-9+/]{43}=)$/;

/**
 * This worker's build: every precached path with the SHA-256 the build wrote next to it. vite-plugin-pwa
 * appends the web manifest (and would append icons) once more after the build's transform, without a hash:
 * such an entry is the same file as the hashed one and adds nothing. A path with no hashed entry at all means
 * a broken build: TypeError.
 */
export async function ownBuild(entries: readonly PrecacheEntry[], base: string): Promise<OwnBuild> {
  const hashes = new Map<string, string>();
  const paths = new Set<string>();
  for (const entry of entries) {
    const path = new URL(entry.url, base).pathname;
    if (!isBuildPath(path)) throw new TypeError(`precache entry ${path} is not a build path`);
    paths.add(path);
    const sri = SRI_SHA256.exec(entry.integrity ?? '');
    if (!sri) continue;
    const sha256 = encodeBase64url(Uint8Array.from(atob(sri[1]!), (c) => c.charCodeAt(0)));
    if ((hashes.get(path) ?? sha256) !== sha256) throw new TypeError(`precache entry ${path} has two hashes`);
    hashes.set(path, sha256);
  }
  for (const path of paths) {
    if (!hashes.has(path)) throw new TypeError(`precache entry ${path} carries no sha256 integrity`);
  }
  const files = sortBuildFiles([...hashes].map(([path, sha256]) => ({ path, sha256 })));
  return { id: await buildIdOf(files), files };
}

/** Response headers that describe the transfer, not the body we store (already decoded, of known length). */
const TRANSFER_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding'];

/**
 * Fills the build's cache from the relay. Every body must hash to what this worker's build says, else the
 * install fails (the browser then keeps the worker it had): an honest worker never installs files the relay
 * changed. Files already cached with the right hash are kept (an interrupted install resumes).
 */
export async function downloadBuild(build: OwnBuild): Promise<void> {
  const cache = await caches.open(buildCacheName(build.id));
  await Promise.all(
    build.files.map(async (file) => {
      const cached = await cache.match(file.path);
      if (cached && encodeBase64url(await sha256(await cached.arrayBuffer())) === file.sha256) return;
      // Redirects are followed: the relay's static assets answer /index.html with a redirect to /. What counts
      // is the body, checked below, and the fresh Response stored (a redirected one cannot answer navigations).
      const response = await fetch(file.path, { cache: 'reload', credentials: 'same-origin' });
      if (!response.ok) throw new Error(`${file.path}: HTTP ${response.status}`);
      const body = await response.arrayBuffer();
      if (encodeBase64url(await sha256(body)) !== file.sha256) {
        throw new Error(`${file.path} is not the file this build was made with`);
      }
      const headers = new Headers(response.headers);
      for (const name of TRANSFER_HEADERS) headers.delete(name);
      await cache.put(file.path, new Response(body, { status: 200, headers }));
    }),
  );
}

/**
 * The installed build's file at `path`, or a 404 when the build has no such file — never the network: what
 * the relay serves now is not what the user installed. Null only when nothing is installed yet.
 */
export async function serveInstalled(path: string): Promise<Response | null> {
  const state = await readBuildState();
  if (state === null) return null;
  const response = await (await caches.open(buildCacheName(state.installed))).match(path);
  return (
    response ??
    new Response('Not part of the installed Pocket build.', {
      status: 404,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    })
  );
}
