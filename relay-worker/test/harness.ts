/**
 * Starts the real relay on workerd (wrangler's dev server, without its inspector: `dev/serve-relay.mjs`) on a
 * free loopback port and stops it. Used by the relay's own tests, its bench, and the integration tests in
 * `tests/`. Like `npm start`, it sets the development flag `DEV_OPEN_ENROLLMENT` unless told not to
 * (`openEnrollment: false`), so tests enroll without an operator secret (RL-HTTP-3).
 *
 *   const relay = await startRelay({ vars: { ENROLL_SECRET: 's3cret' } });
 *   fetch(`${relay.url}/v1/info`); new WebSocket(`${relay.wsUrl}/v1/burrows/${id}/client`);
 *   await relay.stop();
 *
 * Each relay gets its own temporary `--persist-to` directory (its Durable Object storage), removed by
 * `stop()` unless `keepState` is set. Static assets come from `assetsDir` (default: a fixture folder), so
 * tests never depend on Pocket's build.
 *
 * Fault tests crash a relay and bring the same one back (same port, same Durable Object storage, same bundle):
 *
 *   await relay.kill();   // SIGKILL of wrangler and workerd: no close frame, nothing flushed
 *   relay = await startRelay({ port: relay.port, persistDir: relay.persistDir });
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The workspace root (holds `wrangler.toml`). */
export const REPO_ROOT = resolve(HERE, '..', '..');
export const FIXTURE_ASSETS_DIR = join(HERE, 'fixture-assets');
const WRANGLER_BIN = join(REPO_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
/** wrangler's dev server with the inspector off (issue 16.3). */
const SERVE_RELAY = join(REPO_ROOT, 'relay-worker', 'dev', 'serve-relay.mjs');

/**
 * How long a dev server (workerd start; the bundle is built before) may take on a loaded 2-core machine. A
 * start takes 4–6 s here, 5.5 s at most in 60 starts with two busy loops beside them (4 Dec 2026).
 */
const DEFAULT_READY_TIMEOUT_MS = 60_000;
/**
 * Starts tried when one hangs: about one start in 300 in full test runs (here and in CI) printed nothing and
 * answered nothing for 90 s, where the others took seconds. Not reproduced in 60 starts under load; the next
 * one reports the dev server's own log and its processes, then starts afresh.
 */
const HUNG_START_ATTEMPTS = 2;
/** Lines of wrangler's debug log quoted when a start hangs. */
const LOG_TAIL_LINES = 40;
/** At most this much of the log's end is read to find those lines in (bytes). */
const LOG_TAIL_BYTES = 16_000;
const READY_POLL_MS = 200;
/** A one-off bundle of the relay (esbuild) on a loaded machine. */
const BUNDLE_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
/** After a SIGKILL, how long workerd's listening socket may take to disappear. */
const PORT_RELEASE_TIMEOUT_MS = 5_000;
/** Bound on the log kept in memory for failure messages (characters). */
const MAX_LOG_CHARS = 64_000;

export interface StartRelayOptions {
  /** The relay's vars and secrets (e.g. `ENROLL_SECRET`), passed in an owner-only env file, not on the command line. */
  readonly vars?: Readonly<Record<string, string>>;
  /**
   * Sets the development flag `DEV_OPEN_ENROLLMENT=1` (default true, as `npm start` does): without an
   * `ENROLL_SECRET` anyone may enroll. `false` starts a relay as deployed: closed unless it has the secret.
   */
  readonly openEnrollment?: boolean;
  readonly assetsDir?: string;
  readonly readyTimeoutMs?: number;
  /** Keep the persist directory after `stop()` (to inspect what the relay stored). */
  readonly keepState?: boolean;
  /** Listen on this port instead of a free one (a restart after `kill()`). */
  readonly port?: number;
  /**
   * Reuse this directory (a `persistDir` of an earlier relay, after its `kill()`): its Durable Object storage
   * and, if present, its bundle. Removed by `stop()` unless `keepState`, like a fresh one.
   */
  readonly persistDir?: string;
}

export interface RelayHandle {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `ws://127.0.0.1:<port>` */
  readonly wsUrl: string;
  readonly port: number;
  /** The relay's process group (wrangler's dev server and its workerd processes). */
  readonly processGroup: number;
  /** This relay's temporary directory: its `--persist-to` storage (Durable Object SQLite files), bundle, logs. */
  readonly persistDir: string;
  /** What wrangler printed so far (bounded). */
  log(): string;
  /** Stops wrangler and workerd (the whole process group) and removes the state unless kept. */
  stop(): Promise<void>;
  /**
   * A crash: SIGKILL to the whole process group at once, then waits for it and for the port to be free. The
   * state directory stays (for `startRelay({ port, persistDir })`); this handle's `stop()` no longer removes it.
   */
  kill(): Promise<void>;
}

/** Relays still running; killed if the test process exits without stopping them (a crash, a timeout). */
const LIVE = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of LIVE) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

const WRANGLER_ENV = {
  // No network here: don't try to fetch Request.cf, send metrics or check for updates.
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_SEND_METRICS: 'false',
  NO_UPDATE_NOTIFIER: '1',
  // No Local Explorer (issue 24.1); serve-relay.mjs sets it too, and refuses to serve while it answers.
  X_LOCAL_EXPLORER: 'false',
};

