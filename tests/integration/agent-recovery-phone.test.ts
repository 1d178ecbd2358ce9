/**
 * Agent recovery from the phone (issue 27, R-DIR-8 / R-C-RESUME-1) and the CLI, through a real daemon, a real
 * relay under `wrangler dev` and Pocket's own core: a session runs a stand-in `claude` (a real program with
 * Claude Code 2.1.197's store layout; the real CLIs are in tests/agents/agents-recovery.test.ts) started as
 * `env CLAUDE_CONFIG_DIR=… claude --model opus`; the daemon restarts; the phone's list shows the session
 * resumable with its conversation; a Resume whose conversation, program or directory is gone is refused with the
 * reason — on the phone and by `burrow resume` — and changes nothing; once all is back, Resume starts the agent on
 * its conversation under the same id, and the phone sees it running, Burrow's line first. A shell and a program
 * that is no agent, stopped with it, stay ended: not resumable, and a Resume of them says why.
 */
import { chmodSync, renameSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClaudeHome, isFakeClaude, writeClaudeStore } from '../../burrow-agent/test/fake-claude.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon, until } from '../helpers/burrow-daemon.js';
import { phoneConnection } from '../helpers/phone-connection.js';

const ID = '8d1c7b2e-4a5f-4e60-9b3c-2f1a0e9d8c77';
const cleanups: (() => void)[] = [];
let relay: RelayHandle;
let daemon: BurrowDaemon;

beforeAll(async () => {
  relay = await startRelay();
}, 120_000);

afterAll(async () => {
  await daemon?.stop();
  await relay?.stop();
  for (const c of cleanups.splice(0).reverse()) c();
});

interface Row {
  readonly id: string;
  readonly pid: number;
  readonly state: string;
  readonly resumable: boolean;
  readonly recovery: { agent: string; conversation: string } | null;
}

async function row(name: string): Promise<Row | undefined> {
  return (await daemon.json<(Row & { name: string })[]>('ls', '--json')).find((r) => r.name === name);
}

