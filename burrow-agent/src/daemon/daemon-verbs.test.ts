import { describe, expect, it } from 'vitest';
import type { AlertVerb } from '../attention/alert-manager.js';
import { DEFAULT_ALERT_SETTINGS } from '../attention/settings.js';
import type { RemoteService } from '../remote/remote-service.js';
import type { SessionInfo } from '../session/session.js';
import type { SessionRegistry } from '../session/session-registry.js';
import { pushReasonOf } from './daemon.js';
import {
  type AttentionVerbsHost,
  daemonVerbs,
  describeSession,
  type RecoveryVerbsHost,
} from './daemon-verbs.js';

function fixture() {
  const log: string[] = [];
  const remote = {
    startPairing: async () => ({ link: 'l', qr: 'q', expiresAt: 1 }),
    cancelPairing: () => log.push('cancel'),
  } as unknown as RemoteService;
  const registry = {
    get: (ref: string) => {
      if (ref !== 'abcdefgh' && ref !== 'name') throw new RangeError('no such session');
      return { id: 'abcdefgh' };
    },
  } as unknown as SessionRegistry;
  let settings = { ...DEFAULT_ALERT_SETTINGS };
  const host: AttentionVerbsHost = {
    view: () => null,
    verb: (id: string, v: AlertVerb) => log.push(`${v} ${id}`),
    awaitResult: async () => ({ cause: 'quiet', exitCode: null, command: null }),
    realmGone: () => {},
    settings: () => settings,
    updateSettings: (p) => {
      settings = { ...settings, ...(p as object) };
      return settings;
    },
    watchRules: () => [],
    addWatchRule: () => [],
    removeWatchRule: () => [],
  };
  const ctx = { realmId: 'r', signal: new AbortController().signal };
  let resumeAtStart = false;
  const recovery: RecoveryVerbsHost = {
    resume: async (ref) => {
      log.push(`resume ${ref}`);
      return {
        id: 'abcdefgh',
        name: 'agent',
        command: ['claude'],
        status: 'running',
      } as unknown as SessionInfo;
    },
    recordOf: () => null,
    settings: {
      get resumeAgentsAtStart() {
        return resumeAtStart;
      },
      setResumeAgentsAtStart: (v) => {
        resumeAtStart = v;
      },
    },
  };
  return {
    verbs: daemonVerbs(remote, registry, host),
    withRecovery: daemonVerbs(remote, registry, host, recovery),
    log,
    ctx,
  };
}

describe('daemonVerbs', () => {
  it('a replaced `burrow pair` cannot cancel the newer offer', async () => {
    const { verbs, log } = fixture();
    const first = await verbs.startPairing({ label: null, approve: async () => true, done: () => {} });
    const second = await verbs.startPairing({ label: null, approve: async () => true, done: () => {} });
    first.cancel();
    expect(log).toEqual([]);
    second.cancel();
    expect(log).toEqual(['cancel']);
  });

  it('routes todo and dismiss by session name or id to the engine verbs', async () => {
    const { verbs, log, ctx } = fixture();
    await verbs.handle('todo', { session: 'name', action: 'toggle' }, ctx);
    await verbs.handle('todo', { session: 'abcdefgh', action: 'on' }, ctx);
    await verbs.handle('dismiss', { session: 'name' }, ctx);
    expect(log).toEqual(['todo-toggle abcdefgh', 'todo-on abcdefgh', 'dismiss abcdefgh']);
    await expect(verbs.handle('dismiss', { session: 'zzz' }, ctx)).rejects.toThrow(RangeError);
  });

  it('settings-set takes only known keys with values of their type', async () => {
    const { verbs, ctx } = fixture();
    await expect(
      verbs.handle('settings-set', { key: 'pushEnabled', value: false }, ctx),
    ).resolves.toMatchObject({
      settings: { pushEnabled: false },
    });
    await expect(verbs.handle('settings-set', { key: 'nope', value: 1 }, ctx)).rejects.toThrow(RangeError);
    await expect(verbs.handle('settings-set', { key: 'pushDelayMs', value: true }, ctx)).rejects.toThrow(
      TypeError,
    );
    await expect(verbs.handle('settings-set', { key: 'toString', value: 1 }, ctx)).rejects.toThrow(
      RangeError,
    );
  });
});

