/**
 * Each agent's store reader against the real store layout of its pinned version (test/fixtures/agent-stores/:
 * copied from runs of the real CLIs against the fake model — two processes of the same agent in one
 * directory, one message each; fixture.json holds what /proc said about them). Two sessions in one directory
 * must each come back to their own conversation.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { commandWatchKey } from '../../attention/watch-key.js';
import { DEFAULT_WATCHED_COMMANDS } from '../../attention/watch-rules.js';
import { agentInstances } from '../capture.js';
import type { ProcessFacts } from '../proc.js';
import { RECOVERABLE_AGENTS, type RecoverableAgent, type RecoveryRecord } from '../recovery-record.js';
import type { AgentProcess, AgentSpec, CaptureContext } from './agent-spec.js';
import { agentOf, agentSpecs, programOf } from './index.js';
import { OpencodeLogs, opencodeSpec, readLogLine } from './opencode.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/agent-stores/', import.meta.url));

interface Fixture {
  readonly agent: RecoverableAgent;
  readonly version: string;
  readonly workDir: string;
  readonly processes: ProcessFacts[];
  readonly openFiles?: Record<string, string[]>;
  readonly conversations: Record<string, string>;
  readonly gone?: Record<string, string>;
}

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** The fixture (an agent's name, or a variant's: `codex-daemon`) with its store copied to a fresh HOME. */
function load(agent: RecoverableAgent | `${RecoverableAgent}-${string}`) {
  const fixture = JSON.parse(readFileSync(join(FIXTURES, agent, 'fixture.json'), 'utf8')) as Fixture;
  const home = mkdtempSync(join(tmpdir(), `burrow-store-${agent}-`));
  temps.push(home);
  cpSync(join(FIXTURES, agent, 'home'), home, { recursive: true });
  const env = { HOME: home, PATH: '/usr/bin:/bin' };
  const procs: AgentProcess[] = fixture.processes.map((p) => ({ ...p, env }));
  const open = (pid: number) => (fixture.openFiles?.[pid] ?? []).map((p) => p.replace(/^~/, home));
  /** The capture context of the session whose foreground group is led by `pid`. */
  const ctx = (
    pid: number,
    peers: readonly AgentProcess[] = procs.filter((p) => p.pid === p.pgrp),
  ): CaptureContext => {
    const group = procs.filter((p) => p.pgrp === pid);
    return {
      agent: procs.find((p) => p.pid === pid)!,
      group,
      openFiles: () => group.flatMap((g) => open(g.pid)),
      peers: () => peers,
    };
  };
  return { fixture, home, env, procs, ctx };
}

const record = (
  over: Partial<RecoveryRecord> & Pick<RecoveryRecord, 'agent' | 'conversation'>,
): RecoveryRecord => ({
  transcript: null,
  program: '/usr/bin/true',
  args: [],
  env: {},
  cwd: '/',
  capturedAt: 0,
  ...over,
});

