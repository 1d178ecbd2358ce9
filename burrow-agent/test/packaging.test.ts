/**
 * The installable package's parts (burrow-agent/packaging/): the derived package.json refuses what would make
 * the package install something other than what the tests ran, and the bundles keep every module's URL.
 * The whole pack → install → run path is tests/integration/package-install.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleAgent, packageNameOf } from '../packaging/bundle.js';
import { PACKAGE_NAME, packageManifest, pinnedDependencies } from '../packaging/package-manifest.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the package manifest', () => {
  it('takes each dependency at the one exact version the workspace pins', () => {
    expect(
      pinnedDependencies({
        a: { dependencies: { ws: '8.23.0', '@burrow/protocol': '*' } },
        b: { dependencies: { ws: '8.23.0', valibot: '1.5.0-rc.1' } },
      }),
    ).toEqual(
      new Map([
        ['ws', '8.23.0'],
        ['valibot', '1.5.0-rc.1'],
      ]),
    );
    expect(() => pinnedDependencies({ a: { dependencies: { ws: '^8.0.0' } } })).toThrow(
      /a\/package.json pins ws as "\^8.0.0"/,
    );
    expect(() =>
      pinnedDependencies({ a: { dependencies: { ws: '8.23.0' } }, b: { dependencies: { ws: '8.18.0' } } }),
    ).toThrow(/ws is 8.23.0 in a but 8.18.0 in b/);
  });

  it('declares what the bundles import plus node-pty, refuses an import no workspace declares', () => {
    const pkg = packageManifest({ imports: new Set(['ws', '@noble/hashes']) });
    expect(pkg).toMatchObject({
      name: PACKAGE_NAME,
      bin: { burrow: 'bin/burrow.js' },
      dependencies: { '@noble/hashes': '2.4.0', 'node-pty': '1.1.0', ws: '8.23.0' },
    });
    expect(Object.keys(pkg.dependencies as object)).toHaveLength(3);
    expect(pkg.private).toBeUndefined();
    expect(() => packageManifest({ imports: new Set(['left-pad']) })).toThrow(
      /imports left-pad, but none of burrow-agent, protocol, crypto declares it/,
    );
    expect(packageManifest({ imports: new Set(), version: '0.2.0-rc.1' }).version).toBe('0.2.0-rc.1');
    expect(() => packageManifest({ imports: new Set(), version: 'latest' })).toThrow(/not a version/);
  });

  it('names packages from specifiers', () => {
    expect(packageNameOf('@noble/hashes/blake2.js')).toBe('@noble/hashes');
    expect(packageNameOf('node-pty/lib/utils.js')).toBe('node-pty');
    expect(packageNameOf('ws')).toBe('ws');
  });
});

describe('the bundles', () => {
  it('bundle the workspace packages, import only third-party ones, and keep each module its own URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-bundle-'));
    dirs.push(dir);
    const r = await bundleAgent(dir);
    expect(r.files).toEqual(['dist/cli/main.js', 'dist/screen/screen-worker.js']);
    expect([...r.imports].sort()).toEqual([
      '@decimalturn/toml-patch',
      '@noble/ciphers',
      '@noble/curves',
      '@noble/hashes',
      '@xterm/addon-unicode11',
      '@xterm/headless',
      'jsonc-parser',
      // The direct path's WebRTC (burrow-agent/src/direct/ndc-peer.ts): loaded on demand, prebuilt per platform.
      'node-datachannel',
      'qrcode',
      'semver',
      'valibot',
      'ws',
    ]);
    const main = readFileSync(join(dir, 'dist', 'cli', 'main.js'), 'utf8');
    expect(main).not.toMatch(/from ["']@burrow\//);
    // Each module sees the URL its tsc output has: the worker beside worker-screen-host, package.json two up.
    expect(main).toContain(
      'new URL("./screen-worker.js", new URL("../screen/worker-screen-host.js", import.meta.url).href)',
    );
    expect(main).toContain('new URL("../program/program.js", import.meta.url).href');
    expect(main.replaceAll(/new URL\("[^"]+", import\.meta\.url\)/g, '')).not.toContain('import.meta.url');
  }, 30_000);
});
