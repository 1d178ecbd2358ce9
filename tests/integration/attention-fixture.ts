/**
 * Shared setup for the attention integration tests: a real SessionRegistry spawning real shells on real PTYs
 * (with Burrow's shell integration), the real parser and engine inside a real AttentionHost, a temporary HOME
 * whose startup files set a known prompt, and a temporary state directory. Nothing is faked: time is the wall
 * clock, so every wait is bounded and polls the host's view.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TextDecoder } from 'node:util';
import { AttentionHost } from '../../burrow-agent/src/attention-host/index.js';
import type { Session } from '../../burrow-agent/src/session/session.js';
import { SessionRegistry } from '../../burrow-agent/src/session/session-registry.js';
import { ensureOwnerOnlyDir } from '../../burrow-agent/src/state/state-dir.js';
import type { Attachment, ViewerSink } from '../../burrow-agent/src/viewer/viewer.js';

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

/** The prompt each shell's startup file sets, so a test can wait for it. */
export const PROMPT: Record<Shell, string> = { bash: 'bprompt> ', zsh: 'zprompt> ', fish: 'fprompt> ' };

/** A watched program: prints a line every 0.3 s for 6 s (well past BUSY, echo window included), then sits quiet. */
export const BUSY_PROGRAM = 'burrowbusy';
const BUSY_SCRIPT =
  '#!/bin/sh\ni=0\nwhile [ $i -lt 20 ]; do echo "tick $i"; i=$((i+1)); sleep 0.3; done\nsleep 60\n';

/** A command that exits 3 after two seconds, in each shell's syntax (fish has no subshell; sh -c is one). */
export const EXIT_3_AFTER_2S: Record<Shell, string> = {
  bash: '(sleep 2; exit 3)',
  zsh: '(sleep 2; exit 3)',
  fish: "sh -c 'sleep 2; exit 3'",
};

const RC_FILES: Record<Shell, Record<string, string>> = {
  bash: { '.bashrc': `PS1='${PROMPT.bash}'\n` },
  zsh: { '.zshrc': `PROMPT='${PROMPT.zsh}'\n` },
  fish: {
    '.config/fish/config.fish': `set -g fish_greeting\nfunction fish_prompt; printf '${PROMPT.fish}'; end\n`,
  },
};

export interface PushRecord {
  readonly sessionId: string;
  readonly episodeId: string;
  readonly body: string | null;
}

export class AttentionFixture {
  readonly registry: SessionRegistry;
  readonly host: AttentionHost;
  readonly pushes: PushRecord[] = [];
  readonly #output = new Map<string, string>();
  readonly #decoders = new Map<string, TextDecoder>();
  readonly #ownsStateDir: boolean;
  #viewers = 0;

  constructor(
    readonly stateDir: string,
    readonly home: string,
    ownsStateDir: boolean,
    daemonEnv: Readonly<Record<string, string>> = {},
  ) {
    this.#ownsStateDir = ownsStateDir;
    const bin = join(home, 'bin');
    this.registry = new SessionRegistry({
      now: Date.now,
      env: {
        HOME: home,
        PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        LANG: 'C.UTF-8',
        USER: 'burrow',
        ...daemonEnv,
      },
      defaultShell: '/bin/sh',
      log: () => {},
    });
    this.host = new AttentionHost({
      registry: this.registry,
      stateDir,
      log: () => {},
      onPushDue: (sessionId, episodeId, view) =>
        this.pushes.push({ sessionId, episodeId, body: view.notification?.body ?? null }),
    });
    // A second tap, after the host's, only to let tests wait for text on the screen.
    this.registry.addTap({
      spawn: (id) => {
        this.#output.set(id, '');
        this.#decoders.set(id, new TextDecoder());
      },
      output: (id, chunk) => {
        const text = this.#decoders.get(id)?.decode(chunk, { stream: true }) ?? '';
        this.#output.set(id, (this.#output.get(id) ?? '') + text);
      },
    });
  }

  /**
   * A fixture with a fresh HOME, or reusing `stateDir` (a daemon restart); `daemonEnv` adds to the environment
   * the registry gets, as a daemon's own would be.
   */
  static create(stateDir?: string, daemonEnv: Readonly<Record<string, string>> = {}): AttentionFixture {
    const home = mkdtempSync(join(tmpdir(), 'burrow-attn-home-'));
    for (const files of Object.values(RC_FILES)) {
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(join(home, rel, '..'), { recursive: true });
        writeFileSync(join(home, rel), text);
      }
    }
    mkdirSync(join(home, 'bin'));
    writeFileSync(join(home, 'bin', BUSY_PROGRAM), BUSY_SCRIPT);
    chmodSync(join(home, 'bin', BUSY_PROGRAM), 0o755);
    const dir = stateDir ?? join(mkdtempSync(join(tmpdir(), 'burrow-attn-state-')), 'state');
    ensureOwnerOnlyDir(dir);
    return new AttentionFixture(dir, home, stateDir === undefined, daemonEnv);
  }

  output(sessionId: string): string {
    return this.#output.get(sessionId) ?? '';
  }

  /** Starts an integrated shell and waits for its first prompt. */
  async shell(shell: Shell): Promise<Session> {
    const s = this.registry.create({ cwd: this.home, command: [`/usr/bin/${shell}`] });
    await this.waitFor(() => this.output(s.id).includes(PROMPT[shell]), 10_000, `${shell} prompt`);
    return s;
  }

  /** Types a command line as a person at an unattached keyboard would (user input, no viewer). */
  type(session: Session, line: string): void {
    session.input('typist', new TextEncoder().encode(`${line}\r`));
  }

  /** Attaches an in-process local viewer (what `burrow attach` is to the session). */
  attachLocal(session: Session): Attachment {
    const sink: ViewerSink = {
      id: `local-${++this.#viewers}`,
      kind: 'local',
      backlog: () => 0,
      deliver: () => {},
      close: () => {},
    };
    return session.attach(sink);
  }

  pushesFor(sessionId: string): PushRecord[] {
    return this.pushes.filter((p) => p.sessionId === sessionId);
  }

  async waitFor(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await sleep(50);
    }
  }

  /** Stops the host (flushing its state), kills every PTY, removes the temporary HOME (and state dir). */
  async close(keepState = false): Promise<void> {
    this.host.dispose();
    await this.registry.killAll();
    rmSync(this.home, { recursive: true, force: true });
    if (this.#ownsStateDir && !keepState) rmSync(join(this.stateDir, '..'), { recursive: true, force: true });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
