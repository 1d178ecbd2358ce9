/**
 * A relay operator who ships their own Pocket (issue 16 item 7): the e2e relay serves a copy of Pocket's build
 * from a folder of its own, and `shipModifiedBuild` rewrites files there the way a careful attacker would —
 * including the SHA-256 list inside `sw.js`, so the service worker's own download check passes and only the
 * Burrow's word can tell the build apart. `wrangler dev` serves changed assets without a restart.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './pocket-screens.js';

/** A copy of Pocket's build for one relay to serve (and an attacker to edit). */
export function copyOfBuild(dist: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-relay-assets-'));
  cpSync(dist, dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The lazily loaded terminal chunk's URL path (`/assets/TerminalScreen-….js`). */
export function terminalChunk(dir: string): string {
  const name = readdirSync(join(dir, 'assets')).find((f) => /^TerminalScreen-.*\.js$/.test(f));
  if (name === undefined) throw new Error(`no terminal chunk in ${dir}/assets`);
  return `/assets/${name}`;
}

const sri = (bytes: Buffer | string) => `sha256-${createHash('sha256').update(bytes).digest('base64')}`;

/**
 * Rewrites `edits` (URL path → new text from old) in the relay's folder and the matching hashes in `sw.js`
 * (written last, so the browser's next update check finds a complete build), then waits until the relay
 * serves the new `sw.js`.
 */
export async function shipModifiedBuild(
  dir: string,
  relayUrl: string,
  edits: Readonly<Record<string, (text: string) => string>>,
): Promise<void> {
  let sw = readFileSync(join(dir, 'sw.js'), 'utf8');
  for (const [path, edit] of Object.entries(edits)) {
    const file = join(dir, path);
    const before = readFileSync(file, 'utf8');
    const after = edit(before);
    if (after === before) throw new Error(`the edit of ${path} changed nothing`);
    if (!sw.includes(sri(before))) throw new Error(`sw.js does not list ${path}'s hash`);
    sw = sw.replaceAll(sri(before), sri(after));
    writeFileSync(file, after);
  }
  writeFileSync(join(dir, 'sw.js'), sw);
  await until(
    async () => (await (await fetch(`${relayUrl}/sw.js`)).text()) === sw,
    'the relay to serve the modified sw.js',
    30_000,
  );
}

/** Writes `sw.js` last (the browser's next update check then finds a complete build) and waits until it is served. */
async function shipServiceWorker(dir: string, relayUrl: string, sw: string): Promise<void> {
  writeFileSync(join(dir, 'sw.js'), sw);
  await until(
    async () => (await (await fetch(`${relayUrl}/sw.js`)).text()) === sw,
    'the relay to serve the new sw.js',
    30_000,
  );
}

/** The relay serves `original`'s build again, every file as it was (issue 24.6: an older build shipped back). */
export async function shipOriginalBuild(dir: string, relayUrl: string, original: string): Promise<void> {
  for (const name of readdirSync(original, { recursive: true, withFileTypes: true })) {
    if (!name.isFile() || name.name === 'sw.js') continue;
    const rel = join(name.parentPath, name.name).slice(original.length);
    writeFileSync(join(dir, rel), readFileSync(join(original, rel)));
  }
  await shipServiceWorker(dir, relayUrl, readFileSync(join(original, 'sw.js'), 'utf8'));
}

/**
 * A hostile `sw.js` (issue 24.7): it takes over at once (`skipWaiting`, `clients.claim`), passes every request
 * to the relay, and notes when its code first ran, was activated and controlled pages (the cache
 * `hostile-worker`, key `/ran`), so a test can tell whether the page noticed it before it took over.
 */
export const HOSTILE_SERVICE_WORKER = `
const ranAt = Date.now();
const note = async (what) => {
  const cache = await caches.open('hostile-worker');
  const before = await cache.match('/ran');
  const marks = before ? await before.json() : { ranAt };
  marks[what] = Date.now();
  await cache.put('/ran', new Response(JSON.stringify(marks)));
};
self.addEventListener('install', (event) => { event.waitUntil(note('installedAt').then(() => self.skipWaiting())); });
self.addEventListener('activate', (event) => { event.waitUntil(self.clients.claim().then(() => note('claimedAt'))); });
self.addEventListener('fetch', (event) => { event.respondWith(fetch(event.request)); });
`;

/** The relay serves HOSTILE_SERVICE_WORKER as `sw.js`; every other file stays as it is. */
export function shipHostileServiceWorker(dir: string, relayUrl: string): Promise<void> {
  return shipServiceWorker(dir, relayUrl, HOSTILE_SERVICE_WORKER);
}