describe('daemonVerbs: agent recovery', () => {
  it('`burrow settings` shows and sets resumeAgentsAtStart beside the alarm settings (a boolean only)', async () => {
    const { withRecovery, ctx } = fixture();
    await expect(withRecovery.handle('settings-get', {}, ctx)).resolves.toMatchObject({
      settings: { pushEnabled: true, resumeAgentsAtStart: false },
    });
    await expect(
      withRecovery.handle('settings-set', { key: 'resumeAgentsAtStart', value: true }, ctx),
    ).resolves.toMatchObject({ settings: { resumeAgentsAtStart: true, pushEnabled: true } });
    await expect(
      withRecovery.handle('settings-set', { key: 'resumeAgentsAtStart', value: 1 }, ctx),
    ).rejects.toThrow(TypeError);
  });
  it('`resume` goes to recovery and answers the session as `ls` lists it; without recovery it is refused', async () => {
    const { verbs, withRecovery, log, ctx } = fixture();
    await expect(withRecovery.handle('resume', { session: 'agent' }, ctx)).resolves.toMatchObject({
      session: { id: 'abcdefgh', resumable: false, recovery: null },
    });
    expect(log).toEqual(['resume agent']);
    await expect(verbs.handle('resume', { session: 'agent' }, ctx)).rejects.toThrow(RangeError);
  });
});

describe('describeSession and pushReasonOf', () => {
  const info: SessionInfo = {
    id: 's1',
    name: 'build',
    command: ['/bin/sh', '-c', 'make'],
    cwd: '/',
    pid: 1,
    createdAt: 0,
    status: 'exited',
    exitCode: 2,
    signal: null,
    cols: 80,
    rows: 24,
    viewers: 0,
    offset: 0,
    lastOutputAt: null,
  };
  it('without a view, moves the process state to state and argv to argv, and has no alert status', () => {
    expect(describeSession(info, null)).toEqual({
      state: 'exited',
      argv: ['/bin/sh', '-c', 'make'],
      resumable: false,
      recovery: null,
      status: null,
      command: '/bin/sh -c make',
    });
  });
  it("shows a resumable session's agent and conversation, never the environment it would run with", () => {
    const record = {
      agent: 'claude' as const,
      conversation: '7729da4a-f847-4916-a62c-20aca223ae86',
      transcript: '/home/u/.claude/projects/-w/7729da4a-f847-4916-a62c-20aca223ae86.jsonl',
      program: '/usr/bin/claude',
      args: ['--model', 'opus'],
      env: { ANTHROPIC_API_KEY: 'sk-secret' },
      cwd: '/w',
      capturedAt: 1,
    };
    const restored = {
      ...info,
      diedWithDaemon: true,
      resumable: { agent: 'claude', conversation: record.conversation },
    };
    const row = describeSession(restored, null, record);
    expect(row).toMatchObject({
      resumable: true,
      recovery: { agent: 'claude', conversation: record.conversation },
    });
    expect(JSON.stringify(row)).not.toContain('sk-secret');
  });
  it('picks the fixed push body by what rang', () => {
    expect(pushReasonOf({ exited: true, notification: null, watchKey: 'claude' })).toBe('exit');
    expect(pushReasonOf({ exited: false, notification: null, watchKey: 'claude' })).toBe('watching');
    expect(pushReasonOf({ exited: false, notification: { title: 'x' }, watchKey: 'claude' })).toBe('report');
    expect(pushReasonOf({ exited: false, notification: null, watchKey: null })).toBe('report');
  });
});
