/**
 * A real `burrow daemon` process for integration tests: the built CLI in a temp BURROW_STATE_DIR, its stderr
 * kept (bounded) as the log, the CLI called as a user would, and phones paired the real way (`burrow pair
 * --yes` printing a link, Pocket's core `pairWithOffer` answering it).
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MemoryPairingStorage,
  type PairingRecord,
  pairWithOffer,
  parsePairingLink,
} from '@burrow/pocket/core';
import { testHome } from '../../burrow-agent/test/test-home.js';
import { REPO_ROOT } from '../../relay-worker/test/harness.js';
import { nodeSocketFactory } from './node-socket.js';
import { until } from './until.js';

const AGENT = join(REPO_ROOT, 'burrow-agent');
/** The `burrow` CLI entry point the daemon and every CLI call run. */
export const BURROW_BIN = join(AGENT, 'bin', 'burrow.js');
const BIN = BURROW_BIN;
/** One CLI call's budget: `pair` waits for the phone, the rest answer at once. */
export const CLI_TIMEOUT_MS = 30_000;
/** Daemon log characters kept (the tail). */
export const DAEMON_LOG_MAX_CHARS = 64_000;

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export { until };

/** A paired phone: its record and the storage Pocket's core keeps it in. */
export interface PairedPhone {
  readonly pairing: PairingRecord;
  readonly storage: MemoryPairingStorage;
}

/** How to start a daemon; every field optional. */
export interface BurrowDaemonOptions {
  /** Reuse this state directory (a restart after a crash); a new temp directory when absent. */
  readonly stateDir?: string;
  /** Extra environment for the daemon and every CLI call (e.g. SHELL, BURROW_* switches). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * How to run the daemon's process, e.g. inside a test network namespace (`netns.command`, netns.ts); the
   * CLI calls stay here (they reach the daemon over its control socket, a path on disk).
   */
  readonly wrap?: (file: string, args: readonly string[]) => [string, string[]];
  /**
   * Let phones use the direct path (issue 25). Off by default: a browser phone would otherwise open WebRTC on
   * this machine's own interfaces; the direct path's tests turn it on inside a test network (netns.ts).
   */
  readonly direct?: boolean;
}

/** A new state directory whose network policy keeps the direct path off (see BurrowDaemonOptions.direct). */
export function stateDirWithoutDirect(stateDir: string): string {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(stateDir, 'network-policy.json'), '{"direct":"off","iceServers":[]}\n', { mode: 0o600 });
  return stateDir;
}

/** Whether this process has built the agent (BurrowDaemon.start). */
let built = false;

export class BurrowDaemon {
  #log = '';

  private constructor(
    readonly env: NodeJS.ProcessEnv,
    readonly child: ChildProcess,
  ) {
    child.stderr!.on('data', (d: Buffer) => {
      this.#log = (this.#log + d.toString()).slice(-DAEMON_LOG_MAX_CHARS);
    });
  }

  /**
   * Builds the agent (tsc -b, which also builds protocol and crypto) once per test process, and starts `burrow
   * daemon`. Once: the sources do not change while tests run, and the build blocks this process's event loop
   * (seconds on a loaded machine) — for every test beside it when several start daemons at once.
   */
  static async start(options: BurrowDaemonOptions = {}): Promise<BurrowDaemon> {
    if (!built) {
      const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const build = spawnSync(process.execPath, [tsc, '-b', join(AGENT, 'tsconfig.json')], {
        encoding: 'utf8',
      });
      if (!existsSync(join(AGENT, 'dist', 'cli', 'main.js')))
        throw new Error(`build failed: ${build.stdout}`);
      built = true;
    }
    let stateDir = options.stateDir ?? join(mkdtempSync(join(tmpdir(), 'burrow-daemon-it-')), 'state');
    if (options.stateDir === undefined && options.direct !== true) stateDir = stateDirWithoutDirect(stateDir);
    const env = {
      PATH: process.env.PATH,
      HOME: testHome(),
      SHELL: '/bin/bash',
      ...options.env,
      BURROW_STATE_DIR: stateDir,
    };
    const [file, args] = options.wrap?.(process.execPath, [BIN, 'daemon']) ?? [
      process.execPath,
      [BIN, 'daemon'],
    ];
    const child = spawn(file, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const daemon = new BurrowDaemon(env, child);
    await until(() => daemon.log.includes('listening on') || child.exitCode !== null, 'the daemon');
    if (child.exitCode !== null) throw new Error(`daemon exited: ${daemon.log}`);
    return daemon;
  }

  get stateDir(): string {
    return this.env.BURROW_STATE_DIR!;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get log(): string {
    return this.#log;
  }

  cli(...args: string[]): Promise<CliResult> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: this.env, timeout: CLI_TIMEOUT_MS },
        (err, stdout, stderr) => {
          const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  /** `cli(...)` that must exit 0, parsed as JSON. */
  async json<T>(...args: string[]): Promise<T> {
    const r = await this.cli(...args);
    if (r.code !== 0) throw new Error(`burrow ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }

  /** `burrow enroll --relay <relayUrl>` (a relay, or a proxy in front of one), then waits for the link to be up. */
  async enroll(relayUrl: string): Promise<void> {
    const enrolled = await this.cli('enroll', '--relay', relayUrl, '--json');
    if (enrolled.code !== 0) throw new Error(`burrow enroll exited ${enrolled.code}: ${enrolled.stderr}`);
    await until(
      async () =>
        (await this.json<{ relay: { state: string } }>('status', '--json')).relay.state === 'connected',
      'the relay link',
    );
  }

  /**
   * `burrow pair --yes --label <label>`, with `answer` given the link it prints (what its QR code holds) —
   * a phone opening it; resolves with what `answer` returned once `burrow pair` exited 0.
   */
  async pairWith<T>(label: string, answer: (link: string) => Promise<T>): Promise<T> {
    const pair = spawn(process.execPath, [BIN, 'pair', '--yes', '--label', label], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    pair.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<number | null>((r) => pair.once('exit', (c) => r(c)));
    try {
      await until(() => /#pair=\S+/.test(out), 'the pairing link');
      const answered = await answer(/(http\S+#pair=\S+)/.exec(out)![1]!);
      const code = await exited;
      if (code !== 0) throw new Error(`burrow pair exited ${code}: ${out}`);
      return answered;
    } finally {
      if (pair.exitCode === null) pair.kill('SIGTERM');
    }
  }

  /** `burrow pair --yes --label <label>` answered by Pocket's core, exactly as the phone's pairing screen. */
  pairPhone(label: string): Promise<PairedPhone> {
    return this.pairWith(label, async (link) => {
      const storage = new MemoryPairingStorage();
      const pairing = await pairWithOffer({
        offer: parsePairingLink(link),
        socketFactory: nodeSocketFactory(),
        storage,
        label,
        platform: 'node',
        userAgent: 'vitest',
        onCode: () => {},
      });
      return { pairing, storage };
    });
  }

  /** Sends `signal` (SIGKILL, SIGSTOP, SIGCONT, …) to the daemon process. */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** SIGKILL and wait until the process is gone (a crash; nothing is flushed). */
  async crash(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.kill('SIGKILL');
    await exited;
  }

  /** SIGTERM and wait for the exit; the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((r) => this.child.once('exit', (c) => r(c)));
    this.child.kill('SIGTERM');
    return exited;
  }
}
