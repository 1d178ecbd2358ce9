/**
 * AgentRecovery with the real registry and roster: a session running an agent (a stand-in called `claude`
 * with Claude Code's store) is captured, remembered in sessions.json with its record, listed as resumable by
 * the next "daemon" (a fresh registry reading the same state directory), and resumed — same id, same name,
 * the banner first, the agent started on its conversation. Every bad input leaves the entry exactly as it was.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeClaudeHome, isFakeClaude, writeClaudeStore } from '../../test/fake-claude.js';
import { ROSTER_FILE_NAME, SessionRoster } from '../daemon/session-roster.js';
import { ConflictError, NotFoundError } from '../session/session-errors.js';
import { SessionRegistry } from '../session/session-registry.js';
import type { ViewerEvent } from '../viewer/viewer.js';
import { AgentRecovery } from './agent-recovery.js';
import { RecoveryError } from './recovery-error.js';

const ID = '5b0e8c61-2f3a-4d9e-8a71-6c2d1e0f9b44';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const logs: string[] = [];
const log = (_l: string, m: string) => void logs.push(m);

async function until(cond: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** One daemon's worth: a registry, the roster on `stateDir`, agent recovery (no timer: passes are driven). */
function daemon(stateDir: string, env: Record<string, string>) {
  const registry = new SessionRegistry({
    now: Date.now,
    env,
    defaultShell: '/bin/sh',
    log,
    integrationDir: null,
  });
  let recovery: AgentRecovery | undefined;
  const roster = new SessionRoster(stateDir, registry, log, (id) => recovery?.lookup(id) ?? null);
  recovery = new AgentRecovery({ registry, env, log, now: Date.now, onChange: () => roster.schedule() });
  const agents = recovery;
  const stop = async () => {
    agents.captureAll();
    agents.close();
    roster.close();
    await registry.killAll();
  };
  cleanups.push(stop);
  return { registry, roster, recovery: agents, stop };
}

/** The session's output from its first byte on, as text. */
function watch(registry: SessionRegistry, id: string) {
  let text = '';
  registry.get(id).attach(
    {
      id: `t-${Math.random()}`,
      kind: 'local',
      backlog: () => 0,
      deliver: (e: ViewerEvent) => {
        if (e.type === 'output') text += Buffer.from(e.data).toString();
      },
      close: () => {},
    },
    { resumeFrom: 0 },
  );
  return () => text;
}

async function runningAgent(daemonExtra: Record<string, string> = {}, prefix: string[] = []) {
  const h = fakeClaudeHome(cleanups as (() => void)[]);
  const stateDir = join(mkdtempSync(join(tmpdir(), 'burrow-recovery-')), 'state');
  mkdirSync(stateDir, { mode: 0o700 });
  cleanups.push(() => rmSync(join(stateDir, '..'), { recursive: true, force: true }));
  const env = { PATH: `${h.bin}:/usr/bin:/bin`, HOME: h.root, CLAUDE_CONFIG_DIR: h.config, ...daemonExtra };
  const first = daemon(stateDir, env);
  const s = first.registry.create({
    name: 'agent',
    cwd: h.work,
    command: [...prefix, h.claude, '--model', 'opus'],
  });
  // The stand-in is a `#!/usr/bin/env node` script: wait until env has exec'd node on it.
  await until(() => isFakeClaude(s.info().pid), 'the stand-in');
  const transcript = writeClaudeStore(h.config, s.info().pid, h.work, ID);
  first.recovery.captureAll();
  return { h, env, stateDir, first, id: s.id, transcript };
}

