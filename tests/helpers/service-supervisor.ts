/**
 * A stand-in for the service manager the daemon runs under (issue 8 "Faults": "restarted by its service
 * manager"). There is no systemd in the test container, so this reads the unit file the agent itself writes
 * (`burrow install-service`, src/service/service-files.ts) and does what systemd would with its [Service]
 * section: runs ExecStart= with Environment=, and when the process exits restarts it as Restart= says, after
 * RestartSec=. Only the directives the agent writes are understood; any other one in [Service] is an error,
 * so a change to the unit cannot silently go unexercised.
 *
 * Semantics followed (systemd.service(5) "Restart=", systemd.syntax(7) quoting, systemd.exec(5)
 * "Environment="): on-failure restarts on a non-zero exit or a signal other than the clean ones (SIGHUP,
 * SIGINT, SIGTERM, SIGPIPE); ExecStart un-escapes `$$` and `%%`, Environment= only `%%`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../relay-worker/test/harness.js';
import { BurrowDaemon, DAEMON_LOG_MAX_CHARS, until } from './burrow-daemon.js';

/** What BurrowDaemon's CLI helpers need: they use nothing but `env`. */
export type BurrowCli = Pick<BurrowDaemon, 'cli' | 'json' | 'pairPhone' | 'stateDir'>;

/** BurrowDaemon's cli/json/pairPhone bound to `env`, for a daemon this helper (not BurrowDaemon) runs. */
export function burrowCli(env: NodeJS.ProcessEnv): BurrowCli {
  return Object.create(BurrowDaemon.prototype, { env: { value: env } }) as BurrowDaemon;
}

/** Builds the agent as BurrowDaemon.start does (tsc -b; also protocol and crypto), before ExecStart runs it. */
export function buildAgent(): void {
  const agent = join(REPO_ROOT, 'burrow-agent');
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-b', join(agent, 'tsconfig.json')], { encoding: 'utf8' });
  if (!existsSync(join(agent, 'dist', 'cli', 'main.js'))) throw new Error(`build failed: ${built.stdout}`);
}

/** The [Service] directives the agent's unit uses; anything else fails the parse. */
const KNOWN_SERVICE_KEYS = new Set([
  'Type',
  'ExecStart',
  'Environment',
  'Restart',
  'RestartSec',
  'KillSignal',
  'TimeoutStopSec',
]);
/** systemd.service(5): signals that count as a clean exit for Restart=on-failure. */
const CLEAN_SIGNALS = new Set<NodeJS.Signals>(['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGPIPE']);
/** Restarts kept in the history (a test crashes a handful of times). */
export const MAX_RESTART_RECORDS = 100;

export type RestartPolicy = 'no' | 'on-success' | 'on-failure' | 'on-abnormal' | 'on-abort' | 'always';

export interface SystemdService {
  readonly type: string;
  readonly execStart: readonly string[];
  readonly environment: Readonly<Record<string, string>>;
  readonly restart: RestartPolicy;
  readonly restartSecMs: number;
  readonly killSignal: NodeJS.Signals;
}

/** Splits one systemd value into words (systemd.syntax(7): double/single quotes, backslash escapes). */
export function systemdWords(value: string, kind: 'exec' | 'environment'): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (value[i] === ' ' || value[i] === '\t') i++;
    if (i >= value.length) break;
    let word = '';
    const quote = value[i] === '"' || value[i] === "'" ? value[i++] : null;
    while (i < value.length) {
      const c = value[i]!;
      if (quote !== null && c === quote) {
        i++;
        break;
      }
      if (quote === null && (c === ' ' || c === '\t')) break;
      if (c === '\\' && i + 1 < value.length) {
        word += value[i + 1];
        i += 2;
        continue;
      }
      word += c;
      i++;
    }
    word = word.replace(/%%/g, '%');
    if (kind === 'exec') word = word.replace(/\$\$/g, '$');
    words.push(word);
  }
  return words;
}

/** A systemd time span as the agent writes it ("5", "5s", "500ms"). */
function timeSpanMs(v: string): number {
  const m = /^(\d+)(ms|s|min)?$/.exec(v.trim());
  if (m === null) throw new RangeError(`unsupported time span: ${v}`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 'min' ? n * 60_000 : n * 1000;
}

export function parseSystemdUnit(text: string): SystemdService {
  let section = '';
  const values = new Map<string, string[]>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const sec = /^\[(.+)\]$/.exec(line);
    if (sec !== null) {
      section = sec[1]!;
      continue;
    }
    if (section !== 'Service') continue;
    const eq = line.indexOf('=');
    if (eq < 1) throw new SyntaxError(`not a directive: ${line}`);
    const key = line.slice(0, eq);
    if (!KNOWN_SERVICE_KEYS.has(key)) throw new RangeError(`the stand-in does not implement ${key}=`);
    values.set(key, [...(values.get(key) ?? []), line.slice(eq + 1)]);
  }
  const one = (k: string, dflt?: string): string => {
    const v = values.get(k)?.at(-1) ?? dflt;
    if (v === undefined) throw new RangeError(`unit has no ${k}=`);
    return v;
  };
  const environment: Record<string, string> = {};
  for (const v of values.get('Environment') ?? []) {
    for (const assignment of systemdWords(v, 'environment')) {
      const eq = assignment.indexOf('=');
      if (eq < 1) throw new SyntaxError(`bad Environment= assignment: ${assignment}`);
      environment[assignment.slice(0, eq)] = assignment.slice(eq + 1);
    }
  }
  const restart = one('Restart', 'no') as RestartPolicy;
  if (!['no', 'on-success', 'on-failure', 'on-abnormal', 'on-abort', 'always'].includes(restart)) {
    throw new RangeError(`unknown Restart=${restart}`);
  }
  return {
    type: one('Type', 'simple'),
    execStart: systemdWords(one('ExecStart'), 'exec'),
    environment,
    restart,
    // systemd's default RestartSec is 100 ms.
    restartSecMs: timeSpanMs(one('RestartSec', '100ms')),
    killSignal: one('KillSignal', 'SIGTERM') as NodeJS.Signals,
  };
}

