/**
 * startStorageWatch on a real directory: a failing write anywhere in the state dir shows at once, the probe
 * then runs at the fast period and clears the status as soon as the directory is writable again; transitions
 * are logged once; writes outside the state dir are not its business.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../state/atomic-file.js';
import { STORAGE_PROBE_FAILING_MS, type StorageWatch, startStorageWatch } from './storage-watch.js';

const watches: StorageWatch[] = [];
afterEach(() => {
  for (const w of watches.splice(0)) w.stop();
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('startStorageWatch', () => {
  it('reports a failure at once and clears within the fast probe period once writable', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'burrow-watch-')), 'state');
    mkdirSync(dir, { mode: 0o700 });
    const logs: string[] = [];
    const w = startStorageWatch({ stateDir: dir, now: () => 42, log: (l, m) => logs.push(`${l}: ${m}`) });
    watches.push(w);
    expect(w.view().ok).toBe(true);
    expect(readdirSync(dir)).toEqual([]); // the probe leaves nothing behind
    rmSync(dir, { recursive: true });
    expect(() => writeFileAtomic(join(dir, 'sessions.json'), '{}')).toThrow();
    expect(w.view()).toMatchObject({ ok: false, problem: 'io-error', code: 'ENOENT', since: 42 });
    w.probe();
    expect(logs.filter((l) => l.startsWith('error:'))).toHaveLength(1);
    mkdirSync(dir, { mode: 0o700 });
    const t0 = Date.now();
    // ENOENT is per file: the probe clears its own entry, the failed file clears when written again.
    writeFileAtomic(join(dir, 'sessions.json'), '{}');
    while (!w.view().ok && Date.now() - t0 < STORAGE_PROBE_FAILING_MS * 3) await sleep(50);
    expect(w.view().ok).toBe(true);
    expect(logs.at(-1)).toBe('info: state directory: writable');
  });

  it('ignores writes outside its state directory', () => {
    const base = mkdtempSync(join(tmpdir(), 'burrow-watch-'));
    const dir = join(base, 'state');
    mkdirSync(dir, { mode: 0o700 });
    const w = startStorageWatch({ stateDir: dir, now: Date.now, log: () => {} });
    watches.push(w);
    expect(() => writeFileAtomic(join(base, 'elsewhere', 'x'), '{}')).toThrow();
    expect(w.view().ok).toBe(true);
  });
});