describe('Resume on the phone', () => {
  it('lists the agent session resumable after a restart; refuses with the reason what cannot be resumed; resumes it; resumeAgentsAtStart', async () => {
    const h = fakeClaudeHome(cleanups);
    const env = { HOME: h.root, PATH: `${h.bin}:${process.env.PATH ?? '/usr/bin:/bin'}` };
    daemon = await BurrowDaemon.start({ env });
    await daemon.enroll(relay.url);
    const phone = await daemon.pairPhone('phone');
    const created = await daemon.cli(
      'new',
      '--name',
      'agent',
      '--cwd',
      h.work,
      '--',
      'env',
      `CLAUDE_CONFIG_DIR=${h.config}`,
      'claude',
      '--model',
      'opus',
    );
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.trim();
    let pid = 0;
    await until(async () => {
      pid = (await row('agent'))?.pid ?? 0;
      return pid > 0 && isFakeClaude(pid);
    }, 'the stand-in agent');
    // What Claude Code writes once the person has said something.
    const transcript = writeClaudeStore(h.config, pid, h.work, ID);
    await until(async () => (await row('agent'))?.recovery?.conversation === ID, 'the capture', 20_000);
    // Beside it, what cannot come back honestly: a shell at its prompt and a program that is no agent.
    const shell = await daemon.cli('new', '--name', 'shell', '--cwd', h.work, '--', 'bash', '--norc', '-i');
    const other = await daemon.cli('new', '--name', 'other', '--cwd', h.work, '--', 'sleep', '600');
    expect([shell.code, other.code]).toEqual([0, 0]);
    await until(async () => (await row('other'))?.state === 'running', 'the other program');
    const [shellId, otherId] = [shell.stdout.trim(), other.stdout.trim()];
    // The daemon's stop looks at every session once more (a capture pass) before the PTYs end.

    await daemon.stop();
    daemon = await BurrowDaemon.start({ env, stateDir: daemon.stateDir });
    await until(
      async () =>
        (await daemon.json<{ relay: { state: string } }>('status', '--json')).relay.state === 'connected',
      'the relay link after the restart',
    );

    const conn = phoneConnection(phone);
    conn.start();
    try {
      await until(() => conn.status.kind === 'connected' && conn.sessions.has(id), 'the phone to list it');
      expect(conn.sessions.get(id)).toMatchObject({
        name: 'agent',
        exited: true,
        exitCode: null,
        resumable: { agent: 'claude', conversation: ID },
      });
      // The shell and the other program stay ended: listed, not resumable, and a Resume says why.
      for (const [name, sid] of [
        ['shell', shellId],
        ['other', otherId],
      ] as const) {
        expect(await row(name)).toMatchObject({ state: 'exited', resumable: false, recovery: null });
        expect(conn.sessions.get(sid)).toMatchObject({ exited: true });
        expect(conn.sessions.get(sid)?.resumable ?? null).toBeNull();
        await expect(conn.resume(sid)).rejects.toThrow(/was not running a coding agent Burrow can resume/);
        const refused = await daemon.cli('resume', name);
        expect(refused.code).toBe(5);
        expect(refused.stderr).toMatch(
          new RegExp(`"${name}" was not running a coding agent .*burrow kill ${name}`),
        );
      }
      const unchanged = () =>
        expect(conn.sessions.get(id)).toMatchObject({ exited: true, resumable: { conversation: ID } });

      // The conversation is gone.
      renameSync(transcript, `${transcript}.away`);
      await expect(conn.resume(id)).rejects.toThrow(new RegExp(`Claude Code's conversation ${ID} is gone`));
      const cli = await daemon.cli('resume', 'agent');
      expect(cli.code).toBe(1);
      expect(cli.stderr).toMatch(/cannot resume: Claude Code's conversation .* is gone .*burrow kill agent/);
      unchanged();
      renameSync(`${transcript}.away`, transcript);
      // The agent is no longer installed (not executable).
      chmodSync(h.claude, 0o644);
      await expect(conn.resume(id)).rejects.toThrow(/Claude Code is no longer installed at .*\/bin\/claude/);
      unchanged();
      chmodSync(h.claude, 0o755);
      // The directory is gone.
      renameSync(h.work, `${h.work}.away`);
      await expect(conn.resume(id)).rejects.toThrow(/the directory .*work no longer exists/);
      expect((await daemon.cli('resume', 'agent')).stderr).toMatch(/no longer exists/);
      unchanged();
      renameSync(`${h.work}.away`, h.work);
      expect((await row('agent'))?.resumable).toBe(true);

      // All back: Resume.
      expect(await conn.resume(id)).toBe(id);
      await until(() => conn.sessions.get(id)?.exited === false, 'the phone to see it running');
      expect(conn.sessions.get(id)?.resumable ?? null).toBeNull();
      let text = '';
      conn.attach(
        id,
        { cols: 80, rows: 24 },
        {
          onSnapshot: (s) => {
            text += s.data;
          },
          onOutput: (d) => {
            text += new TextDecoder().decode(d);
          },
        },
      );
      // The screen as text, escapes and line breaks out (a snapshot positions rows; an 80-column row wraps).
      const flat = () => text.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Z]|[\r\n\s]/g, '');
      await until(() => flat().includes(`claude--modelopus--resume${ID}`), 'the agent on its conversation');
      expect(flat()).toContain(`burrow:resumingClaudeCodeconversation${ID}`);
      // Resuming what runs is a conflict, not a second agent.
      await expect(conn.resume(id)).rejects.toThrow(/is running/);
      expect(await row('agent')).toMatchObject({ state: 'running', recovery: { conversation: ID } });
    } finally {
      conn.stop();
    }

    // resumeAgentsAtStart: the next daemon resumes it by itself.
    expect((await daemon.cli('settings', 'set', 'resumeAgentsAtStart', 'true')).code).toBe(0);
    expect((await daemon.cli('settings', 'get', 'resumeAgentsAtStart')).stdout.trim()).toBe('true');
    await daemon.stop();
    daemon = await BurrowDaemon.start({ env, stateDir: daemon.stateDir });
    await until(async () => (await row('agent'))?.state === 'running', 'the daemon to resume it at start');
    expect(await row('agent')).toMatchObject({ id, recovery: { agent: 'claude', conversation: ID } });
    expect(daemon.log).toMatch(/1 coding-agent session\(s\) resumed \(resumeAgentsAtStart\)/);
    rmSync(transcript, { force: true });
  }, 180_000);
});