/** systemd.service(5) "Table 2. Exit causes and the effect of the Restart= settings". */
export function shouldRestart(
  policy: RestartPolicy,
  exit: { code: number | null; signal: NodeJS.Signals | null },
): boolean {
  const cleanExit = exit.signal === null ? exit.code === 0 : CLEAN_SIGNALS.has(exit.signal);
  const uncleanSignal = exit.signal !== null && !CLEAN_SIGNALS.has(exit.signal);
  switch (policy) {
    case 'no':
      return false;
    case 'always':
      return true;
    case 'on-success':
      return cleanExit;
    case 'on-failure':
      return !cleanExit;
    case 'on-abnormal':
    case 'on-abort':
      return uncleanSignal;
  }
}

/** How the stand-in starts ExecStart=; `wrap` runs it under another command (a sandbox, as a drop-in would). */
export interface SupervisorOptions {
  readonly wrap?: (argv: readonly string[]) => string[];
}

export interface RestartRecord {
  readonly exitedAt: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** When the new process was spawned, or null when the policy said no. */
  readonly restartedAt: number | null;
}

/**
 * Runs one unit. The process's stderr is kept (bounded) as its journal; `log` is the current process's.
 * The CLI is driven through a BurrowDaemon view of the unit's environment (`daemon`), so every other
 * helper (cli, json, pairPhone) works against the supervised process exactly as against any other.
 */
export class ServiceSupervisor {
  readonly restarts: RestartRecord[] = [];
  #child: ChildProcess;
  #log = '';
  #stopping = false;
  #restartTimer: NodeJS.Timeout | undefined;

  private constructor(
    readonly unit: SystemdService,
    readonly env: NodeJS.ProcessEnv,
    readonly options: SupervisorOptions,
  ) {
    this.#child = this.#spawn();
  }

  /** Starts the unit at `unitPath` ("systemctl start"), with the user manager's base environment. */
  static async start(
    unitPath: string,
    base: NodeJS.ProcessEnv,
    options: SupervisorOptions = {},
  ): Promise<ServiceSupervisor> {
    return ServiceSupervisor.startUnit(parseSystemdUnit(readFileSync(unitPath, 'utf8')), base, options);
  }

  /** Starts an already parsed unit (the stand-in systemctl keeps the one loaded at its last daemon-reload). */
  static async startUnit(
    unit: SystemdService,
    base: NodeJS.ProcessEnv,
    options: SupervisorOptions = {},
  ): Promise<ServiceSupervisor> {
    const sup = new ServiceSupervisor(unit, { ...base, ...unit.environment }, options);
    await sup.waitUntilListening();
    return sup;
  }

  get pid(): number {
    return this.#child.pid!;
  }

  get log(): string {
    return this.#log;
  }

  /** The CLI as a user runs it, in this unit's environment. */
  get daemon(): BurrowCli {
    return burrowCli(this.env);
  }

  /** Sends `signal` to the current process (what a crash, or the OOM killer, does). */
  kill(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }

  /** Waits for the current process to print that it listens. */
  async waitUntilListening(ms = 20_000): Promise<void> {
    const child = this.#child;
    await until(() => this.#log.includes('listening on') || child.exitCode !== null, 'the daemon', ms);
    if (!this.#log.includes('listening on')) throw new Error(`the daemon exited: ${this.#log}`);
  }

  /** Waits until `n` restarts have spawned a new process. */
  async waitForRestarts(n: number, ms = 30_000): Promise<void> {
    await until(() => this.restarts.filter((r) => r.restartedAt !== null).length >= n, `${n} restart(s)`, ms);
  }

  /** "systemctl stop": KillSignal=, no restart; resolves with the exit. */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.#stopping = true;
    clearTimeout(this.#restartTimer);
    const child = this.#child;
    if (child.exitCode !== null || child.signalCode !== null) {
      return { code: child.exitCode, signal: child.signalCode };
    }
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child.once('exit', (code, signal) => r({ code, signal })),
    );
    child.kill(this.unit.killSignal);
    return exited;
  }

  #spawn(): ChildProcess {
    if (this.unit.execStart.length === 0) throw new RangeError('empty ExecStart=');
    const [file, ...args] = this.options.wrap?.(this.unit.execStart) ?? this.unit.execStart;
    if (file === undefined) throw new RangeError('the wrapper returned no command');
    this.#log = '';
    const child = spawn(file, args, { env: this.env, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (d: Buffer) => {
      this.#log = (this.#log + d.toString()).slice(-DAEMON_LOG_MAX_CHARS);
    });
    child.once('exit', (code, signal) => this.#exited(code, signal));
    return child;
  }

  #exited(code: number | null, signal: NodeJS.Signals | null): void {
    const exitedAt = Date.now();
    const restart = !this.#stopping && shouldRestart(this.unit.restart, { code, signal });
    const record = { exitedAt, code, signal, restartedAt: null as number | null };
    this.restarts.push(record);
    if (this.restarts.length > MAX_RESTART_RECORDS) this.restarts.shift();
    if (!restart) return;
    this.#restartTimer = setTimeout(() => {
      if (this.#stopping) return;
      record.restartedAt = Date.now();
      this.#child = this.#spawn();
    }, this.unit.restartSecMs);
  }
}