/**
 * Bundles the relay (`wrangler deploy --dry-run`) into `outDir`. The dev server then serves that file unbundled
 * and unwatched: watching the sources would reload on change (dropping every socket), and other work edits
 * `protocol/` while tests run.
 */
async function bundleInto(outDir: string): Promise<void> {
  // The assets folder does not change the bundle (the dev server serves it with `--assets`), so one fixed
  // folder keeps the output comparable from run to run.
  const args = [WRANGLER_BIN, 'deploy', '--dry-run', '--config', join(REPO_ROOT, 'wrangler.toml')];
  args.push('--assets', FIXTURE_ASSETS_DIR, '--outdir', outDir);
  let output = '';
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...WRANGLER_ENV, WRANGLER_LOG_PATH: join(outDir, 'logs') },
  });
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-MAX_LOG_CHARS);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const timer = setTimeout(() => child.kill('SIGKILL'), BUNDLE_TIMEOUT_MS);
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`bundling the relay failed (${code}):\n${output}`);
}

/** What the relay's bundle is made of: its sources, the shared packages' sources, the config, the lockfile. */
const BUNDLE_INPUTS = [
  'relay-worker/src',
  'protocol/src',
  'crypto/src',
  'wrangler.toml',
  'package-lock.json',
];

function hashInputs(): string {
  const hash = createHash('sha256');
  const visit = (path: string) => {
    const full = join(REPO_ROOT, path);
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) visit(`${path}/${name}`);
    } else {
      hash.update(`${path}\0`).update(readFileSync(full)).update('\0');
    }
  };
  for (const input of BUNDLE_INPUTS) visit(input);
  return hash.digest('hex').slice(0, 24);
}

/**
 * The relay bundled once per version of its inputs, shared by every relay a test run starts (about 40 of them:
 * bundling took 1.3 s of each 3.6 s start on a quiet machine, more under load), then copied into the relay's own
 * directory, so a relay keeps running the code it started with whatever is edited later. Keyed by a hash of the
 * inputs, so an edit makes a new bundle; written to a private folder and renamed, so two test files bundling at
 * once both end with a whole one.
 */
