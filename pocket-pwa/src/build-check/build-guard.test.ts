import type { BuildFile } from '@burrow/protocol';
import { describe, expect, it } from 'vitest';
import { BuildGuard } from './build-guard.js';
import type { ServedBuild } from './served-build.js';

const file = (path: string, fill: string): BuildFile => ({ path, sha256: fill.repeat(43) });
const VOUCHED = [file('/index.html', 'a'), file('/sw.js', 'b')];

describe('BuildGuard.refresh (issue 24.7)', () => {
  it('judges every Burrow again when the relay’s sw.js changes under a running page', async () => {
    let sw = 'b';
    let reads = 0;
    const served = async (): Promise<ServedBuild> => {
      reads++;
      return {
        kind: 'served',
        buildId: `build-${sw}`,
        files: [file('/index.html', 'a'), file('/sw.js', sw)],
      };
    };
    const guard = new BuildGuard(served);
    await guard.report('burrow-1', VOUCHED);
    expect(guard.verdict('burrow-1').kind).toBe('vouched');
    // The browser found another worker: the page reads sw.js again and stops vouching.
    sw = 'c';
    const version = guard.getVersion();
    await guard.refresh();
    expect(reads).toBe(2);
    expect(guard.verdict('burrow-1')).toMatchObject({ kind: 'differs', changed: ['/sw.js'] });
    expect(guard.getVersion()).toBeGreaterThan(version);
    // A forgotten Burrow is not judged again.
    guard.forget('burrow-1');
    await guard.refresh();
    expect(guard.verdict('burrow-1').kind).toBe('checking');
  });
});
