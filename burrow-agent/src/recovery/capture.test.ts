/**
 * The capture path against the real /proc: a program called `claude` (a stand-in: a real executable that
 * just waits) runs in a real PTY, in the foreground of a shell or as the session's own command, with Claude
 * Code's session file written the way Claude Code 2.1.197 writes it; the capture finds the process, reads the
 * store through its environment, and builds a record that starts it again. Also the env delta's bounds.
 */
import * as pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeClaudeHome, writeClaudeStore } from '../../test/fake-claude.js';
import { agentSpecs } from './agents/index.js';
import { captureSession, isInteractiveShell, PeerCache } from './capture.js';
import { envDelta, resumeEnv } from './env-delta.js';
import { procReader } from './proc.js';
import { MAX_RECOVERY_ENV_CHARS, MAX_RECOVERY_ENV_VARS } from './recovery-record.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function spawnPty(file: string, args: string[], cwd: string, env: Record<string, string>) {
  const p = pty.spawn(file, args, { cwd, env, cols: 80, rows: 24 });
  let out = '';
  p.onData((d) => {
    out += d;
  });
  cleanups.push(() => {
    try {
      process.kill(-p.pid, 'SIGKILL');
    } catch {}
  });
  return { p, output: () => out };
}

async function until(cond: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const ID = '3f0c2a51-7d7e-4b61-9a35-0f6f3e2b9c11';
const capture = (sessionPid: number, baseEnv: Record<string, string>) => {
  const proc = procReader();
  const specs = agentSpecs();
  return captureSession({ sessionPid, proc, specs, peers: new PeerCache(proc, specs), baseEnv, now: 1234 });
};

describe('captureSession against the real /proc', () => {
  it('the session’s own command: the agent, its store via CLAUDE_CONFIG_DIR, the env beyond the daemon’s', async () => {
    const h = fakeClaudeHome(cleanups);
    const baseEnv = { PATH: `${h.bin}:/usr/bin:/bin`, HOME: h.root };
    const env = { ...baseEnv, CLAUDE_CONFIG_DIR: h.config, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' };
    const { p, output } = spawnPty(h.claude, ['--model', 'opus', 'say hi'], h.work, env);
    await until(() => output().includes('claude --model'), 'the stand-in to start');
    expect(capture(p.pid, baseEnv)).toMatchObject({ process: { agent: 'claude', pid: p.pid }, record: null });
    const transcript = writeClaudeStore(h.config, p.pid, h.work, ID);
    const got = capture(p.pid, baseEnv);
    expect(got.record).toEqual({
      agent: 'claude',
      conversation: ID,
      transcript,
      program: h.claude,
      // The prompt is not sent again.
      args: ['--model', 'opus'],
      env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', CLAUDE_CONFIG_DIR: h.config },
      cwd: h.work,
      capturedAt: 1234,
    });
  });

  it('a shell’s foreground job, started by its bare name from PATH', async () => {
    const h = fakeClaudeHome(cleanups);
    const baseEnv = { PATH: '/usr/bin:/bin', HOME: h.root };
    const env = { ...baseEnv, PATH: `${h.bin}:/usr/bin:/bin`, CLAUDE_CONFIG_DIR: h.config, PS1: '$ ' };
    const { p, output } = spawnPty('/bin/bash', ['--norc', '-i'], h.work, env);
    await until(() => output().includes('$ '), 'the prompt');
    // At the prompt: the shell is the foreground, nothing to recover.
    expect(capture(p.pid, baseEnv).process).toBeNull();
    p.write('claude\r');
    await until(
      () => output().includes('claude \r\n') || output().includes('claude\r\n'),
      'the stand-in to start',
    );
    const pgrp = procReader().foregroundGroup(p.pid)!;
    expect(pgrp).not.toBe(p.pid);
    writeClaudeStore(h.config, pgrp, h.work, ID);
    const got = capture(p.pid, baseEnv);
    expect(got.record).toMatchObject({ agent: 'claude', conversation: ID, program: h.claude, args: [] });
    // The PATH the shell had is part of what differs: a resume finds the same programs.
    expect(got.record?.env.PATH).toBe(`${h.bin}:/usr/bin:/bin`);
    expect(got.record?.env).not.toHaveProperty('PS1');
  });

  it("a script’s child (`sh -c '…; claude'`): the group is looked at member by member", async () => {
    const h = fakeClaudeHome(cleanups);
    const baseEnv = { PATH: `${h.bin}:/usr/bin:/bin`, HOME: h.root };
    const env = { ...baseEnv, CLAUDE_CONFIG_DIR: h.config };
    // Two commands: sh cannot exec the last one in place, so claude is sh's child in sh's process group.
    const { p, output } = spawnPty('/bin/sh', ['-c', 'cd . && claude; exit'], h.work, env);
    await until(() => output().includes('claude\r\n'), 'the stand-in to start');
    const got = capture(p.pid, baseEnv);
    expect(got.process?.agent).toBe('claude');
    expect(got.process?.pid).not.toBe(p.pid);
    writeClaudeStore(h.config, got.process!.pid, h.work, ID);
    expect(capture(p.pid, baseEnv).record).toMatchObject({
      agent: 'claude',
      conversation: ID,
      program: h.claude,
    });
  });
});

describe('isInteractiveShell (a shell at its prompt needs no group scan)', () => {
  it.each([
    [['/bin/bash'], true],
    [['-zsh'], true],
    [['bash', '--norc', '-i'], true],
    [['fish', '-l'], true],
    [['bash', '-c', 'claude'], false],
    [['bash', '-lc', 'claude'], false],
    [['fish', '--command', 'claude'], false],
    [['sh', 'wrapper.sh'], false],
    [['bash', '--', 'wrapper.sh'], false],
    [['node', 'x.js'], false],
    [['claude'], false],
  ])('%j → %s', (argv, expected) => {
    expect(isInteractiveShell(argv)).toBe(expected);
  });
});

describe('envDelta', () => {
  it('keeps what differs, drops shell bookkeeping and Burrow’s own variables', () => {
    const d = envDelta(
      {
        HOME: '/h',
        PATH: '/p',
        PWD: '/w',
        SHLVL: '2',
        BURROW_SESSION: 'abc',
        OPENAI_API_KEY: 'k',
        SAME: '1',
      },
      { HOME: '/h', PATH: '/q', SAME: '1' },
    );
    expect(d).toEqual({ env: { OPENAI_API_KEY: 'k', PATH: '/p' }, dropped: [] });
    expect(resumeEnv({ A: '1', B: undefined, PATH: '/q' }, d.env)).toEqual({
      A: '1',
      PATH: '/p',
      OPENAI_API_KEY: 'k',
    });
  });
  it('is bounded: agents’ own variables first, the rest named as dropped', () => {
    const big: Record<string, string> = { ANTHROPIC_API_KEY: 'k'.repeat(100) };
    for (let i = 0; i < MAX_RECOVERY_ENV_VARS + 10; i++)
      big[`V${String(i).padStart(3, '0')}`] = 'x'.repeat(200);
    const d = envDelta(big, {});
    const chars = Object.entries(d.env).reduce((n, [k, v]) => n + k.length + v.length, 0);
    expect(chars).toBeLessThanOrEqual(MAX_RECOVERY_ENV_CHARS);
    expect(Object.keys(d.env).length).toBeLessThanOrEqual(MAX_RECOVERY_ENV_VARS);
    expect(d.env.ANTHROPIC_API_KEY).toBe('k'.repeat(100));
    expect(d.dropped.length).toBe(Object.keys(big).length - Object.keys(d.env).length);
  });
});
