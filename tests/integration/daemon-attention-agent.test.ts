/**
 * Issue 13 through a REAL `burrow daemon` (built CLI, temp state dir, real PTYs, `burrow attach` in a real PTY
 * where a person would type): each reproduction from the issue, written as the failing test first.
 *
 * 1. `burrow new -- CMD` runs CMD as its command: command/watchKey from the start, WATCHING by the rules, its
 *    exit a command exit, and `await --until exit|quiet` as for a command typed into an integrated shell.
 * 2. `await` reports exitCode + command, and exits 7 when the command failed.
 * 3. A report after printable output in one PTY read rings after a dismiss.
 * 4. A report that arrives while attached, unanswered, is a TODO after the detach.
 * 5. An explicit request (OSC 9) from an animating TUI rings at once, not when it goes quiet.
 * 6. The smaller fixes: zsh multi-line keys, 9;4 without a percent / clamped, OSC 99 p=close, CurrentDir /
 *    Cwd, C2 9C, unaligned base64, Claude's title line, `ls` puts what needs you first, `new --json` shape.
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_TIMING } from '../../burrow-agent/src/attention/index.js';
import { connectDaemon } from '../../burrow-agent/src/cli/daemon-connection.js';
import type { ControlClient } from '../../burrow-agent/src/control/control-client.js';
import { BURROW_BIN, BurrowDaemon } from '../helpers/burrow-daemon.js';

/** A stand-in coding agent named like a default WATCHING rule: busy for ~4.5 s (BUSY takes 2 s), then quiet. */
const FAKE_AGENT = 'claude';
const FAKE_AGENT_SCRIPT =
  '#!/bin/sh\ni=0\nwhile [ $i -lt 15 ]; do echo "thinking $i"; i=$((i+1)); sleep 0.3; done\nsleep 60\n';

interface Row {
  readonly id: string;
  readonly awaited: boolean;
  readonly name: string;
  readonly state: string;
  readonly status: string | null;
  readonly command: string | null;
  readonly watchKey: string | null;
  readonly argv: string[];
  readonly cwd: string;
  readonly ringing: boolean;
  readonly todo: boolean;
  readonly notification: { source: string; title: string; body: string } | null;
}

/**
 * A stand-in TUI agent, named like a default rule too so `status` shows the detector: animates a frame every
 * 0.1 s from one process (a shell loop forks `sleep` per frame, which a loaded machine stretches past the
 * detector's 1 s candidate gap), asks for input with OSC 9 once the file named by $1 exists, animates on.
 */
const ANIMATING_AGENT = 'codex';
const ANIMATING_AGENT_SCRIPT = String.raw`#!/bin/sh
perl -e '$|=1; while (1) { print "frame\r"; select(undef, undef, undef, 0.1) }' &
while [ ! -e "$1" ]; do sleep .1; done
printf '\033]9;Need your input\007'
wait
`;

/** Prompts the shells' startup files set, so a test knows the line editor is ready for what it types. */
const BASH_PROMPT = 'bprompt13> ';
const ZSH_PROMPT = 'zprompt13> ';
/** How often a wait re-reads the session list (in-process, over the control socket: no CLI per poll). */
const POLL_MS = 100;

let daemon: BurrowDaemon;
/** One control connection for the test's own polling; the CLI is what is under test everywhere else. */
let control: ControlClient;

