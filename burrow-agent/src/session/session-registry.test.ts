/**
 * SessionRegistry's list-change hook (what the daemon's session roster listens to) and restored entries that
 * carry how they had ended: exit code or signal means "ended before the daemon went", neither means "died
 * with it".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LIST_LISTENERS, SessionRegistry } from './session-registry.js';

const registries: SessionRegistry[] = [];
afterEach(async () => {
  for (const r of registries.splice(0)) await r.killAll();
});
function registry(): SessionRegistry {
  const r = new SessionRegistry({
    now: Date.now,
    env: {},
    defaultShell: '/bin/sh',
    log: () => {},
    integrationDir: null,
  });
  registries.push(r);
  return r;
}
const entry = { name: 'x', command: ['/bin/sh'], cwd: '/', createdAt: 1 };

describe('SessionRegistry.onListChange', () => {
  it('fires on create, rename, exit, restore and remove; not after unsubscribe', async () => {
    const r = registry();
    let n = 0;
    const off = r.onListChange(() => n++);
    const s = r.create({ cwd: '/', command: ['/bin/sh', '-c', 'exit 0'] });
    expect(n).toBe(1);
    r.rename(s.id, 'renamed');
    expect(n).toBe(2);
    const t0 = Date.now();
    while (s.info().status !== 'exited' && Date.now() - t0 < 5000)
      await new Promise((res) => setTimeout(res, 20));
    expect(n).toBe(3);
    r.restoreExited({ ...entry, id: 'mnpqrstu' });
    expect(n).toBe(4);
    await r.kill('mnpqrstu');
    await r.kill(s.id);
    expect(n).toBe(6);
    off();
    r.restoreExited({ ...entry, id: 'mnpqrstv' });
    expect(n).toBe(6);
  });

  it('a listener that throws is logged, not thrown; listeners are bounded', () => {
    const r = registry();
    r.onListChange(() => {
      throw new Error('bug');
    });
    expect(() => r.restoreExited({ ...entry, id: 'mnpqrstu' })).not.toThrow();
    for (let i = 1; i < MAX_LIST_LISTENERS; i++) r.onListChange(() => {});
    expect(() => r.onListChange(() => {})).toThrow(RangeError);
  });
});

describe('restoreExited with how it ended', () => {
  it('an exit code or signal is "had ended", neither is "died with the daemon"', () => {
    const r = registry();
    expect(r.restoreExited({ ...entry, id: 'mnpqrstu', name: 'a' })).toMatchObject({
      exitCode: null,
      signal: null,
      diedWithDaemon: true,
    });
    expect(r.restoreExited({ ...entry, id: 'mnpqrstv', name: 'b', exitCode: 2 })).toMatchObject({
      exitCode: 2,
      diedWithDaemon: false,
    });
    expect(r.restoreExited({ ...entry, id: 'mnpqrstw', name: 'c', signal: 9 })).toMatchObject({
      signal: 9,
      diedWithDaemon: false,
    });
    expect(() => r.get('a')).toThrow(/died with the previous daemon/);
    expect(() => r.get('b')).toThrow(/had ended before the previous daemon/);
    // A non-integer code from a damaged file is no code.
    expect(r.restoreExited({ ...entry, id: 'mnpqrstx', name: 'd', exitCode: 1.5 })).toMatchObject({
      exitCode: null,
      diedWithDaemon: true,
    });
  });
});
