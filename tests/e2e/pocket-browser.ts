/**
 * What every browser e2e file shares whichever engine it runs in: where Pocket's build and the screenshots
 * live, building Pocket once, and the report of a failed test. The phone itself is phone/phone.ts.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach } from 'vitest';
import { pocketIsFresh, withPocketBuildLock } from '../../scripts/dev/pocket-build.js';
import type { Phone } from './phone/phone.js';

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

/**
 * After each failed test of the file: the phone's screenshot (named `<prefix>-<test>`) and page log, then
 * `context()` (the daemon's log tail, say) — enough to see why without running it again.
 */
export function reportFailures(prefix: string, phone: () => Phone | undefined, context = () => ''): void {
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail') return;
    const p = phone();
    const report = p ? await p.reportFailure(`${prefix}-${ctx.task.name}`) : 'no phone';
    const more = context();
    console.error(more ? `${report}\n${more}` : report);
  });
}
