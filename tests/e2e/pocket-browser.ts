/**
 * What every browser e2e file shares whichever engine it runs in: where Pocket's build and the screenshots
 * live, and building Pocket once. The phone itself is phone/phone.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
export const ARTIFACTS_DIR = join(ROOT, 'test-artifacts');
/** What the relay serves in the e2e tests: Pocket's production build. */
export const POCKET_DIST = join(ROOT, 'pocket-pwa', 'dist');
/** Everything Pocket's bundle is built from (it bundles protocol and crypto too). */
const POCKET_INPUTS = [
  'pocket-pwa/src',
  'pocket-pwa/public',
  'pocket-pwa/index.html',
  'pocket-pwa/vite.config.ts',
  'pocket-pwa/pocket-build-manifest.ts',
  'pocket-pwa/package.json',
  'pocket-pwa/scripts',
  'pocket-pwa/tsconfig.json',
  'protocol/src',
  'crypto/src',
  'package-lock.json',
].map((p) => join(ROOT, p));

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/**
 * Builds Pocket (production React; vitest's NODE_ENV=test would bundle
 * React's development build) unless dist/ is newer than every input — `npm test` has just built it, and each
 * e2e file would otherwise spend ~15 s rebuilding the same bundle.
 */
export function preparePocket(): void {
  const built = join(POCKET_DIST, 'index.html');
  const fresh = () =>
    existsSync(built) && statSync(built).mtimeMs > Math.max(...POCKET_INPUTS.map(newestMtime));
  if (fresh()) return;
  // Test files start two at a time, and Vite refuses a second build of the same project ("Found another Vite
  // build process"): the first to take the lock builds, the other waits and then finds dist/ fresh.
  const end = Date.now() + BUILD_LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > end)
        throw new Error(`${BUILD_LOCK} held for over ${BUILD_LOCK_WAIT_MS} ms: remove it if stale`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (!fresh()) buildPocket();
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

/** Held (a directory: mkdir is atomic) while one process builds Pocket. */
const BUILD_LOCK = join(ROOT, 'pocket-pwa', '.e2e-build-lock');
/** A build takes ~15 s alone, a minute under load. */
const BUILD_LOCK_WAIT_MS = 180_000;

function buildPocket(): void {
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const build = spawnSync(process.execPath, [vite, 'build'], {
    cwd: join(ROOT, 'pocket-pwa'),
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (build.status !== 0) throw new Error(`vite build failed:\n${build.stdout}\n${build.stderr}`);
}
