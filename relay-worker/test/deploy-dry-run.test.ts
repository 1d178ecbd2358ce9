import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './harness.js';

const WRANGLER = join(REPO_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const POCKET_DIST = join(REPO_ROOT, 'pocket-pwa', 'dist');
const outDir = mkdtempSync(join(tmpdir(), 'burrow-dry-run-'));

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

// The README promises that `npx wrangler deploy` works from the repo root with the committed wrangler.toml;
// `--dry-run` runs the same config validation and bundling without an account.
describe('deploying the relay', () => {
  it('the committed wrangler.toml sets no development switch (RL-HTTP-3, RL-PUSH-6)', () => {
    const settings = readFileSync(join(REPO_ROOT, 'wrangler.toml'), 'utf8')
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'))
      .join('\n');
    // Open enrollment and loopback push are for `npm start` and the tests only, passed as `--var`.
    expect(settings).not.toMatch(/DEV_OPEN_ENROLLMENT|DEV_ALLOW_LOOPBACK_PUSH/);
    expect(settings).not.toMatch(/ENROLL_SECRET|VAPID_PRIVATE_KEY/);
  });

  it('`wrangler deploy --dry-run` succeeds with the committed wrangler.toml and the built Pocket', () => {
    // `npm run build` builds Pocket before the tests run; without it the deploy would fail for a reason
    // this test should name, not hide.
    expect(
      existsSync(join(POCKET_DIST, 'index.html')),
      'pocket-pwa/dist is missing: run `npm run build`',
    ).toBe(true);
    const run = spawnSync(process.execPath, [WRANGLER, 'deploy', '--dry-run', '--outdir', outDir], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
      timeout: 120_000,
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/--dry-run: exiting now/);
    expect(readdirSync(outDir).some((f) => f.endsWith('.js'))).toBe(true);
  });
});
