// The Pocket build a Burrow vouches for, and how it reaches Pocket (issue 16 item 7). [SPEC: R-BUILD-1, R-B-BUILD-1]
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BuildFile,
  type BurrowMessage,
  encodeClientMessage,
  encodePocketBuildManifest,
  type ViewerKind,
} from '@burrow/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { apiConnectionRig, disposeRigs } from '../../test/api-connection-rig.js';
import { buildIdOf, defaultManifestPath, describeVouchedBuild, loadVouchedBuild } from './vouched-build.js';

const FILES: BuildFile[] = [
  { path: '/assets/index-a1.js', sha256: 'WdpCGgKAK7Uzld5d0S_xBwZXtpEzRvxowAXGiv5Kwj4' },
  { path: '/index.html', sha256: '6zTpyH-JTqRwosGFL0aPz6An_D_zNPNcvJm5XFGxjbg' },
];

const dir = mkdtempSync(join(tmpdir(), 'burrow-vouched-'));
function manifestFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('loadVouchedBuild (R-BUILD-1)', () => {
  it('reads the manifest Pocket’s build wrote, with its build id (R-BUILD-3)', () => {
    const build = loadVouchedBuild(manifestFile('ok.json', encodePocketBuildManifest(FILES)));
    expect(build).toEqual({ kind: 'build', files: FILES, buildId: buildIdOf(FILES) });
    expect(buildIdOf(FILES)).toMatch(/^[0-9a-f]{64}$/);
    expect(describeVouchedBuild(build)).toBe(
      `vouching for Pocket build ${buildIdOf(FILES).slice(0, 8)} (2 files)`,
    );
  });

  it('a missing or malformed manifest vouches for nothing, and says why and what to do', () => {
    const missing = loadVouchedBuild(join(dir, 'absent.json'));
    expect(missing).toMatchObject({ kind: 'none' });
    expect(describeVouchedBuild(missing)).toMatch(/ENOENT.*npm run build -w pocket-pwa.*phones will warn/);
    const unsorted = `{"version":1,"files":${JSON.stringify([...FILES].reverse())}}`;
    expect(loadVouchedBuild(manifestFile('bad.json', unsorted))).toMatchObject({
      kind: 'none',
      why: expect.stringContaining('R-BUILD-1'),
    });
    expect(loadVouchedBuild(null)).toMatchObject({ kind: 'none' });
  });

  it('by default it is the manifest of the Pocket package installed with this Burrow', () => {
    expect(defaultManifestPath()).toMatch(/pocket-pwa\/dist\/pocket-build\.json$/);
  });
});

describe('pocket-build on a connection (R-B-BUILD-1)', () => {
  afterEach(disposeRigs);

  function helloFrom(viewer: ViewerKind, pocketBuild?: readonly BuildFile[] | null): BurrowMessage[] {
    const { api, sent } = apiConnectionRig(pocketBuild === undefined ? {} : { pocketBuild });
    api.receive(encodeClientMessage({ type: 'hello', appVersion: 't', viewer, cols: 80, rows: 24 }));
    api.dispose();
    return sent;
  }

  it('R-B-BUILD-1 a pocket viewer gets the vouched files right after directory', () => {
    const sent = helloFrom('pocket', FILES);
    expect(sent.map((m) => m.type)).toEqual(['hello', 'directory', 'pocket-build']);
    expect(sent[2]).toEqual({ type: 'pocket-build', files: FILES });
  });

  it('R-B-BUILD-1 without a manifest it says null, so Pocket warns instead of trusting', () => {
    expect(helloFrom('pocket', null)[2]).toEqual({ type: 'pocket-build', files: null });
    expect(helloFrom('pocket')[2]).toEqual({ type: 'pocket-build', files: null });
  });

  it('R-B-BUILD-1 other viewers never get it', () => {
    expect(helloFrom('test', FILES).map((m) => m.type)).toEqual(['hello', 'directory']);
    expect(helloFrom('cli', FILES).map((m) => m.type)).toEqual(['hello', 'directory']);
  });
});
