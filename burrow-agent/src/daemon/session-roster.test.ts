/**
 * SessionRoster: the daemon remembers its sessions in sessions.json (bounded, debounced) and lists them after
 * a restart as died-with-the-daemon — or exited with their code if they had ended before — until cleared;
 * a write that fails is retried until it lands; the registry's list-change hook drives it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../session/session.js';
import { SessionRegistry } from '../session/session-registry.js';
import { MAX_STATE_FILE_BYTES, StateFileError } from '../state/atomic-file.js';
import {
  MAX_REMEMBERED_COMMAND_CHARS,
  MAX_REMEMBERED_SESSIONS,
  ROSTER_DEBOUNCE_MS,
  ROSTER_FILE_NAME,
  ROSTER_RETRY_MS,
  rememberedOf,
  rosterOf,
  SessionRoster,
} from './session-roster.js';

const registries: SessionRegistry[] = [];
const logs: string[] = [];
const log = (_l: string, m: string) => void logs.push(m);
afterEach(async () => {
  for (const r of registries.splice(0)) await r.killAll();
});

function registry(): SessionRegistry {
  const r = new SessionRegistry({
    now: Date.now,
    env: {},
    defaultShell: '/bin/sh',
    log,
    integrationDir: null,
  });
  registries.push(r);
  return r;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor(cond: () => boolean, ms: number, what: string) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await sleep(20);
  }
}
const stateDir = () => {
  const d = join(mkdtempSync(join(tmpdir(), 'burrow-roster-')), 'state');
  mkdirSync(d, { mode: 0o700 });
  return d;
};
const fileOf = (dir: string) => join(dir, ROSTER_FILE_NAME);
const saved = (dir: string) => JSON.parse(readFileSync(fileOf(dir), 'utf8')).sessions as { id: string }[];

const info = (i: number, over: Partial<SessionInfo> = {}): SessionInfo => ({
  id: `id-${i}`, // rosterOf is pure: ids are only checked when the file is read back
  name: `s${i}`,
  command: ['/bin/sh'],
  cwd: '/',
  pid: 1,
  createdAt: 1000 + i,
  status: 'running',
  exitCode: null,
  signal: null,
  cols: 80,
  rows: 24,
  viewers: 0,
  offset: 0,
  lastOutputAt: null,
  ...over,
});

describe('rememberedOf / rosterOf (pure)', () => {
  it('keeps identity only; an exit code only for a session that had ended on its own', () => {
    expect(rememberedOf(info(1))).toEqual({
      id: 'id-1',
      name: 's1',
      command: ['/bin/sh'],
      cwd: '/',
      createdAt: 1001,
      exitCode: null,
      signal: null,
    });
    expect(rememberedOf(info(1, { status: 'exited', exitCode: 3 }))).toMatchObject({ exitCode: 3 });
    expect(rememberedOf(info(1, { status: 'exited', diedWithDaemon: true }))).toMatchObject({
      exitCode: null,
      signal: null,
    });
  });

  it('bounds the command line and keeps only the newest MAX_REMEMBERED_SESSIONS', () => {
    const long = rememberedOf(info(1, { command: ['x'.repeat(5000), 'y'.repeat(5000)] }));
    expect(long.command.join('').length).toBeLessThanOrEqual(MAX_REMEMBERED_COMMAND_CHARS);
    const many = Array.from({ length: MAX_REMEMBERED_SESSIONS + 10 }, (_, i) => info(i));
    const kept = rosterOf(many.reverse());
    // Worst case for the file: every field at its bound, every character a \u escape.
    const ugly = '\u0001';
    const worst = many.map((e) => ({
      ...e,
      name: ugly.repeat(256),
      command: [ugly.repeat(MAX_REMEMBERED_COMMAND_CHARS)],
      cwd: ugly.repeat(4096),
    }));
    const bytes = Buffer.byteLength(JSON.stringify({ version: 1, sessions: rosterOf(worst) }, null, 2));
    expect(rosterOf(worst)).toHaveLength(MAX_REMEMBERED_SESSIONS);
    expect(bytes).toBeLessThanOrEqual(MAX_STATE_FILE_BYTES);
    expect(kept).toHaveLength(MAX_REMEMBERED_SESSIONS);
    expect(kept[0]!.createdAt).toBe(1010); // the ten oldest went
    expect(kept.at(-1)!.createdAt).toBe(1000 + MAX_REMEMBERED_SESSIONS + 9);
  });
});

describe('SessionRoster', () => {
  it('remembers a live session, and the next daemon lists it as died with the daemon until cleared', async () => {
    const dir = stateDir();
    const first = registry();
    const roster = new SessionRoster(dir, first, log);
    expect(roster.restore()).toBe(0);
    const s = first.create({ name: 'build', cwd: '/', command: ['/bin/sh', '-c', 'sleep 30'] });
    await waitFor(
      () => existsSync(fileOf(dir)) && saved(dir).length === 1,
      ROSTER_DEBOUNCE_MS * 10,
      'the write',
    );
    first.rename(s.id, 'build-2');
    await waitFor(
      () => readFileSync(fileOf(dir), 'utf8').includes('build-2'),
      ROSTER_DEBOUNCE_MS * 10,
      'rename',
    );
    // A crash: nothing flushed, the PTY is gone. The next daemon:
    roster.dispose();
    const second = registry();
    const back = new SessionRoster(dir, second, log);
    expect(back.restore()).toBe(1);
    expect(second.list()).toMatchObject([
      { id: s.id, name: 'build-2', status: 'exited', diedWithDaemon: true, exitCode: null, signal: null },
    ]);
    expect(() => second.get(s.id)).toThrow(/died with the previous daemon/);
    // Cleared by the owner: gone from the list and, soon, from the file.
    await second.kill(s.id);
    await waitFor(() => saved(dir).length === 0, ROSTER_DEBOUNCE_MS * 10, 'the file to forget it');
    back.close();
  });

  it('an orderly stop freezes the list before the PTYs end; a session that had exited keeps its code', async () => {
    const dir = stateDir();
    const first = registry();
    const roster = new SessionRoster(dir, first, log);
    roster.restore();
    const done = first.create({ name: 'done', cwd: '/', command: ['/bin/sh', '-c', 'exit 3'] });
    const live = first.create({ name: 'live', cwd: '/', command: ['/bin/sh', '-c', 'sleep 30'] });
    await waitFor(() => done.info().status === 'exited', 5000, 'the exit');
    roster.close();
    await first.killAll();
    expect(
      saved(dir)
        .map((e) => e.id)
        .sort(),
    ).toEqual([done.id, live.id].sort());
    const second = registry();
    new SessionRoster(dir, second, log).restore();
    const byName = new Map(second.list().map((e) => [e.name, e]));
    expect(byName.get('done')).toMatchObject({ status: 'exited', exitCode: 3, diedWithDaemon: false });
    expect(byName.get('live')).toMatchObject({ status: 'exited', exitCode: null, diedWithDaemon: true });
    expect(() => second.get('done')).toThrow(/had ended before the previous daemon/);
  });

  it('does not list twice what the attention host already brought back', () => {
    const dir = stateDir();
    const r = registry();
    const entry = {
      id: 'mnpqrstu',
      name: 'todo',
      command: ['/bin/sh'],
      cwd: '/',
      createdAt: 5,
      exitCode: null,
      signal: null,
    };
    writeFileSync(fileOf(dir), JSON.stringify({ version: 1, sessions: [entry] }), { mode: 0o600 });
    r.restoreExited(entry);
    expect(new SessionRoster(dir, r, log).restore()).toBe(0);
    expect(r.list()).toHaveLength(1);
  });

  it('fails closed on a file it cannot trust', () => {
    const dir = stateDir();
    writeFileSync(fileOf(dir), '{"version":1,"sessions":[{"id":"../../etc"}]}', { mode: 0o600 });
    expect(() => new SessionRoster(dir, registry(), log).restore()).toThrow(StateFileError);
    writeFileSync(fileOf(dir), 'not json', { mode: 0o600 });
    expect(() => new SessionRoster(dir, registry(), log).restore()).toThrow(StateFileError);
  });

  it('reads random and mutated files as a roster or a StateFileError, never anything else', () => {
    const dir = stateDir();
    const valid = JSON.stringify({
      version: 1,
      sessions: [
        {
          id: 'mnpqrstu',
          name: 'x',
          command: ['/bin/sh'],
          cwd: '/',
          createdAt: 1,
          exitCode: null,
          signal: null,
        },
      ],
    });
    const file = fc.oneof(
      fc.uint8Array({ maxLength: 512 }),
      fc
        .array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })), {
          maxLength: 8,
        })
        .map((edits) => {
          const bytes = Buffer.from(valid);
          for (const [at, b] of edits) bytes[at] = b;
          return new Uint8Array(bytes);
        }),
      fc.jsonValue().map((j) => new TextEncoder().encode(JSON.stringify({ version: 1, sessions: [j] }))),
    );
    fc.assert(
      fc.property(file, (bytes) => {
        writeFileSync(fileOf(dir), bytes, { mode: 0o600 });
        const r = new SessionRegistry({
          now: Date.now,
          env: {},
          defaultShell: '/bin/sh',
          log,
          integrationDir: null,
        });
        const roster = new SessionRoster(dir, r, log);
        try {
          const n = roster.restore();
          expect(r.list()).toHaveLength(n);
        } catch (err) {
          if (!(err instanceof StateFileError)) throw err;
        } finally {
          roster.dispose();
          void r.killAll();
        }
      }),
      { seed: 0x5e55, numRuns: 300 },
    );
  });

  it('retries a failed write until it lands, logging once each way', async () => {
    const dir = stateDir();
    const r = registry();
    const roster = new SessionRoster(dir, r, log);
    roster.restore();
    rmSync(dir, { recursive: true }); // the directory vanishes: every write fails
    logs.length = 0;
    const s = r.create({ name: 'kept', cwd: '/', command: ['/bin/sh', '-c', 'sleep 30'] });
    await waitFor(() => logs.some((l) => l.includes('saving the session list failed')), 2000, 'the failure');
    mkdirSync(dir, { mode: 0o700 });
    await waitFor(() => existsSync(fileOf(dir)), ROSTER_RETRY_MS * 3, 'the retry');
    expect(saved(dir).map((e) => e.id)).toEqual([s.id]);
    expect(logs.filter((l) => l.includes('saving the session list failed'))).toHaveLength(1);
    expect(logs).toContain('session list saved again');
    roster.close();
  });
});
