// The input gate (issue 16 item 7, R-BUILD-2): a Burrow gets keystrokes, pastes, replies, new sessions and
// kills only once it vouched for the build this page runs. The connection below is the UI's in-memory one
// (test-support); the guard and the gate are the real ones.
import type { BuildFile } from '@burrow/protocol';
import { describe, expect, it, vi } from 'vitest';
import { MemoryConnection } from '../test-support/memory-connection.js';
import { BuildGuard } from './build-guard.js';
import {
  guardConnection,
  MAX_HELD_INPUT,
  POCKET_BUILD_WAIT_MS,
  REFUSED_TEXT,
  REQUEST_CHECK_WAIT_MS,
  UNCHECKED_TEXT,
} from './guarded-connection.js';
import type { ServedBuild } from './served-build.js';

const FILES: BuildFile[] = [{ path: '/index.html', sha256: 'C'.repeat(43) }];
const SERVED: ServedBuild = { kind: 'served', buildId: 'f'.repeat(64), files: FILES };
const BURROW = 'AAAAAAAAAAAAAAAAAAAAAA';
const handlers = { onSnapshot() {}, onOutput() {} };

function setup(served: ServedBuild = SERVED) {
  const guard = new BuildGuard(async () => served);
  const inner = new MemoryConnection();
  const conn = guardConnection(inner, BURROW, guard);
  const link = conn.attach('s1', { cols: 80, rows: 24 }, handlers);
  const sent = () => inner.attached[0]!.sent;
  const vouch = async (files: readonly BuildFile[] | null) => {
    inner.emit({ type: 'pocket-build', files });
    await new Promise((r) => setTimeout(r, 0));
  };
  return { guard, inner, conn, link, sent, vouch };
}

