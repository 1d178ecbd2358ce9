/**
 * `burrow attach` as a person runs it: the real CLI in a real PTY, its output drawn by a headless xterm that
 * stands for the person's terminal (xterm.js is VS Code's terminal). For tests that read what the person sees
 * after attaching — the agent's screen, and what the terminal keeps above it.
 */
import xtermHeadless from '@xterm/headless';
import * as pty from 'node-pty';
import { BURROW_BIN } from '../helpers/burrow-daemon.js';
import { screenText } from './screen-text.js';

const { Terminal } = xtermHeadless;
type Buffer = InstanceType<typeof Terminal>['buffer']['normal'];
const POLL_MS = 100;
/** The CLI's output kept to say what it wrote when it failed to attach (the tail). */
const RAW_TAIL_CHARS = 16 * 1024;
/** What `burrow attach` asks of the terminal once it attached: focus reports. */
const ATTACHED = '\x1b[?1004h';

/** Row y of `buffer` and the rows it wrapped onto, as one line. */
function logicalLine(buffer: Buffer, y: number): string {
  let text = '';
  for (let at = y; at < buffer.length; at++) {
    const next = buffer.getLine(at + 1);
    const wraps = next?.isWrapped === true;
    text += buffer.getLine(at)?.translateToString(!wraps) ?? '';
    if (!wraps) break;
  }
  return text;
}

export class AttachTerminal {
  readonly #term: InstanceType<typeof Terminal>;
  readonly #proc: pty.IPty;
  readonly #exited: Promise<number>;
  #raw = '';
  #attached = false;

  private constructor(env: NodeJS.ProcessEnv, session: string, cols: number, rows: number) {
    this.#term = new Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true });
    this.#proc = pty.spawn(process.execPath, [BURROW_BIN, 'attach', session], {
      cols,
      rows,
      env: env as Record<string, string>,
    });
    this.#proc.onData((d) => {
      const raw = this.#raw + d;
      if (raw.includes(ATTACHED)) this.#attached = true;
      this.#raw = raw.slice(-RAW_TAIL_CHARS);
      this.#term.write(d);
    });
    // The person's terminal answers what the program asks it, through the CLI.
    this.#term.onData((reply) => this.#proc.write(reply));
    this.#exited = new Promise((r) => this.#proc.onExit(({ exitCode }) => r(exitCode)));
  }

  /** Starts `burrow attach session` and waits until it attached (it asks for focus reports once it has). */
  static async open(
    env: NodeJS.ProcessEnv,
    session: string,
    size: { cols: number; rows: number },
    ms = 30_000,
  ): Promise<AttachTerminal> {
    const t = new AttachTerminal(env, session, size.cols, size.rows);
    const end = Date.now() + ms;
    while (!t.#attached) {
      if (Date.now() > end) {
        t.#proc.kill();
        throw new Error(
          `burrow attach ${session} did not attach in ${ms} ms; the end of what it wrote:\n${t.#raw}`,
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return t;
  }

  /** The screen the person sees (the active buffer's rows). */
  async screen(): Promise<string> {
    await new Promise<void>((r) => this.#term.write('', r));
    return screenText(this.#term);
  }

  /** The first line the terminal holds on its normal screen: the top of its scrollback. */
  async firstLine(): Promise<string> {
    await new Promise<void>((r) => this.#term.write('', r));
    return logicalLine(this.#term.buffer.normal, 0);
  }

  /** Ctrl-B d; resolves with the CLI's exit code. */
  async detach(): Promise<number> {
    this.#proc.write('\x02d');
    const timer = setTimeout(() => this.#proc.kill(), 10_000);
    try {
      return await this.#exited;
    } finally {
      clearTimeout(timer);
      this.#term.dispose();
    }
  }
}
