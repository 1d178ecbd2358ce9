/**
 * A local viewer of a Burrow session, for tests that drive an agent through a real daemon: the control
 * socket's attach stream (what `burrow attach` uses), rendered by a headless xterm, with the raw bytes kept.
 * With `fromStart` it asks for the session's output from byte 0 (the daemon still holds the first
 * OUTPUT_KEEP_BYTES), so a test can read the session's very first line.
 */
import xtermHeadless from '@xterm/headless';
import { connectDaemon } from '../../burrow-agent/src/cli/daemon-connection.js';
import type { ControlClient } from '../../burrow-agent/src/control/control-client.js';
import { screenText } from './screen-text.js';

const { Terminal } = xtermHeadless;
const POLL_MS = 100;

export class BurrowViewer {
  readonly #term: InstanceType<typeof Terminal>;
  readonly #client: ControlClient;
  #raw = '';
  #ended = false;

  private constructor(client: ControlClient, cols: number, rows: number) {
    this.#client = client;
    this.#term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
    // A person's terminal answers what the program asks it (DA1, cursor position, colours).
    this.#term.onData((reply) => {
      if (!this.#ended) this.#client.input(Buffer.from(reply));
    });
  }

  static async attach(
    env: NodeJS.ProcessEnv,
    session: string,
    options: { cols?: number; rows?: number; fromStart?: boolean } = {},
  ): Promise<BurrowViewer> {
    const cols = options.cols ?? 120;
    const rows = options.rows ?? 40;
    const client = await connectDaemon(env);
    const viewer = new BurrowViewer(client, cols, rows);
    await client.attach(
      { session, cols, rows, ...(options.fromStart === true ? { resumeFrom: 0 } : {}) },
      {
        snapshot: (_header, data) => viewer.#term.write(data),
        output: (_offset, data) => {
          viewer.#raw += Buffer.from(data).toString('utf8');
          viewer.#term.write(data);
        },
        event: () => {},
        end: () => {
          viewer.#ended = true;
        },
      },
    );
    return viewer;
  }

  /** The bytes received as output (not the snapshot), decoded. */
  get raw(): string {
    return this.#raw;
  }

  screen(): string {
    return screenText(this.#term);
  }

  async waitForScreen(re: RegExp, what: string, ms = 60_000): Promise<void> {
    const end = Date.now() + ms;
    for (;;) {
      await new Promise<void>((r) => this.#term.write('', r));
      if (re.test(this.screen())) return;
      if (this.#ended) throw new Error(`the session ended before ${what}; screen:\n${this.screen()}`);
      if (Date.now() > end)
        throw new Error(`timed out after ${ms} ms waiting for ${what}; screen:\n${this.screen()}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Types like a person: the characters 15 ms apart, then Enter (a burst reads as a paste to some agents). */
  async typeLine(text: string): Promise<void> {
    for (const ch of text) {
      this.#client.input(Buffer.from(ch));
      await new Promise((r) => setTimeout(r, 15));
    }
    await new Promise((r) => setTimeout(r, 300));
    this.#client.input(Buffer.from('\r'));
  }

  close(): void {
    this.#ended = true;
    try {
      this.#client.send({ type: 'detach' });
    } catch {}
    this.#client.close();
    this.#term.dispose();
  }
}
