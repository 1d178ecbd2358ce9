/**
 * Whether Pocket's build (pocket-pwa/dist, which the development relay serves) is newer than everything it is
 * built from, so a second `npm start` does not spend its time rebuilding the same bundle; the e2e tests
 * (tests/e2e/pocket-browser.ts) use the same check and the same lock, so an `npm start` and an e2e file never
 * run two Vite builds of the project at once (Vite refuses the second).
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const INPUTS = [
  'pocket-pwa/src',
  'pocket-pwa/public',
  'pocket-pwa/index.html',
  'pocket-pwa/vite.config.ts',
  'pocket-pwa/package.json',
  'pocket-pwa/scripts',
  'pocket-pwa/tsconfig.json',
  'protocol/src',
  'crypto/src',
  'package-lock.json',
];
/** Held (a directory: mkdir is atomic) while one process builds Pocket; shared with the e2e tests. */
const LOCK = join('pocket-pwa', '.e2e-build-lock');
/** How long to wait for another build to finish (a build takes ~15 s alone, a minute under load). */
const LOCK_WAIT_MS = 180_000;
const LOCK_POLL_MS = 200;

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export function pocketIsFresh(root: string): boolean {
  const built = join(root, 'pocket-pwa', 'dist', 'index.html');
  return (
    existsSync(built) && statSync(built).mtimeMs > Math.max(...INPUTS.map((p) => newestMtime(join(root, p))))
  );
}

/** Runs `build` under the shared lock unless, once the lock is held, the build turns out fresh already. */
export async function withPocketBuildLock(root: string, build: () => Promise<void>): Promise<void> {
  const lock = join(root, LOCK);
  const end = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > end) throw new Error(`${lock} held for over ${LOCK_WAIT_MS} ms: remove it if stale`);
      await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
    }
  }
  try {
    if (!pocketIsFresh(root)) await build();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
