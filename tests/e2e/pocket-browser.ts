/**
 * What every browser e2e file shares whichever engine it runs in: where Pocket's build and the screenshots
 * live, and building Pocket once. The phone itself is phone/phone.ts.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { pocketIsFresh, withPocketBuildLock } from '../../scripts/dev/pocket-build.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
export const ARTIFACTS_DIR = join(ROOT, 'test-artifacts');
/** What the relay serves in the e2e tests: Pocket's production build. */
export const POCKET_DIST = join(ROOT, 'pocket-pwa', 'dist');
/**
 * Builds Pocket (production React; vitest's NODE_ENV=test would bundle React's development build) unless dist/
 * is newer than every input — `npm test` has just built it, and each e2e file would otherwise spend ~15 s
 * rebuilding the same bundle. Test files start two at a time and Vite refuses a second build of the same
 * project, so the build runs under the lock `npm start` uses too (scripts/dev/pocket-build.ts).
 */
export function preparePocket(): Promise<void> {
  if (pocketIsFresh(ROOT)) return Promise.resolve();
  return withPocketBuildLock(ROOT, buildPocket);
}

async function buildPocket(): Promise<void> {
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  try {
    await promisify(execFile)(process.execPath, [vite, 'build'], {
      cwd: join(ROOT, 'pocket-pwa'),
      env: { ...process.env, NODE_ENV: 'production' },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`vite build failed:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
  }
}
