/**
 * One agent in a real PTY (node-pty), its output kept two ways: every raw chunk with its arrival time (for
 * terminal-signals.ts) and a headless xterm that renders the screen (agents draw with cursor moves and
 * synchronized output, so their words are only in the rendered screen, never reliably in the byte stream).
 *
 * `answerQueries` decides whether the headless xterm answers what the agent asks the terminal (DA1, cursor
 * position, …) the way an attached terminal would. A Burrow session nobody is looking at answers nothing, so
 * tests of "nobody looking" leave it off (the default).
 */
import { readdirSync, readFileSync } from 'node:fs';
import xtermHeadless from '@xterm/headless';
import * as pty from 'node-pty';
import type { AgentLaunch } from './launch/index.js';
import { screenText } from './screen-text.js';
import { type Chunk, scanSignals, type TerminalSignal } from './terminal-signals.js';

const { Terminal } = xtermHeadless;

/** Raw output kept per agent (bytes as UTF-16 code units); an agent run writes a few hundred KB. */
export const MAX_RAW_CHARS = 32 * 1024 * 1024;
const POLL_MS = 100;
/** After SIGTERM to the process group, how long before SIGKILL. */
const KILL_GRACE_MS = 3_000;

/**
 * Process groups of agents still running: killed when this process exits, so an agent does not outlive a
 * script that crashed or lost its stdout. (Vitest may end a worker without exit handlers; tests call kill().)
 */
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pid of liveGroups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  }
});

export interface TerminalSize {
  readonly cols: number;
  readonly rows: number;
}

export class AgentTerminal {
  readonly chunks: Chunk[] = [];
  readonly #term: InstanceType<typeof Terminal>;
  readonly #pty: pty.IPty;
  readonly #started = Date.now();
  #rawChars = 0;
  #exit: { exitCode: number; signal?: number } | undefined;
  readonly exited: Promise<{ exitCode: number; signal?: number }>;

  private constructor(
    readonly launch: AgentLaunch,
    size: TerminalSize,
    answerQueries: boolean,
  ) {
    this.#term = new Terminal({ cols: size.cols, rows: size.rows, allowProposedApi: true, scrollback: 1000 });
    const [file, ...args] = launch.argv;
    this.#pty = pty.spawn(file!, args, {
      name: launch.env.TERM ?? 'xterm-256color',
      cols: size.cols,
      rows: size.rows,
      cwd: launch.cwd,
      env: { ...launch.env },
    });
    this.#pty.onData((data) => {
      this.#rawChars += data.length;
      if (this.#rawChars <= MAX_RAW_CHARS) this.chunks.push({ at: this.now(), data });
      this.#term.write(data);
    });
    liveGroups.add(this.#pty.pid);
    if (answerQueries) this.#term.onData((reply) => this.#pty.write(reply));
    this.exited = new Promise((resolve) =>
      this.#pty.onExit((e) => {
        this.#exit = e;
        resolve(e);
      }),
    );
  }

  static spawn(
    launch: AgentLaunch,
    options: { size?: TerminalSize; answerQueries?: boolean } = {},
  ): AgentTerminal {
    return new AgentTerminal(launch, options.size ?? { cols: 120, rows: 40 }, options.answerQueries ?? false);
  }

  get pid(): number {
    return this.#pty.pid;
  }

  /** Milliseconds since the spawn. */
  now(): number {
    return Date.now() - this.#started;
  }

  /** The visible screen as text, one line per row, trailing spaces trimmed. */
  screen(): string {
    return screenText(this.#term);
  }

  /** Resolves with the time (ms since spawn) the rendered screen first matched `re`. */
  async waitForScreen(re: RegExp, what: string, ms = 60_000): Promise<number> {
    const end = Date.now() + ms;
    for (;;) {
      await new Promise<void>((r) => this.#term.write('', r)); // let xterm finish what it was given
      if (re.test(this.screen())) return this.now();
      if (this.#exit !== undefined) {
        throw new Error(
          `${this.launch.agent} exited (${JSON.stringify(this.#exit)}) before ${what}; screen:\n${this.screen()}`,
        );
      }
      if (Date.now() > end)
        throw new Error(
          `timed out after ${ms} ms waiting for ${what}; ${this.launch.agent}'s screen:\n${this.screen()}`,
        );
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  write(data: string): void {
    this.#pty.write(data);
  }

  /** Types `text` as a person would (the text, a pause, then Enter): pasted-looking input is handled apart by some agents. */
  async typeLine(text: string): Promise<void> {
    for (const ch of text) {
      this.#pty.write(ch);
      await new Promise((r) => setTimeout(r, 15));
    }
    await new Promise((r) => setTimeout(r, 300));
    this.#pty.write('\r');
  }

  signals(): TerminalSignal[] {
    return scanSignals(this.chunks);
  }

  /** The raw output between two times, for a report. */
  raw(from = 0, to = Number.POSITIVE_INFINITY): string {
    return this.chunks
      .filter((c) => c.at >= from && c.at < to)
      .map((c) => c.data)
      .join('');
  }

  /**
   * Ends the agent and everything it started: SIGTERM to its process group, SIGKILL after a grace period,
   * then any process still running with this launch's HOME in its environment (agents that detach helpers
   * into a session of their own — e.g. Codex's app-server daemon when run without --no-daemon). The HOME is
   * a directory this test created, so only this launch's processes match.
   */
  async kill(): Promise<void> {
    const group = -this.#pty.pid;
    if (this.#exit === undefined) {
      try {
        process.kill(group, 'SIGTERM');
      } catch {}
      const gone = await Promise.race([
        this.exited.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), KILL_GRACE_MS)),
      ]);
      if (!gone) {
        try {
          process.kill(group, 'SIGKILL');
        } catch {}
        await this.exited;
      }
    }
    try {
      process.kill(group, 'SIGKILL'); // children that stayed in the group after the leader exited
    } catch {}
    liveGroups.delete(this.#pty.pid);
    for (const pid of processesWithHome(this.launch.env.HOME!)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    this.#term.dispose();
  }
}

/** Pids (Linux /proc) of processes whose environment has HOME=`home` exactly. */
export function processesWithHome(home: string): number[] {
  const needle = `\0HOME=${home}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = `\0${readFileSync(`/proc/${entry}/environ`, 'latin1')}`;
      if (env.includes(needle)) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}
