/**
 * The shipped scripts in real shells on real PTYs: each shell starts with a temporary HOME whose own startup
 * files define an alias, a function and a custom prompt; the nonce goes to the script in its one-time file
 * (nonce-file.ts), the PTY's bytes go through the real TerminalParser with that nonce, and the events must
 * describe exactly the commands typed.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import type { TerminalEvent } from '../terminal/index.js';
import { TerminalParser } from '../terminal/index.js';
import { defaultIntegrationDir } from './integration-dir.js';
import { shellIntegrationLaunch } from './launch.js';
import { createShellNonce } from './nonce.js';
import { type NonceFile, writeNonceFile } from './nonce-file.js';

/** Longest wait for one command's events (or the first prompt). */
const STEP_TIMEOUT_MS = 5000;

type Shell = 'bash' | 'zsh' | 'fish';

const RC: Record<Shell, Record<string, string>> = {
  bash: {
    '.bashrc': ["alias ll='echo ALIAS_OK'", 'greet() { echo "FUNC_OK $1"; }', "PS1='bcustom> '"].join('\n'),
  },
  zsh: {
    '.zshrc': ["alias ll='echo ALIAS_OK'", 'greet() { echo "FUNC_OK $1"; }', "PROMPT='zcustom> '"].join('\n'),
  },
  fish: {
    '.config/fish/config.fish': [
      'set -g fish_greeting',
      "alias ll='echo ALIAS_OK'",
      'function greet; echo "FUNC_OK $argv[1]"; end',
      "function fish_prompt; printf 'fcustom> '; end",
    ].join('\n'),
  },
};

const PROMPT_TEXT: Record<Shell, string> = { bash: 'bcustom> ', zsh: 'zcustom> ', fish: 'fcustom> ' };
/** A command that exits 3 after a pause, in a subshell (fish has no subshell syntax; sh -c is one). */
const SUBSHELL_EXIT_3: Record<Shell, string> = {
  bash: '(sleep 0.2; exit 3)',
  zsh: '(sleep 0.2; exit 3)',
  fish: "sh -c 'sleep 0.2; exit 3'",
};

class ShellUnderTest {
  readonly events: TerminalEvent[] = [];
  text = '';
  readonly #proc: pty.IPty;
  readonly #parser: TerminalParser;
  readonly #nonceFile: NonceFile;
  #wake: (() => void) | null = null;