async function bundleSnapshot(outDir: string): Promise<string> {
  const cacheRoot = join(REPO_ROOT, 'node_modules', '.cache', 'burrow-relay-bundle');
  const cached = join(cacheRoot, hashInputs());
  if (!existsSync(join(cached, 'index.js'))) {
    await mkdir(cacheRoot, { recursive: true });
    const scratch = await mkdtemp(join(cacheRoot, 'tmp-'));
    try {
      await bundleInto(scratch);
      await rename(scratch, cached).catch(() => undefined); // another file's bundle got there first: same inputs
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  await mkdir(outDir, { recursive: true });
  for (const file of ['index.js', 'index.js.map']) await copyFile(join(cached, file), join(outDir, file));
  return join(outDir, 'index.js');
}

/** Starts tried when the chosen port was taken between `freePort()` and wrangler binding it. */
const PORT_RACE_ATTEMPTS = 3;

/**
 * Starts a relay. Test files run two at a time, so a port that was free a moment ago can be taken by another
 * file's relay before wrangler binds it: then it starts again on fresh ports (unless the caller fixed one).
 */
export async function startRelay(options: StartRelayOptions = {}): Promise<RelayHandle> {
  let raced = 0;
  let hung = 0;
  for (;;) {
    try {
      return await startRelayOnce(options);
    } catch (error) {
      const message = (error as Error).message;
      if (
        /Address already in use/.test(message) &&
        options.port === undefined &&
        ++raced < PORT_RACE_ATTEMPTS
      )
        continue;
      if (error instanceof HungStart && ++hung < HUNG_START_ATTEMPTS) {
        console.warn(`[relay] a start hung; starting again. ${message}`);
        continue;
      }
      throw error;
    }
  }
}

/** A dev server that neither answered nor exited within its ready timeout. */
class HungStart extends Error {}

async function startRelayOnce(options: StartRelayOptions): Promise<RelayHandle> {
  const port = options.port ?? (await freePort());
  const persistDir = options.persistDir ?? (await mkdtemp(join(tmpdir(), 'burrow-relay-')));
  const assetsDir = options.assetsDir ?? FIXTURE_ASSETS_DIR;
  const previousBundle = join(persistDir, 'bundle', 'index.js');
  let script: string;
  try {
    // A restart serves the bundle the crashed relay ran, so it is the same relay (and starts faster).
    script =
      options.persistDir !== undefined && existsSync(previousBundle)
        ? previousBundle
        : await bundleSnapshot(join(persistDir, 'bundle'));
  } catch (error) {
    await rm(persistDir, { recursive: true, force: true });
    throw error;
  }
  const args = [
    SERVE_RELAY,
    '--script',
    script,
    '--config',
    join(REPO_ROOT, 'wrangler.toml'),
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--persist-to',
    join(persistDir, 'state'),
    '--assets',
    assetsDir,
    '--log-level',
    'warn',
  ];
  const vars = { ...(options.openEnrollment === false ? {} : { DEV_OPEN_ENROLLMENT: '1' }), ...options.vars };
  // In a file only this user can read, not as `--var` arguments: any local user can read a command line (ps).
  // Outside persistDir, which the storage attack test searches for secrets the relay itself wrote.
  const varsDir = await mkdtemp(join(tmpdir(), 'burrow-relay-vars-'));
  const varsFile = join(varsDir, 'vars.env');
  await writeFile(varsFile, envFileText(vars), { mode: 0o600 });
  args.push('--env-file', varsFile);

  let log = '';
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    // Own process group, so stop() reaches workerd too.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...WRANGLER_ENV, WRANGLER_LOG_PATH: join(persistDir, 'logs') },
  });
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-MAX_LOG_CHARS);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  LIVE.add(child);
  void exited.then(() => LIVE.delete(child));

  const url = `http://127.0.0.1:${port}`;
  // After kill() the directory belongs to the relay restarted from it: this handle's stop() leaves it alone.
  let crashed = false;
  const stop = async () => {
    await killGroup(child, exited);
    await rm(varsDir, { recursive: true, force: true });
    if (!options.keepState && !crashed) await rm(persistDir, { recursive: true, force: true });
  };
  try {
    await waitReady(url, child, options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS);
  } catch (error) {
    const hung = child.exitCode === null && child.signalCode === null;
    const seen = hung
      ? `\n--- its processes ---\n${groupProcesses(child)}${logTail(join(persistDir, 'logs'))}`
      : '';
    // A restart's directory holds the storage its caller restarts from: the next try needs it.
    if (options.persistDir !== undefined) crashed = true;
    await stop();
    const message = `relay did not start: ${(error as Error).message}\n--- wrangler output ---\n${log}${seen}`;
    throw hung ? new HungStart(message) : new Error(message);
  }
  const kill = async () => {
    crashed = true;
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is already gone.
    }
    await exited;
    await rm(varsDir, { recursive: true, force: true });
    // workerd dies with the group; wait until its listening socket is gone so a restart can bind the port.
    await untilRefused(port, PORT_RELEASE_TIMEOUT_MS);
  };
  return {
    url,
    wsUrl: `ws://127.0.0.1:${port}`,
    port,
    processGroup: child.pid!,
    persistDir,
    log: () => log,
    stop,
    kill,
  };
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/v1/info`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
  throw new Error(`no answer from ${url}/v1/info within ${timeoutMs} ms`);
}

/** `ps` of the dev server's process group: which processes are there, their state and CPU time. */
function groupProcesses(child: ChildProcess): string {
  if (child.pid === undefined) return '(no pid)\n';
  const ps = spawnSync('ps', ['-o', 'pid,stat,etime,time,wchan:24,args', '-g', String(child.pid)], {
    encoding: 'utf8',
  });
  return ps.stdout || `(ps: ${ps.stderr || ps.error?.message})\n`;
}

/** The last lines of wrangler's debug log (WRANGLER_LOG_PATH), which says more than its console at `warn`. */
function logTail(dir: string): string {
  let files: string[];
  try {
    files = readdirSync(dir).sort();
  } catch {
    return '\n(no wrangler log)';
  }
  const last = files.at(-1);
  if (last === undefined) return '\n(no wrangler log)';
  // Only the end is read: the log grows with the relay's life. (A cut first line is dropped below with the
  // rest beyond LOG_TAIL_LINES, unless the tail holds fewer lines.)
  const fd = openSync(join(dir, last), 'r');
  let text: string;
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, LOG_TAIL_BYTES));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    text = tail.toString('utf8');
  } finally {
    closeSync(fd);
  }
  const lines = text.split('\n').filter((l) => l !== '' && l !== '---');
  return `\n--- wrangler's log (last ${LOG_TAIL_LINES} lines) ---\n${lines.slice(-LOG_TAIL_LINES).join('\n')}`;
}

/** Resolves once nothing accepts connections on 127.0.0.1:`port` (or after `timeoutMs`). */
async function untilRefused(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const accepted = await new Promise<boolean>((r) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        r(true);
      });
      socket.once('error', () => r(false));
    });
    if (!accepted) return;
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
}

async function killGroup(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null) return;
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // The group is already gone.
    }
  };
  signal('SIGTERM');
  const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), STOP_GRACE_MS));
  if ((await Promise.race([exited, timer])) === 'timeout') {
    signal('SIGKILL');
    await exited;
  }
  // workerd may outlive wrangler's exit by a moment; make sure nothing of the group is left.
  signal('SIGKILL');
}

/** `NAME='value'` lines, as dotenv (and so Miniflare's `envFiles`) reads them. */
function envFileText(vars: Readonly<Record<string, string>>): string {
  return Object.entries(vars)
    .map(([name, value]) => {
      if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) throw new RangeError(`not a var name: ${name}`);
      if (/['\n\r]/.test(value)) throw new RangeError(`${name}: a value with a quote or a line break`);
      return `${name}='${value}'\n`;
    })
    .join('');
}