beforeAll(async () => {
  const home = mkdtempSync(join(tmpdir(), 'burrow-agent-home-'));
  writeFileSync(join(home, '.bashrc'), `PS1='${BASH_PROMPT}'\n`);
  writeFileSync(join(home, '.zshrc'), `PROMPT='${ZSH_PROMPT}'\n`);
  const bin = join(home, 'bin');
  mkdirSync(bin);
  for (const [name, script] of [
    [FAKE_AGENT, FAKE_AGENT_SCRIPT],
    [ANIMATING_AGENT, ANIMATING_AGENT_SCRIPT],
  ] as const) {
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
  }
  daemon = await BurrowDaemon.start({
    env: { HOME: home, PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` },
  });
  control = await connectDaemon(daemon.env);
});

afterAll(async () => {
  control?.close();
  await daemon?.stop();
});

/**
 * Upper bounds only (a wait returns as soon as its condition holds): generous, because on a loaded shared
 * machine one CLI start can take seconds.
 */
const WAIT_MS = 60_000;
const TEST_MS = 180_000;

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = WAIT_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function newSession(...argv: string[]): Promise<string> {
  const r = await daemon.cli('new', '--', ...argv);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

async function row(id: string): Promise<Row> {
  const { sessions } = (await control.request('list', {})) as { sessions: Row[] };
  const found = sessions.find((r) => r.id === id);
  if (found === undefined) throw new Error(`session ${id} is not listed`);
  return found;
}

async function waitRow(id: string, ok: (r: Row) => boolean, what: string, ms = WAIT_MS): Promise<Row> {
  let last: Row | undefined;
  await until(
    async () => {
      last = await row(id);
      return ok(last);
    },
    what,
    ms,
  );
  return last!;
}

/** `burrow attach <id>` in a real PTY, as a person runs it. */
async function attach(id: string) {
  const term = pty.spawn(process.execPath, [BURROW_BIN, 'attach', id], {
    cols: 100,
    rows: 30,
    env: daemon.env as Record<string, string>,
  });
  let out = '';
  term.onData((d) => {
    out += d;
  });
  const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
  await until(() => out.includes('\x1b[?1004h'), 'attach');
  return {
    output: () => out,
    write: (data: string) => term.write(data),
    /** Ctrl-B d, then the attach process must exit 0. */
    detach: async () => {
      term.write('\x02d');
      expect(await exited).toBe(0);
    },
    kill: () => term.kill(),
  };
}

describe.concurrent('issue 13 through the daemon', { timeout: TEST_MS }, () => {
  it('1, 2: `burrow new -- CMD` is awaited as its command: exit with code and command, exit status 7', async () => {
    const gate = join(mkdtempSync(join(tmpdir(), 'burrow-gate-')), 'go');
    // The loop, then held until the test opens the gate, so a slow machine cannot race it.
    const script = `for i in $(seq 15); do echo $i; sleep .2; done; while [ ! -e ${gate} ]; do sleep .1; done; exit 3`;
    const r = await daemon.cli('new', '--name', 'b13', '--', 'sh', '-c', script);
    const id = r.stdout.trim();
    // The -c script keys like the line it runs: its last command (issue 23).
    expect(await row(id)).toMatchObject({ command: `sh -c '${script}'`, watchKey: 'exit', state: 'running' });
    const awaiting = daemon.cli('await', 'b13', '--until', 'exit', '--json');
    await until(async () => (await row(id)).awaited, 'the await to park');
    // Past the 2 s grace window an idle await ends in: a running command holds it until it exits.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await row(id)).awaited).toBe(true);
    writeFileSync(gate, '');
    const awaited = await awaiting;
    expect(JSON.parse(awaited.stdout)).toEqual({
      session: id,
      cause: 'exit',
      exitCode: 3,
      command: `sh -c '${script}'`,
    });
    expect(awaited.code).toBe(7);
    // Later, the command has exited: the same answer at once, and the human line says it.
    const again = await daemon.cli('await', id, '--until', 'exit');
    expect(again.stdout.trim()).toMatch(/^exit \(code 3\): sh -c 'for i in \$\(seq 15\); do echo .{40,}…$/);
    expect(again.code).toBe(7);
    const ok = await newSession('sh', '-c', 'sleep 1; exit 0');
    const success = await daemon.cli('await', ok, '--until', 'exit', '--json');
    expect(success.code, success.stdout).toBe(0);
    expect(JSON.parse(success.stdout)).toMatchObject({ cause: 'exit', exitCode: 0 });
  });

  it('1: --until quiet on a command session waits for the command, not for a grace window', async () => {
    const gate = join(mkdtempSync(join(tmpdir(), 'burrow-gate-')), 'go');
    const id = await newSession('sh', '-c', `echo hi; while [ ! -e ${gate} ]; do sleep .1; done; exit 0`);
    const awaiting = daemon.cli('await', id, '--until', 'quiet', '--json');
    await until(async () => (await row(id)).awaited, 'the await to park');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await row(id)).awaited).toBe(true);
    writeFileSync(gate, '');
    const r = await awaiting;
    expect(JSON.parse(r.stdout)).toMatchObject({ cause: 'exit', exitCode: 0 });
    expect(r.code).toBe(0);
  });

  it('2: a shell session (no command of its own) that has ended answers died with its status', async () => {
    const shell = await newSession('/bin/sh'); // dash: no shell integration, so no command is ever known
    const term = await attach(shell);
    try {
      term.write('exit 5\r');
      await waitRow(shell, (r) => r.state === 'exited', 'the shell to exit');
    } finally {
      term.kill();
    }
    const quiet = await daemon.cli('await', shell, '--until', 'quiet', '--json');
    expect(JSON.parse(quiet.stdout)).toEqual({ session: shell, cause: 'died', exitCode: 5, command: null });
    expect(quiet.code).toBe(1);
    const exit = await daemon.cli('await', shell, '--until', 'exit');
    expect(exit.stdout.trim()).toBe('died (code 5)');
    expect(exit.code).toBe(7);
  });

  it('1: `burrow new -- claude` is WATCHING under the default rules and rings when it goes quiet', async () => {
    const id = await newSession(FAKE_AGENT);
    const first = await row(id);
    expect(first).toMatchObject({ command: FAKE_AGENT, watchKey: FAKE_AGENT });
    expect(first.status).not.toBe('WATCHING_DISABLED');
    const rung = await waitRow(id, (r) => r.ringing, 'the WATCHING ring');
    expect(rung.notification).toMatchObject({ source: 'watching', title: `${FAKE_AGENT} went quiet` });
  });

  it('1: a command typed into an integrated shell (attached in a real PTY) is awaited the same way', async () => {
    const gate = join(mkdtempSync(join(tmpdir(), 'burrow-gate-')), 'go');
    const typed = `sh -c 'while [ ! -e ${gate} ]; do sleep .1; done; exit 3'`;
    const id = await newSession('/bin/bash');
    const term = await attach(id);
    try {
      await until(() => term.output().includes(BASH_PROMPT), 'the bash prompt');
      term.write(`${typed}\r`);
      await waitRow(id, (r) => r.command !== null, 'the typed command');
      const awaiting = daemon.cli('await', id, '--until', 'exit', '--json');
      await until(async () => (await row(id)).awaited, 'the await to park');
      writeFileSync(gate, '');
      const r = await awaiting;
      expect(JSON.parse(r.stdout)).toEqual({ session: id, cause: 'exit', exitCode: 3, command: typed });
      expect(r.code).toBe(7);
      await term.detach();
    } finally {
      term.kill();
    }
  });

  it('3: a report after printable output in one read rings again after a dismiss', async () => {
    const gate = join(mkdtempSync(join(tmpdir(), 'burrow-gate-')), 'go');
    // The repro, with its `sleep 2.5` replaced by a gate the test opens after the dismiss.
    const id = await newSession(
      'sh',
      '-c',
      `printf '\\a'; while [ ! -e ${gate} ]; do sleep .1; done; ` +
        String.raw`printf 'more output\r\n\033]9;Second report\007'; sleep 60`,
    );
    await waitRow(id, (r) => r.ringing, 'the first ring');
    expect((await daemon.cli('dismiss', id)).code).toBe(0);
    expect(await row(id)).toMatchObject({ ringing: false, todo: true });
    writeFileSync(gate, '');
    const second = await waitRow(id, (r) => r.ringing, 'the second ring');
    expect(second.notification).toMatchObject({ source: 'osc9', body: 'Second report' });
  });

  it('4: a report that arrives while attached and is not answered is a TODO after the detach', async () => {
    const id = await newSession(
      'sh',
      '-c',
      // The request comes 1.5 s after the Enter that starts it: past the echo window of that keystroke.
      String.raw`read go; sleep 1.5; printf '\033]9;Proceed with the migration?\007'; sleep 60`,
    );
    const term = await attach(id);
    try {
      term.write('\r'); // typing happens before the request, never after it
      await until(() => term.output().includes('\x1b]9;Proceed'), 'the request on the attached screen');
      // Looked at: held, never public while looking.
      expect(await row(id)).toMatchObject({ ringing: false, todo: false });
      await term.detach();
    } finally {
      term.kill();
    }
    const after = await waitRow(id, (r) => r.todo, 'the TODO');
    expect(after).toMatchObject({
      ringing: false,
      notification: { source: 'osc9', body: 'Proceed with the migration?' },
    });
  });

  it('5: an explicit request from an animating TUI rings at once, while it still animates', async () => {
    const gate = join(mkdtempSync(join(tmpdir(), 'burrow-gate-')), 'go');
    const id = await newSession(ANIMATING_AGENT, gate);
    await waitRow(id, (r) => r.status === 'BUSY', 'the animation to be BUSY');
    writeFileSync(gate, '');
    // Deferred until quiet it would wait for the 30 s ceiling: the animation never stops.
    const rung = await waitRow(id, (r) => r.ringing, 'the ring', ALERT_TIMING.deferCeiling / 2);
    expect(rung.notification).toMatchObject({ source: 'osc9', body: 'Need your input' });
    await daemon.cli('kill', id);
  });

  it('6: progress without a percent starts a cycle; a percent over 100 completes it', async () => {
    const id = await newSession(
      'sh',
      '-c',
      String.raw`printf '\033]9;4;1\007'; sleep 1.5; printf '\033]9;4;1;150\007'; sleep 60`,
    );
    await waitRow(id, (r) => r.status === 'OSC_NOTIF_BUSY', 'the progress cycle');
    const done = await waitRow(id, (r) => r.ringing, 'the completion');
    expect(done.notification).toMatchObject({ source: 'progress', body: 'Progress 100%' });
  });

  it('6: an OSC 99 p=close withdraws the ring it raised', async () => {
    const id = await newSession(
      'sh',
      '-c',
      String.raw`printf '\033]99;i=perm;Allow Bash?\033\\'; sleep 2; printf '\033]99;i=perm:p=close;\033\\'; sleep 60`,
    );
    await waitRow(id, (r) => r.ringing, 'the ring');
    const closed = await waitRow(id, (r) => !r.ringing, 'the withdrawal');
    expect(closed.todo).toBe(false);
  });

  it('6: CurrentDir / Cwd move the directory; C2 9C ends an OSC; base64 and title lines read right', async () => {
    const b64 = Buffer.from('Claude asks').toString('base64'); // cut at 5: not a multiple of 4
    const id = await newSession(
      'sh',
      '-c',
      String.raw`printf '\033]1337;CurrentDir=/tmp\007'; sleep 1; printf '\033]633;P;Cwd=/\007'; ` +
        String.raw`sleep 1; printf '\033]9;eight-bit ST\302\234'; sleep 1; ` +
        `printf '\\033]99;i=b:e=1:d=0;${b64.slice(0, 5)}\\033\\\\\\033]99;i=b:e=1;${b64.slice(5)}\\033\\\\'; sleep 1; ` +
        String.raw`printf '\033]9;\n\nClaude Code:\nClaude needs your permission\007'; sleep 60`,
    );
    await waitRow(id, (r) => r.cwd === '/tmp', 'OSC 1337 CurrentDir');
    await waitRow(id, (r) => r.cwd === '/', 'OSC 633 P;Cwd');
    await waitRow(id, (r) => r.notification?.body === 'eight-bit ST', 'the C2 9C-terminated OSC 9');
    await waitRow(id, (r) => r.notification?.title === 'Claude asks', 'the base64 OSC 99 title');
    const last = await waitRow(id, (r) => r.notification?.title === 'Claude Code', "Claude's title line");
    expect(last.notification).toMatchObject({ body: 'Claude needs your permission' });
  });

  it('6: a zsh multi-line command keys on its last command', async () => {
    const id = await newSession('/usr/bin/zsh');
    const term = await attach(id);
    try {
      await until(() => term.output().includes(ZSH_PROMPT), 'the zsh prompt');
      term.write('cd /tmp\x16\nsleep 5\r'); // Ctrl-V Ctrl-J: a literal newline in zsh's line editor
      const running = await waitRow(id, (r) => r.command !== null, 'the command');
      expect(running).toMatchObject({ command: 'cd /tmp\nsleep 5', watchKey: 'sleep' });
      await term.detach();
    } finally {
      term.kill();
    }
  });

  it('6: `ls` lists what needs you first, in words; `new --json` has the fields `ls --json` has', async () => {
    const made = await daemon.cli('new', '--name', 'quiet13', '--json', '--', 'sleep', '60');
    const created = JSON.parse(made.stdout) as Row;
    expect(created).toMatchObject({ name: 'quiet13', state: 'running', argv: ['sleep', '60'] });
    expect(created.status).toBe((await row(created.id)).status);
    const ringer = await newSession('sh', '-c', String.raw`printf '\033]9;Look at me\007'; sleep 60`);
    const todo = await newSession('sleep', '60');
    await daemon.cli('todo', todo, 'on');
    await waitRow(ringer, (r) => r.ringing, 'the ring');
    const table = (await daemon.cli('ls')).stdout.split('\n');
    expect(table[0]).toMatch(/^ID\s+NAME\s+STATE\s+STATUS\s+VIEWERS\s+COMMAND$/);
    expect(table.join('\n')).not.toContain('WATCHING_DISABLED');
    const at = (id: string) => table.findIndex((l) => l.startsWith(id));
    expect(table[at(ringer)]).toContain('RINGING Look at me');
    expect(table[at(todo)]).toContain('TODO');
    expect(at(ringer)).toBeLessThan(at(todo));
    expect(at(todo)).toBeLessThan(at(created.id));
  });
});
