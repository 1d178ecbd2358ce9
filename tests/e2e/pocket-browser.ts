/**
 * Debian's Chromium as a phone for Pocket's end-to-end tests (DESIGN §8): playwright-core, a 390×844 viewport
 * at 3× with touch and a mobile user agent, a fresh profile per run (persistent, so the service worker
 * survives reloads). Never downloads a browser.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const PHONE = { width: 390, height: 844 };
const PHONE_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
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
 * Fails loudly without Chromium, and builds Pocket (production React; vitest's NODE_ENV=test would bundle
 * React's development build) unless dist/ is newer than every input — `npm test` has just built it, and each
 * e2e file would otherwise spend ~15 s rebuilding the same bundle.
 */
export function preparePocket(): void {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium package`);
  const built = join(POCKET_DIST, 'index.html');
  if (existsSync(built) && statSync(built).mtimeMs > Math.max(...POCKET_INPUTS.map(newestMtime))) return;
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const build = spawnSync(process.execPath, [vite, 'build'], {
    cwd: join(ROOT, 'pocket-pwa'),
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (build.status !== 0) throw new Error(`vite build failed:\n${build.stdout}\n${build.stderr}`);
}

export async function launchPhone(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'pocket-e2e-'));
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: PHONE,
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true,
    userAgent: PHONE_UA,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