describe('Claude Code 2.1.197: sessions/<pid>.json names the conversation of that very process', () => {
  const spec = agentSpecs().claude;
  it('finds the running process its own conversation, by pid and start time', async () => {
    const { fixture, ctx, env } = load('claude');
    const got = spec.capture(ctx(1404));
    expect(got?.conversation).toBe(fixture.conversations['1404']);
    expect(got?.transcript).toMatch(/projects\/-tmp-burrow-claude-work-mlxZGR\/20cd332f-[0-9a-f-]+\.jsonl$/);
    expect(
      await spec.checkConversation(
        record({ agent: 'claude', conversation: got!.conversation, transcript: got!.transcript }),
        env,
      ),
    ).toBeNull();
  });
  it('gives nothing for a process whose file is gone (it exited), and never the other process’s conversation', () => {
    const { ctx } = load('claude');
    expect(spec.capture(ctx(1258))).toBeNull();
  });
  it('refuses a file left by an earlier process with the same pid (its start time differs)', () => {
    const { ctx, home } = load('claude');
    const file = join(home, '.claude/sessions/1404.json');
    const rec = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...rec, procStart: '123' }));
    expect(spec.capture(ctx(1404))).toBeNull();
  });
  it('says the conversation is gone once its transcript is', async () => {
    const { ctx, env } = load('claude');
    const got = spec.capture(ctx(1404))!;
    rmSync(got.transcript!);
    const why = await spec.checkConversation(
      record({ agent: 'claude', conversation: got.conversation, transcript: got.transcript }),
      env,
    );
    expect(why).toMatch(/Claude Code's conversation 20cd332f-.* is gone/);
  });
  it('follows CLAUDE_CONFIG_DIR', () => {
    const { ctx, home } = load('claude');
    const c = ctx(1404);
    const moved = mkdtempSync(join(tmpdir(), 'burrow-claude-cfg-'));
    temps.push(moved);
    cpSync(join(home, '.claude'), moved, { recursive: true });
    rmSync(join(home, '.claude'), { recursive: true });
    expect(spec.capture(c)).toBeNull();
    const withDir = { ...c, agent: { ...c.agent, env: { ...c.agent.env, CLAUDE_CONFIG_DIR: moved } } };
    expect(spec.capture(withDir)?.conversation).toBe('20cd332f-863b-48df-a86e-d0f71bb4affe');
  });
});

describe('Codex 0.171.0: the rollout the process holds open', () => {
  const spec = agentSpecs().codex;
  it('each of two codex sessions in one directory finds its own thread', async () => {
    const { fixture, ctx, env } = load('codex');
    for (const pid of [9456, 9661]) {
      const got = spec.capture(ctx(pid));
      expect(got?.conversation).toBe(fixture.conversations[pid]);
      expect(
        await spec.checkConversation(
          record({ agent: 'codex', conversation: got!.conversation, transcript: got!.transcript }),
          env,
        ),
      ).toBeNull();
    }
  });
  it('with the background app-server holding the rollouts (not the TUI), each finds its own thread by time', () => {
    const { fixture, ctx } = load('codex');
    for (const pid of [9456, 9661]) {
      expect(spec.capture({ ...ctx(pid), openFiles: () => [] })?.conversation).toBe(
        fixture.conversations[pid],
      );
    }
    // Started after both threads: neither is this TUI's.
    const c = ctx(9661);
    const later = { ...c.agent, pid: 99999, startedAt: Date.now() };
    expect(spec.capture({ ...c, agent: later, openFiles: () => [], peers: () => [later] })).toBeNull();
  });
  it("Codex's default mode (the background app-server holds every rollout): each TUI its own thread, by time", () => {
    const { fixture, ctx, procs } = load('codex-daemon');
    // The app-server (`codex app-server`, started by the first TUI) is not a TUI, even where it keeps the TUI's
    // directory.
    const inWork = procs.map((p) => (p.pid === 6611 ? { ...p, cwd: fixture.workDir } : p));
    expect(agentInstances(inWork, spec).map((p) => p.pid)).toEqual([6574, 6758]);
    for (const pid of [6574, 6758])
      expect(spec.capture(ctx(pid))?.conversation).toBe(fixture.conversations[pid]);
  });
  it('refuses a rollout whose header names another thread', () => {
    const { ctx } = load('codex');
    const c = ctx(9456);
    const [path] = c.openFiles().filter((p) => p.endsWith('.jsonl'));
    const lines = readFileSync(path!, 'utf8').split('\n');
    writeFileSync(
      path!,
      [lines[0]!.replaceAll('01a23c5d-50a9', '01a23c5d-ffff'), ...lines.slice(1)].join('\n'),
    );
    expect(spec.capture(c)).toBeNull();
  });
  it('says the conversation is gone once its rollout is', async () => {
    const { ctx, env } = load('codex');
    const got = spec.capture(ctx(9661))!;
    rmSync(got.transcript!);
    expect(
      await spec.checkConversation(
        record({ agent: 'codex', conversation: got.conversation, transcript: got.transcript }),
        env,
      ),
    ).toMatch(/is gone/);
  });
});

