/**
 * The session side of the attention wiring: shell integration at spawn (a nonce per PTY, handed to taps),
 * input activity carrying its bytes, terminal replies that are not input, the 'remove' activity, and
 * entries restored for sessions that died with the previous daemon.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PtyGeneration, SessionActivity } from './activity.js';
import { ConflictError, NotFoundError, SessionRegistry } from './session-registry.js';

const registries: SessionRegistry[] = [];

function setup(integrationDir?: string | null) {
  const registry = new SessionRegistry({
    now: Date.now,
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home' },
    defaultShell: '/bin/sh',
    log: () => {},
    integrationDir,
  });
  registries.push(registry);
  const generations = new Map<string, PtyGeneration>();
  const output = new Map<string, string>();
  const activity: SessionActivity[] = [];
  registry.addTap({
    spawn: (id, g) => generations.set(id, g),
    output: (id, chunk) => output.set(id, (output.get(id) ?? '') + Buffer.from(chunk).toString('latin1')),
  });
  registry.subscribe((a) => activity.push(a));
  return { registry, generations, output, activity };
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

afterEach(async () => {
  for (const r of registries.splice(0)) await r.killAll();
});

describe('spawn with shell integration', () => {
  it('gives a bare interactive bash a fresh nonce, which its 633;E lines carry', async () => {
    const { registry, generations, output } = setup();
    const a = registry.create({ cwd: '/', command: ['/usr/bin/bash'] });
    const b = registry.create({ cwd: '/', command: ['/usr/bin/bash'] });
    const nonce = generations.get(a.id)?.nonce;
    expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(generations.get(b.id)?.nonce).not.toBe(nonce);
    await until(() => (output.get(a.id) ?? '').includes('\x1b]633;A'), 'the prompt mark');
    a.input('typist', new TextEncoder().encode('true\r'));
    await until(() => (output.get(a.id) ?? '').includes(`633;E;true;${nonce}`), 'the command line');
  });

  it('runs anything else unchanged, with no nonce', () => {
    const { registry, generations } = setup();
    const s = registry.create({ cwd: '/', command: ['/usr/bin/bash', '--norc'] });
    const t = registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'] });
    expect(generations.get(s.id)).toEqual({ nonce: null });
    expect(generations.get(t.id)).toEqual({ nonce: null });
  });

  it('injects nothing when integration is switched off', () => {
    const { registry, generations } = setup(null);
    const s = registry.create({ cwd: '/', command: ['/usr/bin/bash'] });
    expect(generations.get(s.id)).toEqual({ nonce: null });
  });
});

describe('input and terminal replies', () => {
  it('reports input with its bytes, and writes a terminal reply without any input activity', async () => {
    const { registry, output, activity } = setup();
    const s = registry.create({ cwd: '/', command: ['/bin/cat', '-v'] });
    s.input('v1', new TextEncoder().encode('hi\r'));
    const input = activity.find((a) => a.type === 'input');
    expect(input?.type === 'input' && Buffer.from(input.data).toString()).toBe('hi\r');
    s.terminalReply('\x1b[I\r');
    await until(() => (output.get(s.id) ?? '').includes('^[[I'), 'the reply echoed');
    expect(activity.filter((a) => a.type === 'input')).toHaveLength(1);
    expect(() => s.terminalReply('x'.repeat(70_000))).toThrow(RangeError);
  });

  it('emits remove when a session is killed', async () => {
    const { registry, activity } = setup();
    const s = registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'] });
    await registry.kill(s.id);
    expect(activity.at(-1)).toMatchObject({ type: 'remove', sessionId: s.id });
  });
});

describe('restoreExited', () => {
  const entry = { id: 'abcdefgh', name: 'build', command: ['make'], cwd: '/src', createdAt: 5 };

  it('lists the entry as exited and died-with-the-daemon until it is killed', async () => {
    const { registry, activity } = setup();
    const info = registry.restoreExited(entry);
    expect(info).toMatchObject({ status: 'exited', diedWithDaemon: true, pid: 0, name: 'build' });
    expect(registry.list()).toEqual([info]);
    expect(registry.restored('build')).toEqual(info);
    expect(() => registry.get('abcdefgh')).toThrow(NotFoundError);
    expect(() => registry.get('abcdefgh')).toThrow(/died with the previous daemon/);
    const live = registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'], name: 'build-live' });
    expect(() => registry.rename(live.id, 'build')).toThrow(ConflictError);
    expect(await registry.kill('build')).toEqual(info);
    expect(activity.at(-1)).toMatchObject({ type: 'remove', sessionId: 'abcdefgh' });
    expect(registry.list().map((s) => s.id)).toEqual([live.id]);
  });

  it('refuses a malformed or duplicate id', () => {
    const { registry } = setup();
    expect(() => registry.restoreExited({ ...entry, id: 'NOT-OK' })).toThrow(TypeError);
    registry.restoreExited(entry);
    expect(() => registry.restoreExited(entry)).toThrow(ConflictError);
    expect(registry.restoreExited({ ...entry, id: 'bcdefghj' }).name).toBe('build-2');
  });
});
