/**
 * StorageHealth: errno codes to problems and words, what clears what (a full or read-only file system is
 * cleared by any later good write; a per-file failure only by that file), the first failure's time kept, and
 * the bound on tracked files.
 */
import { describe, expect, it } from 'vitest';
import { classifyWriteError, MAX_TRACKED_FAILURES, StorageHealth } from './storage-health.js';

const err = (code: string | undefined) => Object.assign(new Error(code ?? 'no code'), { code });
const DIR = '/var/burrow-state';

describe('StorageHealth', () => {
  it('classifies by errno code', () => {
    expect(classifyWriteError(err('ENOSPC'))).toEqual({ problem: 'full', code: 'ENOSPC' });
    expect(classifyWriteError(err('EDQUOT'))).toEqual({ problem: 'full', code: 'EDQUOT' });
    expect(classifyWriteError(err('EROFS'))).toEqual({ problem: 'read-only', code: 'EROFS' });
    expect(classifyWriteError(err('EACCES'))).toEqual({ problem: 'denied', code: 'EACCES' });
    expect(classifyWriteError(err('EPERM'))).toEqual({ problem: 'denied', code: 'EPERM' });
    expect(classifyWriteError(err('EIO'))).toEqual({ problem: 'io-error', code: 'EIO' });
    expect(classifyWriteError(err(undefined))).toEqual({ problem: 'io-error', code: 'EIO' });
  });

  it('is writable until told otherwise', () => {
    const h = new StorageHealth(DIR);
    expect(h.view()).toEqual({
      ok: true,
      problem: null,
      code: null,
      path: null,
      since: null,
      failingFiles: 0,
      text: 'writable',
      advice: null,
    });
  });

  it('says the disk is full, since the first failure, with what to do; any good write clears it', () => {
    const h = new StorageHealth(DIR);
    h.recordFailure(`${DIR}/sessions.json`, err('ENOSPC'), 1000);
    h.recordFailure(`${DIR}/sessions.json`, err('ENOSPC'), 5000);
    h.recordFailure(`${DIR}/attention.json`, err('ENOSPC'), 3000);
    const v = h.view();
    expect(v).toMatchObject({ ok: false, problem: 'full', code: 'ENOSPC', since: 1000, failingFiles: 2 });
    expect(v.path).toBe(`${DIR}/sessions.json`);
    expect(v.text).toContain(`the disk holding ${DIR} is full`);
    expect(v.advice).toContain(`df -h ${DIR}`);
    h.recordSuccess(`${DIR}/.storage-probe`);
    expect(h.view().ok).toBe(true);
  });

  it('says read-only with a remedy; cleared by a good write too', () => {
    const h = new StorageHealth(DIR);
    h.recordFailure(`${DIR}/burrow.json`, err('EROFS'), 7);
    expect(h.view()).toMatchObject({ ok: false, problem: 'read-only', since: 7 });
    expect(h.view().text).toContain('read-only file system');
    expect(h.view().advice).toContain('BURROW_STATE_DIR');
    h.recordSuccess(`${DIR}/other.json`);
    expect(h.view().ok).toBe(true);
  });

  it('a per-file failure clears only when that file is written', () => {
    const h = new StorageHealth(DIR);
    h.recordFailure(`${DIR}/a.json`, err('EACCES'), 1);
    h.recordSuccess(`${DIR}/b.json`);
    expect(h.view()).toMatchObject({ ok: false, problem: 'denied', path: `${DIR}/a.json` });
    expect(h.view().text).toContain('permission denied');
    h.recordSuccess(`${DIR}/a.json`);
    expect(h.view().ok).toBe(true);
  });

  it('tracks at most MAX_TRACKED_FAILURES files and keeps reporting the oldest', () => {
    const h = new StorageHealth(DIR);
    for (let i = 0; i < MAX_TRACKED_FAILURES * 3; i++) h.recordFailure(`${DIR}/f${i}`, err('EIO'), 100 + i);
    expect(h.view()).toMatchObject({ failingFiles: MAX_TRACKED_FAILURES, since: 100, path: `${DIR}/f0` });
  });

  it('refuses a missing state dir', () => {
    expect(() => new StorageHealth('')).toThrow(TypeError);
  });
});