describe('Gemini CLI 0.61.0: a chat belongs to the process that started last before it', () => {
  const spec = agentSpecs().gemini;
  it('each of two Gemini sessions in one directory finds its own chat', async () => {
    const { fixture, ctx, env } = load('gemini');
    for (const pid of [23552, 23864]) {
      const got = spec.capture(ctx(pid));
      expect(got?.conversation).toBe(fixture.conversations[pid]);
      expect(
        await spec.checkConversation(
          record({ agent: 'gemini', conversation: got!.conversation, transcript: got!.transcript }),
          env,
        ),
      ).toBeNull();
    }
  });
  it('with the later process gone, its chat is still not taken by the earlier one… unless it was the only one', () => {
    const { ctx, procs } = load('gemini');
    const first = procs.find((p) => p.pid === 23552)!;
    // Only the first process running: both chats started after it, the newer one is "its" latest.
    expect(spec.capture(ctx(23552, [first]))?.conversation).toBe('3c55fc10-50d4-453b-bfff-dc6775e45cb3');
  });
  it('a chat with nothing said in it is not a conversation to resume', () => {
    const { ctx, home } = load('gemini');
    const dir = join(home, '.gemini/tmp/burrow-gemini-work-b0tmov/chats');
    const name = 'session-2026-12-03T14-53-3c55fc10.jsonl';
    const head = readFileSync(join(dir, name), 'utf8').split('\n').slice(0, 2).join('\n');
    writeFileSync(join(dir, name), `${head}\n`);
    expect(spec.capture(ctx(23864))).toBeNull();
  });
  it('finds the project by .project_root when projects.json lacks the directory', () => {
    const { fixture, ctx, home } = load('gemini');
    writeFileSync(join(home, '.gemini/projects.json'), '{"projects":{}}');
    expect(spec.capture(ctx(23864))?.conversation).toBe(fixture.conversations['23864']);
  });
});

describe('opencode 1.18.33: the shared log says which run talks in which conversation', () => {
  it('each of two opencode sessions in one directory finds its own conversation', () => {
    const { fixture, ctx } = load('opencode');
    const spec = opencodeSpec();
    for (const pid of [13701, 13906])
      expect(spec.capture(ctx(pid))?.conversation).toBe(fixture.conversations[pid]);
  });
  it('reads only what was appended since the last pass, and a new conversation in a run wins', () => {
    const { ctx, home } = load('opencode');
    const logs = new OpencodeLogs();
    const spec = opencodeSpec(logs);
    const log = join(home, '.local/share/opencode/log/opencode.log');
    expect(spec.capture(ctx(13906))?.conversation).toBe('ses_dc37e3ab9ffeHewkR8JsGlixB7');
    const later =
      'timestamp=2026-12-03T15:30:00.000Z level=INFO run=86cb446a message=created id=ses_dc37aaaaaaaaNewConversation1 slug=x\n';
    writeFileSync(log, readFileSync(log, 'utf8') + later);
    expect(spec.capture(ctx(13906))?.conversation).toBe('ses_dc37aaaaaaaaNewConversation1');
    expect(spec.capture(ctx(13701))?.conversation).toBe('ses_dc37e7026ffejEv52qmvzsJrQM');
  });
  it('ignores lines that are not its log format and keeps at most MAX_LOG_RUNS runs', () => {
    const runs = new Map();
    readLogLine('garbage', runs);
    readLogLine('timestamp=nope level=INFO run=a message=x', runs);
    expect(runs.size).toBe(0);
    readLogLine(
      'timestamp=2026-12-03T15:24:09.178Z level=INFO run=r1 message="creating instance" directory=/w',
      runs,
    );
    expect(runs.get('r1')).toMatchObject({ directory: '/w', session: null });
  });
});