describe('guardConnection', () => {
  it('sends nothing that acts on the computer before the Burrow vouched for this build', async () => {
    const { conn, link, sent, inner, vouch } = setup();
    link.input('rm -rf ~\r');
    link.reply(new Uint8Array([0x1b]));
    // Asked during the check: they wait for its verdict, and a build not vouched for refuses them.
    const create = expect(
      conn.create({ argv: null, cwd: null, name: null, cols: 80, rows: 24 }),
    ).rejects.toThrow(REFUSED_TEXT);
    const kill = expect(conn.kill('s1')).rejects.toThrow(REFUSED_TEXT);
    await vouch([{ path: '/index.html', sha256: 'D'.repeat(43) }]);
    await create;
    await kill;
    await expect(conn.create({ argv: null, cwd: null, name: null, cols: 80, rows: 24 })).rejects.toThrow(
      REFUSED_TEXT,
    );
    expect(sent()).toEqual([]);
    expect(inner.calls.filter((c) => c[0] === 'create' || c[0] === 'kill')).toEqual([]);
  });

  it('a new session asked for while the check is under way waits for it, and starts once vouched', async () => {
    const { conn, inner, vouch } = setup();
    let created = false;
    const create = conn.create({ argv: null, cwd: null, name: null, cols: 80, rows: 24 }).then(() => {
      created = true;
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(created).toBe(false);
    expect(inner.calls.filter((c) => c[0] === 'create')).toEqual([]);
    await vouch(FILES);
    await create;
    expect(inner.calls.filter((c) => c[0] === 'create')).toHaveLength(1);
  });

  it('a request whose check never ends is refused after REQUEST_CHECK_WAIT_MS, and says why', async () => {
    vi.useFakeTimers();
    try {
      const guard = new BuildGuard(async () => SERVED);
      const inner = new MemoryConnection();
      const conn = guardConnection(inner, BURROW, guard);
      const kill = conn.kill('s1');
      const outcome = kill.then(
        () => 'sent',
        (e: Error) => e.message,
      );
      await vi.advanceTimersByTimeAsync(REQUEST_CHECK_WAIT_MS);
      expect(await outcome).toBe(UNCHECKED_TEXT);
      expect(inner.calls.filter((c) => c[0] === 'kill')).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('once the served build is the vouched one, everything goes through', async () => {
    const { conn, link, sent, inner, vouch, guard } = setup();
    await vouch(FILES);
    expect(guard.verdict(BURROW)).toEqual({ kind: 'vouched', buildId: 'f'.repeat(64) });
    link.input('ls\r');
    link.reply(new Uint8Array([1]));
    await conn.create({ argv: null, cwd: null, name: null, cols: 80, rows: 24 });
    await conn.kill('s1');
    expect(sent()).toEqual([
      ['input', 'ls\r'],
      ['reply', new Uint8Array([1])],
    ]);
    expect(inner.calls.map((c) => c[0])).toEqual(expect.arrayContaining(['create', 'kill']));
  });

  it('typing while the check is under way is held and sent once vouched, in order; dropped if not', async () => {
    const { link, sent, vouch } = setup();
    link.input('echo ');
    link.reply(new Uint8Array([0x1b]));
    link.input('held\r');
    expect(sent()).toEqual([]);
    await vouch(FILES);
    link.input('after\r');
    expect(sent()).toEqual([
      ['input', 'echo '],
      ['reply', new Uint8Array([0x1b])],
      ['input', 'held\r'],
      ['input', 'after\r'],
    ]);
    const other = setup();
    other.link.input('x'.repeat(MAX_HELD_INPUT));
    other.link.input('over the bound');
    await other.vouch([{ path: '/index.html', sha256: 'D'.repeat(43) }]);
    other.link.input('y');
    expect(other.sent()).toEqual([]);
    const bounded = setup();
    bounded.link.input('x'.repeat(MAX_HELD_INPUT));
    bounded.link.input('over the bound');
    await bounded.vouch(FILES);
    expect(bounded.sent()).toEqual([['input', 'x'.repeat(MAX_HELD_INPUT)]]);
  });

  it('a build the Burrow does not vouch for — or none at all — keeps input refused', async () => {
    const { link, sent, vouch, guard } = setup();
    await vouch([{ path: '/index.html', sha256: 'D'.repeat(43) }]);
    expect(guard.verdict(BURROW)).toMatchObject({ kind: 'differs', changed: ['/index.html'] });
    link.input('x');
    await vouch(null);
    expect(guard.verdict(BURROW)).toEqual({ kind: 'none-vouched' });
    link.input('y');
    expect(sent()).toEqual([]);
  });

  it('reading and harmless requests pass whatever the verdict', async () => {
    const { conn, link, sent, inner } = setup();
    link.resize(100, 30);
    link.fit(90, 20);
    link.detach();
    conn.acknowledge('s1', false);
    conn.todo('s1', 'toggle');
    await conn.rename('s1', 'build');
    expect(sent()).toEqual([['resize', 100, 30], ['fit', 90, 20], ['detach']]);
    expect(inner.calls.map((c) => c[0])).toEqual(
      expect.arrayContaining(['attach', 'acknowledge', 'todo', 'rename']),
    );
  });

  it('without a service worker to check (development) every Burrow counts as vouched', () => {
    const guard = new BuildGuard(null);
    expect(guard.enforcing).toBe(false);
    const inner = new MemoryConnection();
    const link = guardConnection(inner, BURROW, guard).attach('s1', { cols: 80, rows: 24 }, handlers);
    link.input('ok');
    expect(inner.attached[0]!.sent).toEqual([['input', 'ok']]);
  });

  it('a page that cannot read what it serves refuses input and says why', async () => {
    const { guard, vouch, link, sent } = setup({ kind: 'unavailable', why: 'no service worker' });
    await vouch(FILES);
    expect(guard.verdict(BURROW)).toEqual({ kind: 'unverifiable', why: 'no service worker' });
    link.input('x');
    expect(sent()).toEqual([]);
  });

  it('a Burrow that sends no pocket-build after connecting counts as vouching for nothing (and says so)', async () => {
    vi.useFakeTimers();
    try {
      const guard = new BuildGuard(async () => SERVED);
      const inner = new MemoryConnection();
      guardConnection(inner, BURROW, guard);
      inner.setStatus({ kind: 'connected' }, 'connected');
      await vi.advanceTimersByTimeAsync(POCKET_BUILD_WAIT_MS - 1);
      expect(guard.verdict(BURROW)).toEqual({ kind: 'checking' });
      await vi.advanceTimersByTimeAsync(1);
      expect(guard.verdict(BURROW)).toEqual({ kind: 'none-vouched' });
      // One that does send it in time is judged by it, and the timer never fires.
      const other = new MemoryConnection();
      guardConnection(other, 'b2', guard);
      other.setStatus({ kind: 'connected' }, 'connected');
      other.emit({ type: 'pocket-build', files: FILES });
      await vi.advanceTimersByTimeAsync(POCKET_BUILD_WAIT_MS * 2);
      expect(guard.verdict('b2').kind).toBe('vouched');
    } finally {
      vi.useRealTimers();
    }
  });

  it('the served build is read once per page, however many Burrows report', async () => {
    let reads = 0;
    const guard = new BuildGuard(async () => {
      reads++;
      return SERVED;
    });
    await Promise.all([guard.report('b1', FILES), guard.report('b2', FILES), guard.report('b1', null)]);
    expect(reads).toBe(1);
    // The later report for b1 wins, whatever order the reads finish in.
    expect(guard.verdict('b1')).toEqual({ kind: 'none-vouched' });
    expect(guard.verdict('b2').kind).toBe('vouched');
  });
});