describe('AgentRecovery', () => {
  it('remembers the conversation, lists it resumable after a restart, and resumes it under the same id and name', async () => {
    const { h, env, stateDir, first, id } = await runningAgent();
    expect(first.recovery.recordOf(id)).toMatchObject({
      agent: 'claude',
      conversation: ID,
      args: ['--model', 'opus'],
    });
    await first.stop();
    const saved = JSON.parse(readFileSync(join(stateDir, ROSTER_FILE_NAME), 'utf8')).sessions;
    expect(saved[0].recovery).toMatchObject({ agent: 'claude', conversation: ID, program: h.claude });
    expect((statSync(join(stateDir, ROSTER_FILE_NAME)).mode & 0o777).toString(8)).toBe('600');

    const second = daemon(stateDir, env);
    second.roster.restore();
    const listed = second.registry.list()[0]!;
    expect(listed).toMatchObject({
      id,
      name: 'agent',
      status: 'exited',
      diedWithDaemon: true,
      resumable: { agent: 'claude', conversation: ID },
    });
    expect(() => second.registry.get(id)).toThrow(new RegExp(`resume it with \`burrow resume ${id}\``));

    const info = await second.recovery.resume('agent');
    expect(info).toMatchObject({ id, name: 'agent', status: 'running', cwd: h.work });
    expect(info.command).toEqual([h.claude, '--model', 'opus', '--resume', ID]);
    // Its info says which conversation it resumed, for every viewer (attach line, `ls`, the phone), and only
    // that: no environment, no paths.
    expect(info.resumed).toEqual({ agent: 'claude', conversation: ID });
    expect(info.resumable).toBeUndefined();
    expect(second.registry.list().find((s) => s.id === id)?.resumed).toEqual(info.resumed);
    const seen = watch(second.registry, id);
    await until(
      () => seen().includes(`claude --model opus --resume ${ID}`),
      'the agent to start on its conversation',
    );
    // Burrow's line comes first: which conversation this is.
    expect(seen().split('\n')[0]).toContain(`burrow: resuming Claude Code conversation ${ID} in ${h.work}`);
    // Still resumable after the next restart (the record went with the session).
    expect(second.recovery.lookup(id)).toMatchObject({ conversation: ID });
  });

  it("gives the agent back its own variables, even those a new session's clean-up drops (BURROW_*)", async () => {
    // The daemon has it too, but sessions get a clean environment (issue 24.3): only the agent's own copy,
    // given to it with `env`, is the user's word that it should have it.
    const { env, stateDir, first, id } = await runningAgent({ BURROW_TEST_API_KEY: 'daemon' }, [
      '/usr/bin/env',
      'BURROW_TEST_API_KEY=agent',
    ]);
    expect(first.recovery.recordOf(id)?.env).toMatchObject({ BURROW_TEST_API_KEY: 'agent' });
    await first.stop();
    const second = daemon(stateDir, env);
    second.roster.restore();
    const info = await second.recovery.resume('agent');
    await until(() => isFakeClaude(info.pid), 'the resumed stand-in');
    const environ = readFileSync(`/proc/${info.pid}/environ`, 'utf8').split('\0');
    expect(environ).toContain('BURROW_TEST_API_KEY=agent');
  });

  it('a directory, program or conversation that is gone: a clear error, nothing started, the entry as it was', async () => {
    const { h, env, stateDir, first, id, transcript } = await runningAgent();
    await first.stop();
    const second = daemon(stateDir, env);
    second.roster.restore();
    const before = JSON.stringify(second.registry.list());

    rmSync(transcript);
    await expect(second.recovery.resume(id)).rejects.toThrow(RecoveryError);
    await expect(second.recovery.resume(id)).rejects.toThrow(
      new RegExp(`conversation ${ID} is gone.*burrow kill agent`),
    );
    expect(JSON.stringify(second.registry.list())).toBe(before);

    chmodSync(h.claude, 0o644);
    await expect(second.recovery.resume(id)).rejects.toThrow(
      /Claude Code is no longer installed at .*bin\/claude/,
    );
    expect(JSON.stringify(second.registry.list())).toBe(before);

    rmSync(h.work, { recursive: true });
    await expect(second.recovery.resume(id)).rejects.toThrow(/the directory .*work no longer exists/);
    expect(JSON.stringify(second.registry.list())).toBe(before);
    expect(second.registry.size).toBe(0);
  });

  it('refuses what cannot be resumed: unknown, running, not an agent', async () => {
    const { first, id } = await runningAgent();
    await expect(first.recovery.resume('nope')).rejects.toThrow(NotFoundError);
    await expect(first.recovery.resume(id)).rejects.toThrow(ConflictError);
    first.registry.restoreExited({
      id: 'shabcdef',
      name: 'sh',
      command: ['/bin/bash'],
      cwd: '/',
      createdAt: 1,
    });
    await expect(first.recovery.resume('sh')).rejects.toThrow(
      /was not running a coding agent Burrow can resume/,
    );
  });

  it('forgets a conversation when the agent exits on its own (the session ended: nothing to resume)', async () => {
    const { first, id } = await runningAgent();
    expect(first.recovery.recordOf(id)).not.toBeNull();
    process.kill(first.registry.get(id).info().pid, 'SIGTERM');
    await until(() => first.registry.list()[0]!.status === 'exited', 'the exit');
    expect(first.recovery.recordOf(id)).toBeNull();
    expect(first.recovery.lookup(id)).toBeNull();
  });
});