  constructor(
    shell: Shell,
    readonly home: string,
    readonly nonce: string,
    args: readonly string[],
    extraEnv: Record<string, string>,
  ) {
    const nonceFile = writeNonceFile(nonce);
    this.#nonceFile = nonceFile;
    const launch = shellIntegrationLaunch({
      shellPath: `/usr/bin/${shell}`,
      args,
      env: {
        HOME: home,
        PATH: process.env.PATH,
        LANG: 'C.UTF-8',
        TERM: 'xterm-256color',
        USER: 'burrow',
        ...extraEnv,
      },
      nonceFile: nonceFile.path,
      integrationDir: defaultIntegrationDir(),
    });
    expect(launch.integrated).toBe(true);
    this.#parser = new TerminalParser({ nonce, now: () => 0 });
    this.#proc = pty.spawn(launch.file, [...launch.args], {
      name: 'xterm-256color',
      cols: 200,
      rows: 40,
      cwd: home,
      env: launch.env,
      encoding: null,
    } as pty.IPtyForkOptions);
    this.#proc.onData((data: string | Buffer) => {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      this.text += bytes.toString('utf8');
      this.events.push(...this.#parser.feed(bytes).filter((e) => e.type !== 'output'));
      this.#wake?.();
    });
  }

  async until(done: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out waiting for ${what}; output so far: ${JSON.stringify(this.text)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Waits for a prompt that is ready for input (B after the events seen since `from`). */
  async prompt(from: number): Promise<void> {
    await this.until(() => this.events.slice(from).some((e) => e.type === 'command-input-start'), 'a prompt');
  }

  /** Types `line`, waits for the next ready prompt, and returns the events and text in between. */
  async run(line: string): Promise<{ events: TerminalEvent[]; text: string }> {
    const from = this.events.length;
    const textFrom = this.text.length;
    this.#proc.write(`${line}\r`);
    await this.until(
      () => {
        const after = this.events.slice(from);
        const end = after.findIndex((e) => e.type === 'command-end');
        return end >= 0 && after.slice(end).some((e) => e.type === 'command-input-start');
      },
      `the command ${JSON.stringify(line)} to finish`,
    );
    return { events: this.events.slice(from), text: this.text.slice(textFrom) };
  }

  write(data: string): void {
    this.#proc.write(data);
  }

  get pid(): number {
    return this.#proc.pid;
  }

  kill(): void {
    this.#nonceFile.dispose();
    try {
      this.#proc.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

const live: ShellUnderTest[] = [];
const homes: string[] = [];

afterEach(() => {
  for (const s of live.splice(0)) s.kill();
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

interface StartOptions {
  /** Startup files to write into HOME instead of the shell's usual ones; `{HOME}` is replaced by its path. */
  readonly files?: Record<string, string>;
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
}

async function start(shell: Shell, options: StartOptions = {}): Promise<ShellUnderTest> {
  const home = mkdtempSync(join(tmpdir(), `burrow-si-${shell}-`));
  homes.push(home);
  for (const [file, text] of Object.entries(options.files ?? RC[shell])) {
    mkdirSync(join(home, file, '..'), { recursive: true });
    writeFileSync(join(home, file), `${text.replaceAll('{HOME}', home)}\n`);
  }
  const env = Object.fromEntries(
    Object.entries(options.env ?? {}).map(([k, v]) => [k, v.replaceAll('{HOME}', home)]),
  );
  const s = new ShellUnderTest(shell, home, createShellNonce(), options.args ?? [], env);
  live.push(s);
  await s.prompt(0);
  return s;
}

/** The command-start and command-end events of one command, in order, without the prompt marks. */
function commandMarks(events: readonly TerminalEvent[]): TerminalEvent[] {
  return events.filter((e) => e.type === 'command-start' || e.type === 'command-end');
}

describe.each(['bash', 'zsh', 'fish'] as const)('%s with Burrow shell integration', (shell) => {
  it('reports each command line, signed, with its exit code, and keeps the user prompt, alias and function', async () => {
    const s = await start(shell);
    expect(s.text).toContain(PROMPT_TEXT[shell]);
    const first = s.events.map((e) => e.type);
    expect(first.indexOf('prompt-start')).toBeGreaterThanOrEqual(0);
    expect(first.indexOf('prompt-start')).toBeLessThan(first.indexOf('command-input-start'));

    const hi = await s.run('echo hi');
    expect(commandMarks(hi.events)).toEqual([
      { type: 'command-start', commandLine: 'echo hi' },
      { type: 'command-end', exitCode: 0 },
    ]);
    const order = hi.events.map((e) => e.type);
    expect(order.indexOf('command-end')).toBeLessThan(order.lastIndexOf('prompt-start'));
    expect(order.lastIndexOf('prompt-start')).toBeLessThan(order.lastIndexOf('command-input-start'));
    expect(hi.text).toContain('hi');

    expect(commandMarks((await s.run('false')).events)).toEqual([
      { type: 'command-start', commandLine: 'false' },
      { type: 'command-end', exitCode: 1 },
    ]);
    expect(commandMarks((await s.run(SUBSHELL_EXIT_3[shell])).events)).toEqual([
      { type: 'command-start', commandLine: SUBSHELL_EXIT_3[shell] },
      { type: 'command-end', exitCode: 3 },
    ]);

    const tricky = 'echo \'a;b\' "h\u00e9llo \u2713" back\\\\slash';
    const trickyRun = await s.run(tricky);
    expect(commandMarks(trickyRun.events)).toEqual([
      { type: 'command-start', commandLine: tricky },
      { type: 'command-end', exitCode: 0 },
    ]);
    expect(trickyRun.text).toContain('a;b h\u00e9llo \u2713');

    const alias = await s.run('ll');
    expect(alias.text).toContain('ALIAS_OK');
    expect(commandMarks(alias.events)[0]).toEqual({
      type: 'command-start',
      commandLine: 'll',
    });
    expect((await s.run('greet there')).text).toContain('FUNC_OK there');
    expect(s.text.split(PROMPT_TEXT[shell]).length).toBeGreaterThan(7);
  }, 30_000);

  it('keeps the nonce out of every environment, removes its file, and a program forging marks changes nothing', async () => {
    const s = await start(shell);
    const env = await s.run("env | grep -E '^(BURROW_|ZDOTDIR=|XDG_DATA_DIRS=)' || echo CLEAN_ENV");
    expect(env.text).toContain('CLEAN_ENV');
    // The shell's own initial environment (what /proc/<pid>/environ keeps) holds only the file's path...
    const initial = readFileSync(`/proc/${s.pid}/environ`, 'utf8');
    expect(initial).not.toContain(s.nonce);
    const file = /BURROW_SHELL_NONCE_FILE=([^\0]+)/.exec(initial)?.[1];
    expect(file).toBeDefined();
    // ...and the script removed that file before the first prompt.
    expect(existsSync(file!)).toBe(false);

    // A program prints the shell's marks itself: unsigned, with a guessed nonce, 133 (fish 4's, kitty's).
    const forged = await s.run(
      "/usr/bin/printf '\\033]633;E;rm -rf /;%s\\007\\033]633;C;%s\\007\\033]633;E;rm -rf /\\007\\033]633;C\\007\\033]133;C;cmdline_url=rm\\007\\033]133;D;0\\007\\033]633;D;0\\007' 0123456789abcdef0123456789abcdef 0123456789abcdef0123456789abcdef",
    );
    expect(commandMarks(forged.events)).toEqual([
      { type: 'command-start', commandLine: expect.stringMatching(/^\/usr\/bin\/printf /) },
      { type: 'command-end', exitCode: 0 },
    ]);
  }, 30_000);

  it('reports no command for an empty line', async () => {
    const s = await start(shell);
    const from = s.events.length;
    s.write('\r');
    await s.prompt(from);
    expect(commandMarks(s.events.slice(from))).toEqual([]);
    expect(s.events.slice(from).map((e) => e.type)).toContain('prompt-start');
  }, 30_000);

  it('reports the working directory after cd', async () => {
    const s = await start(shell);
    const dir = join(s.home, 'd\u00efr;x');
    mkdirSync(dir);
    const cd = await s.run(`cd '${dir}'`);
    // OSC 7 and 633;P;Cwd= both say it; the parser reads both as the working directory (issue 13).
    expect(cd.events.filter((e) => e.type === 'cwd')).toEqual([
      { type: 'cwd', cwd: dir },
      { type: 'cwd', cwd: dir },
    ]);
  }, 30_000);
});

describe('bash specifics', () => {
  it('names a line the history did not keep by its first simple command, and ignores an empty line', async () => {
    const s = await start('bash', {
      files: { '.bashrc': "set -u\nHISTCONTROL=ignorespace\nPS1='bcustom> '" },
    });
    const hidden = await s.run(' echo hidden; echo more');
    expect(commandMarks(hidden.events)).toEqual([
      { type: 'command-start', commandLine: 'echo hidden' },
      { type: 'command-end', exitCode: 0 },
    ]);
    const from = s.events.length;
    s.write('\r');
    await s.prompt(from);
    expect(commandMarks(s.events.slice(from))).toEqual([]);
    expect(commandMarks((await s.run('true')).events)).toEqual([
      { type: 'command-start', commandLine: 'true' },
      { type: 'command-end', exitCode: 0 },
    ]);
  }, 30_000);

  it('keeps the user PROMPT_COMMAND and DEBUG trap, and reads the profile chain for a login shell', async () => {
    const s = await start('bash', {
      args: ['-l'],
      files: {
        '.bash_profile': [
          "PS1='login> '",
          "PROMPT_COMMAND='echo PC_OK:$?'",
          "trap 'echo DEBUG_OK >/dev/null; USER_TRAP_RAN=1' DEBUG",
        ].join('\n'),
        '.bashrc': 'echo BASHRC_MUST_NOT_LOAD',
      },
    });
    expect(s.text).toContain('login> ');
    expect(s.text).not.toContain('BASHRC_MUST_NOT_LOAD');
    const run = await s.run('(exit 4)');
    expect(commandMarks(run.events)).toEqual([
      { type: 'command-start', commandLine: '(exit 4)' },
      { type: 'command-end', exitCode: 4 },
    ]);
    expect(run.text).toContain('PC_OK:4');
    expect((await s.run('echo "trap:$USER_TRAP_RAN"')).text).toContain('trap:1');
  }, 30_000);
});

describe('zsh specifics', () => {
  it('sources every startup file of a login shell from the user ZDOTDIR and leaves ZDOTDIR as it was', async () => {
    const s = await start('zsh', {
      args: ['-l'],
      env: { ZDOTDIR: '{HOME}/zconf' },
      files: {
        'zconf/.zshenv': 'setopt nounset\nexport ZSHENV_OK=1',
        'zconf/.zprofile': 'export ZPROFILE_OK=1',
        'zconf/.zshrc': 'PROMPT=\'zlogin> \'\nprecmd() { echo "PRECMD_OK:$?" }',
        'zconf/.zlogin': 'export ZLOGIN_OK=1',
        '.zshrc': 'echo HOME_ZSHRC_MUST_NOT_LOAD',
      },
    });
    expect(s.text).toContain('zlogin> ');
    expect(s.text).not.toContain('HOME_ZSHRC_MUST_NOT_LOAD');
    const run = await s.run('echo "$ZSHENV_OK$ZPROFILE_OK$ZLOGIN_OK:$ZDOTDIR"; (exit 5)');
    expect(run.text).toContain(`111:${s.home}/zconf`);
    expect(run.text).toContain('PRECMD_OK:5');
    expect(commandMarks(run.events).at(-1)).toEqual({ type: 'command-end', exitCode: 5 });
  }, 30_000);
});

describe('zsh multi-line command lines (issue 13)', () => {
  it('keeps the line break, so the last command keys the line', async () => {
    const s = await start('zsh');
    // Ctrl-V Ctrl-J inserts a literal newline into zsh's line editor: one command line of two lines.
    const run = await s.run('cd /tmp\x16\ntrue');
    expect(commandMarks(run.events)[0]).toEqual({
      type: 'command-start',
      commandLine: 'cd /tmp\ntrue',
    });
  }, 30_000);
});

describe('fish specifics', () => {
  it('puts XDG_DATA_DIRS back as the user had it', async () => {
    const s = await start('fish', { env: { XDG_DATA_DIRS: '/usr/local/share:/usr/share' } });
    expect((await s.run('echo "xdg=$XDG_DATA_DIRS"')).text).toContain('xdg=/usr/local/share:/usr/share\r');
  }, 30_000);
});
