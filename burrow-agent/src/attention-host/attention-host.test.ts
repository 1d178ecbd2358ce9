import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_WATCHED_COMMANDS } from '../attention/index.js';
import { SessionRegistry } from '../session/session-registry.js';
import { StateFileError } from '../state/atomic-file.js';
import { AttentionHost } from './attention-host.js';
import { ATTENTION_FILE_NAME } from './attention-store.js';
import { QUIET_PUBLIC_STATE } from './public-state.js';

let dir: string;
let logs: string[];
const hosts: { host: AttentionHost; registry: SessionRegistry }[] = [];

function start(onPushDue: (sessionId: string) => void = () => {}): {
  host: AttentionHost;
  registry: SessionRegistry;
} {
  const registry = new SessionRegistry({ now: Date.now, env: {}, defaultShell: '/bin/sh', log: () => {} });
  const host = new AttentionHost({
    registry,
    stateDir: dir,
    log: (level, message) => logs.push(`${level}: ${message}`),
    onPushDue: (sessionId) => onPushDue(sessionId),
  });
  hosts.push({ host, registry });
  return { host, registry };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'burrow-attn-unit-'));
  logs = [];
});

async function until(cond: () => boolean, what: string, timeoutMs = 4_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

afterEach(async () => {
  for (const { host, registry } of hosts.splice(0)) {
    host.dispose();
    await registry.killAll();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('AttentionHost settings and rules', () => {
  it('seeds the default rules and persists edits for the next daemon', () => {
    const a = start().host;
    expect(a.watchRules()).toEqual(DEFAULT_WATCHED_COMMANDS);
    a.updateSettings({ pushDelayMs: 1234, inactivityTimeoutMs: 1, bogus: true });
    expect(a.settings().inactivityTimeoutMs).toBe(5000); // clamped to the spec's floor
    a.addWatchRule('make');
    a.removeWatchRule('claude');
    a.dispose();
    const b = start().host;
    expect(b.settings().pushDelayMs).toBe(1234);
    expect(b.watchRules()).toContain('make');
    expect(b.watchRules()).not.toContain('claude');
  });

  it('replaces the whole rule set at once, or not at all', () => {
    const a = start().host;
    expect(a.setWatchRules(['make', 'pnpm', 'make'])).toEqual(['make', 'pnpm']);
    expect(() => a.setWatchRules(['cargo', ' bad '])).toThrow(RangeError);
    expect(a.watchRules()).toEqual(['make', 'pnpm']);
    a.dispose();
    expect(start().host.watchRules()).toEqual(['make', 'pnpm']);
  });

  it('refuses an invalid rule with RangeError and unknown verbs or todo actions with TypeError', () => {
    const { host } = start();
    expect(() => host.addWatchRule('  not a key ')).toThrow(RangeError);
    expect(() => host.verb('abcdefgh', 'explode' as never)).toThrow(TypeError);
    expect(() => host.todo('abcdefgh', 'maybe' as never)).toThrow(TypeError);
  });
});

describe('AttentionHost views and awaits', () => {
  it("carries the program's window title (OSC 2, not OSC 1) into the public state and tells listeners", async () => {
    const { host, registry } = start();
    const changed: string[] = [];
    host.onChange((id) => changed.push(id));
    const s = registry.create({
      cwd: '/',
      command: ['/bin/sh', '-c', "printf '\\033]1;icon\\007\\033]2;deploy: step 3\\007'; sleep 5"],
    });
    const deadline = Date.now() + 5000;
    while (host.publicState(s.id).title === '' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(host.publicState(s.id).title).toBe('deploy: step 3');
    expect(changed).toContain(s.id);
  });

  it('answers an unknown session as quiet', () => {
    const { host } = start();
    expect(host.publicState('abcdefgh')).toEqual(QUIET_PUBLIC_STATE);
    expect(host.view('abcdefgh')).toBeNull();
  });

  it('tells listeners about a spawn and stops after unsubscribe', async () => {
    const { host, registry } = start();
    const seen: string[] = [];
    const off = host.onChange((id) => seen.push(id));
    const s = registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'] });
    host.todo(s.id, 'on');
    expect(seen).toContain(s.id);
    expect(host.view(s.id)?.todo).toBe(true);
    off();
    const before = seen.length;
    host.todo(s.id, 'off');
    expect(seen).toHaveLength(before);
  });

  it('answers every pending await cancelled on dispose, and any later one at once', async () => {
    const { host, registry } = start();
    const s = registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'] });
    const pending = host.await('cli', s.id, { until: 'exit', timeoutMs: 60_000 });
    host.dispose();
    expect(await pending).toBe('cancelled');
    expect(await host.await('cli', s.id, { until: 'exit', timeoutMs: 60_000 })).toBe('cancelled');
  });

  it('lets a keystroke acknowledge a ring, but not a terminal reply or a mouse report', async () => {
    const { host, registry } = start();
    const s = registry.create({
      cwd: '/',
      command: ['/bin/sh', '-c', String.raw`sleep 0.5; printf '\033]9;deploy finished\007'; sleep 10`],
    });
    const deadline = Date.now() + 5000;
    while (host.view(s.id)?.ringing !== true) {
      if (Date.now() > deadline) throw new Error('no ring');
      await new Promise((r) => setTimeout(r, 20));
    }
    s.input('v1', new TextEncoder().encode('\x1b[I\x1b[12;1R'));
    s.input('v1', new TextEncoder().encode('\x1b[<0;3;4M'));
    expect(host.view(s.id)?.ringing).toBe(true);
    s.input('v1', new TextEncoder().encode('y'));
    expect(host.view(s.id)?.ringing).toBe(false);
  });

  it('answers a malformed await cancelled', async () => {
    const { host, registry } = start();
    const s = registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'] });
    expect(await host.await('cli', s.id, { until: 'exit', timeoutMs: -1 })).toBe('cancelled');
  });
});

describe('AttentionHost restore', () => {
  const entry = (id: string, alert: unknown) => ({
    id,
    name: 'build',
    command: ['make'],
    cwd: '/src',
    createdAt: 1,
    alert,
  });

  it('lists restored TODO sessions, skipping a duplicate id with a warning', () => {
    const todo = { todo: true, notification: { source: 'osc9', title: null, body: 'done' } };
    const file = { version: 1, sessions: [entry('abcdefgh', todo), entry('abcdefgh', todo)] };
    writeFileSync(join(dir, ATTENTION_FILE_NAME), JSON.stringify(file), { mode: 0o600 });
    const { host, registry } = start();
    expect(registry.list()).toHaveLength(1);
    expect(host.view('abcdefgh')).toMatchObject({ todo: true, ringing: false, exited: true });
    expect(logs.some((l) => l.startsWith('warn: attention: restored session abcdefgh skipped'))).toBe(true);
  });

  it('rewrites the state once a ring has pushed, so a crash after the push does not ring it again', async () => {
    const pushed: string[] = [];
    const { host, registry } = start((id) => pushed.push(id));
    host.updateSettings({ pushDelayMs: 1_000 }); // longer than the write debounce: owed is written first
    const s = registry.create({
      cwd: '/',
      command: ['/bin/sh', '-c', String.raw`sleep 0.5; printf '\033]9;deploy finished\007'; sleep 10`],
    });
    // undefined: not written yet; false: written, and no longer owed.
    const owed = (): boolean | undefined => {
      try {
        const file = JSON.parse(readFileSync(join(dir, ATTENTION_FILE_NAME), 'utf8')) as {
          sessions: { id: string; alert: { owed?: boolean } }[];
        };
        const entry = file.sessions.find((e) => e.id === s.id);
        return entry === undefined ? undefined : entry.alert.owed === true;
      } catch {
        return undefined;
      }
    };
    // While the push is due the ring is written as owed (issue 23: a restart keeps what was owed) …
    await until(() => owed() === true, 'the owed ring on disk');
    await until(() => pushed.includes(s.id), 'the push');
    // … and once it went, without any further state change, the file stops saying so (no dispose: a crash).
    await until(() => owed() === false, 'the ring written as pushed');
    expect(host.view(s.id)).toMatchObject({ ringing: true });
  }, 15_000);

  it('fails closed on a corrupt or world-readable attention file', () => {
    writeFileSync(join(dir, ATTENTION_FILE_NAME), '{"version":1,', { mode: 0o600 });
    expect(() => start()).toThrow(StateFileError);
    writeFileSync(join(dir, ATTENTION_FILE_NAME), JSON.stringify({ version: 1, sessions: [] }));
    chmodSync(join(dir, ATTENTION_FILE_NAME), 0o644);
    expect(() => start()).toThrow(StateFileError);
  });
});