describe('which of its arguments a resume keeps', () => {
  const specs = agentSpecs();
  const cases: [AgentSpec, string[], string[] | null][] = [
    [
      specs.claude,
      ['--model', 'opus', '--dangerously-skip-permissions', 'fix the build'],
      ['--model', 'opus', '--dangerously-skip-permissions'],
    ],
    [
      specs.claude,
      ['--resume', '7729da4a-f847-4916-a62c-20aca223ae86', '--add-dir', 'a', 'b', '-c'],
      ['--add-dir', 'a', 'b'],
    ],
    [specs.claude, ['-p', 'one shot'], null],
    [specs.claude, ['mcp', 'list'], null],
    [specs.codex, ['--no-daemon'], ['--no-daemon']],
    [specs.codex, ['--no-daemon', 'resume', '--last', '-m', 'o3'], ['--no-daemon', '-m', 'o3']],
    [specs.codex, ['-c', 'model="o3"', 'write tests'], ['-c', 'model="o3"']],
    [specs.codex, ['exec', 'do it'], null],
    [
      specs.gemini,
      ['--resume', 'latest', '-m', 'gemini-3.1-pro-preview', '--yolo'],
      ['-m', 'gemini-3.1-pro-preview', '--yolo'],
    ],
    [specs.gemini, ['-p', 'x'], null],
    [specs.gemini, ['--model=flash', 'hello there'], ['--model=flash']],
    [specs.opencode, ['--continue', '-m', 'p/m'], ['-m', 'p/m']],
    [specs.opencode, ['/some/project', '--session', 'ses_abcdefghijkl'], ['/some/project']],
    [specs.opencode, ['run', 'x'], null],
  ];
  it.each(cases)('%#', (spec, args, kept) => {
    expect(spec.carriedArgs(args)).toEqual(kept);
  });
  it('resume argv per agent', () => {
    expect(specs.claude.resumeArgs(['--model', 'opus'], 'id1')).toEqual([
      '--model',
      'opus',
      '--resume',
      'id1',
    ]);
    expect(specs.codex.resumeArgs(['--no-daemon'], 'id2')).toEqual(['--no-daemon', 'resume', 'id2']);
    expect(specs.gemini.resumeArgs([], 'id3')).toEqual(['--resume', 'id3']);
    expect(specs.opencode.resumeArgs([], 'ses_x')).toEqual(['--session', 'ses_x']);
  });
});

describe('telling an agent process by its program', () => {
  it('the recoverable agents are watched by default, under the same names (watch-rules.ts)', () => {
    for (const spec of Object.values(agentSpecs())) {
      expect(RECOVERABLE_AGENTS).toContain(spec.agent);
      for (const name of spec.programNames) {
        expect(DEFAULT_WATCHED_COMMANDS).toContain(name);
        expect(commandWatchKey(`/usr/local/bin/${name} --flag`)).toBe(name);
      }
    }
  });
  const specs = agentSpecs();
  it('a binary, an npm launcher run by node, an interpreter with options', () => {
    expect(agentOf(['/usr/local/bin/claude', '--model', 'x'], specs)?.spec.agent).toBe('claude');
    expect(agentOf(['node', '/usr/lib/node_modules/.bin/codex', '--no-daemon'], specs)).toMatchObject({
      program: '/usr/lib/node_modules/.bin/codex',
      args: ['--no-daemon'],
    });
    expect(agentOf(['/usr/bin/node', '--max-old-space-size=12052', '/x/gemini'], specs)?.spec.agent).toBe(
      'gemini',
    );
    expect(agentOf(['node', '--require', 'hook.js', '/x/opencode.js'], specs)?.spec.agent).toBe('opencode');
    expect(agentOf(['/bin/bash', '-l'], specs)).toBeNull();
    expect(agentOf(['node', '/srv/app.js'], specs)).toBeNull();
    expect(programOf([])).toBeNull();
    expect(programOf(['node'])).toBeNull();
  });
});
