/**
 * `npm start`: a whole development Burrow on this machine, from a fresh clone (after `npm ci`), and again and
 * again after that (issue 17):
 *
 *   1. builds the daemon (tsc -b, one line per package with the time) and Pocket (vite build, skipped when
 *      pocket-pwa/dist is newer than its sources), which the relay serves as its assets;
 *   2. keeps a development VAPID key pair in .burrow-dev/vapid.json (the relay's own generator);
 *   3. runs the relay on workerd on 127.0.0.1 (wrangler's dev server without its inspector,
 *      relay-worker/dev/serve-relay.mjs; Durable Objects persisted in .burrow-dev/relay-state), with the
 *      development flag DEV_OPEN_ENROLLMENT so the local Burrow enrolls without an operator secret;
 *   4. enrolls a development Burrow (state in .burrow-dev/burrow-state) unless its relay still knows it;
 *   5. starts `burrow daemon` — or uses one already running on that state — which lists the sessions of its
 *      previous run as ended (the session roster, burrow-agent/src/daemon/session-roster.ts);
 *   6. opens a first shell, "shell", unless a session is running already (an ended "shell" from the previous
 *      run is cleared: the new one replaces it);
 *   7. runs `burrow pair` only when no phone is paired yet, or with `npm start -- --pair`;
 *   8. prints the commands to use it, each one copy-pasteable from the repository root.
 *
 * Every process it starts is in its own process group and ends with it: Ctrl-C, SIGTERM, SIGHUP, or
 * `npm start` dying (scripts/dev/process-group.ts). The daemon stops first (phones hear "shutting down"), then
 * the relay. A second `npm start` while one runs for the same .burrow-dev says so, shows the same commands,
 * pairs on --pair, and exits. Logs go to .burrow-dev/{relay,daemon}.log.
 *
 * Environment: BURROW_DEV_PORT (default 8787); BURROW_DEV_DIR, an absolute path instead of .burrow-dev.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pocketIsFresh, withPocketBuildLock } from './dev/pocket-build.js';
import { type GroupLeader, startOwnGroup } from './dev/process-group.js';
import {
  buildTypeScript,
  elapsed,
  runInteractive,
  runQuietStep,
  type Started,
  startLogged,
  stopAll,
} from './dev/processes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_DEV_DIR = join(ROOT, '.burrow-dev');
const BURROW = join(ROOT, 'burrow-agent', 'bin', 'burrow.js');
/** wrangler's dev server with no inspector, which any local user could attach to (issue 16.3). */
const SERVE_RELAY = join(ROOT, 'relay-worker', 'dev', 'serve-relay.mjs');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const VITE = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
const DEFAULT_PORT = 8787;
/** A cold `wrangler dev` (bundle + workerd) on a loaded 2-core machine. */
const RELAY_READY_MS = 120_000;
const DAEMON_READY_MS = 20_000;
const POLL_MS = 250;
/** How often a long Pocket build says it is still going (on a terminal). */
const BUILD_TICK_MS = 10_000;
/** The name of the first shell `npm start` opens. */
const FIRST_SHELL = 'shell';
/** One quick CLI call's budget (status, ls, new, …). */
const CLI_TIMEOUT_MS = 20_000;

const USAGE = `Usage: npm start [-- --pair]

Starts a development Burrow: relay, daemon, a first shell; pairs a phone when none is paired yet.
  --pair   offer a pairing link even though a phone is paired already
Environment: BURROW_DEV_PORT (default ${DEFAULT_PORT}), BURROW_DEV_DIR (absolute; default .burrow-dev)
`;

const say = (line: string) => process.stdout.write(`${line}\n`);

/** Set once a stop was asked for: the steps still running end quietly instead of carrying on. */
let stopping = false;
class Stopped extends Error {
  override readonly name = 'Stopped';
}
/** Between steps: carry on, or end here because a stop was asked for. */
function stillGoing(): void {
  if (stopping) throw new Stopped('stopping');
}

function devDir(): string {
  const raw = process.env.BURROW_DEV_DIR;
  if (raw === undefined || raw === '') return DEFAULT_DEV_DIR;
  if (!isAbsolute(raw)) throw new RangeError(`BURROW_DEV_DIR must be an absolute path, got "${raw}"`);
  return raw;
}

function port(): number {
  const raw = process.env.BURROW_DEV_PORT;
  const p = raw === undefined || raw === '' ? DEFAULT_PORT : Number(raw);
  if (!Number.isInteger(p) || p < 1024 || p > 65535)
    throw new RangeError('BURROW_DEV_PORT must be 1024…65535');
  return p;
}

function parseFlags(argv: readonly string[]): { pair: boolean; help: boolean } {
  const flags = { pair: false, help: false };
  for (const a of argv) {
    if (a === '--pair') flags.pair = true;
    else if (a === '--help' || a === '-h') flags.help = true;
    else throw new RangeError(`unknown argument "${a}"\n${USAGE}`);
  }
  return flags;
}

function devDirOrExit(): string {
  try {
    return devDir();
  } catch (err) {
    process.stderr.write(`npm start: ${(err as Error).message}\n`);
    process.exit(2);
  }
}

const DEV = devDirOrExit();
const STATE_DIR = join(DEV, 'burrow-state');
/** Who runs `npm start` for this .burrow-dev now: `{ pid, relayUrl }`, removed when it stops. */
const LOCK_FILE = join(DEV, 'start.json');
const node = process.execPath;
const env: NodeJS.ProcessEnv = { ...process.env, BURROW_STATE_DIR: STATE_DIR };

/**
 * The CLI as it is typed from the repository root (issue 17 item 1): the root `burrow` script finds
 * .burrow-dev on its own (scripts/burrow-dev.js); a development directory elsewhere is named in front.
 */
const CLI = DEV === DEFAULT_DEV_DIR ? 'npm run -s burrow --' : `BURROW_DEV_DIR=${DEV} npm run -s burrow --`;

async function waitFor(
  what: string,
  ms: number,
  check: () => Promise<boolean>,
  child?: Started,
): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child !== undefined && child.child.exitCode !== null)
      throw new Error(`${child.name} exited (${child.child.exitCode}):\n${child.tail()}`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`${what} did not come up within ${ms / 1000} s${child ? `:\n${child.tail()}` : ''}`);
}

interface CliResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** One `burrow` call on the development state (asynchronous: a stop signal is heard meanwhile). */
function burrow(...args: string[]): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      node,
      [BURROW, ...args],
      { env, encoding: 'utf8', timeout: CLI_TIMEOUT_MS },
      (err, stdout, stderr) => {
        const status = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        done({ status, stdout, stderr });
      },
    );
  });
}

async function burrowJson<T>(...args: string[]): Promise<T> {
  const r = await burrow(...args, '--json');
  if (r.status !== 0)
    throw new Error(`burrow ${args.join(' ')} failed (exit ${r.status}): ${r.stderr.trim()}`);
  return JSON.parse(r.stdout) as T;
}

/** The enrollment in burrow.json, if any. */
function enrollment(): { relayUrl: string; burrowId: string; burrowToken: string } | null {
  const file = join(STATE_DIR, 'burrow.json');
  if (!existsSync(file)) return null;
  const e = (JSON.parse(readFileSync(file, 'utf8')) as { enrollment?: Record<string, string> | null })
    .enrollment;
  return e ? { relayUrl: e.relayUrl!, burrowId: e.burrowId!, burrowToken: e.burrowToken! } : null;
}

/**
 * True when burrow.json is enrolled at a relay that still accepts its token: this development relay, or one
 * the owner enrolled at on purpose (a tunnel to it, README "Pair a real phone") and can still reach.
 */
async function stillEnrolled(): Promise<string | null> {
  const e = enrollment();
  if (e === null) return null;
  try {
    const res = await fetch(`${e.relayUrl}/v1/burrows/${e.burrowId}/status`, {
      headers: { authorization: `Bearer ${e.burrowToken}` },
      signal: AbortSignal.timeout(5_000),
    });
    return res.status === 200 ? e.relayUrl : null;
  } catch {
    return null;
  }
}

async function answers(url: string): Promise<{ vapidPublicKey: string | null } | null> {
  try {
    const res = await fetch(`${url}/v1/info`, { signal: AbortSignal.timeout(2_000) });
    return res.status === 200 ? ((await res.json()) as { vapidPublicKey: string | null }) : null;
  } catch {
    return null;
  }
}

/** Another `npm start` for this .burrow-dev that is still alive, if any. */
function otherStart(): { pid: number; relayUrl: string } | null {
  if (!existsSync(LOCK_FILE)) return null;
  try {
    const held = JSON.parse(readFileSync(LOCK_FILE, 'utf8')) as { pid: number; relayUrl: string };
    if (held.pid === process.pid) return null;
    process.kill(held.pid, 0);
    return held;
  } catch {
    return null; // unreadable, or that process is gone: a leftover of a crash
  }
}

async function build(): Promise<void> {
  await buildTypeScript(
    'building the daemon, protocol and crypto (tsc -b)',
    TSC,
    'burrow-agent/tsconfig.json',
    ROOT,
  );
  if (pocketIsFresh(ROOT)) {
    say('• Pocket is built already (pocket-pwa/dist is newer than its sources)');
    return;
  }
  await withPocketBuildLock(ROOT, () =>
    runQuietStep('building Pocket (vite build)', node, [VITE, 'build'], {
      cwd: join(ROOT, 'pocket-pwa'),
      env: { ...process.env, NODE_ENV: 'production' },
      tickMs: BUILD_TICK_MS,
    }),
  );
}

async function startRelay(relayPort: number, relayUrl: string): Promise<Started> {
  // After the build: the generator imports @burrow/protocol, which resolves to its built output here.
  const { loadOrCreateVapid } = await import('./dev/vapid.js');
  const vapid = await loadOrCreateVapid(join(DEV, 'vapid.json'));
  // The key goes to wrangler in an owner-only env file, not on its command line (visible in `ps`).
  const envFile = join(DEV, 'relay.env');
  writeFileSync(envFile, `VAPID_PRIVATE_KEY='${vapid.secret}'\nVAPID_SUBJECT='${vapid.subject}'\n`, {
    mode: 0o600,
  });
  chmodSync(envFile, 0o600);

  if ((await answers(relayUrl)) !== null)
    throw new Error(
      `something already answers on ${relayUrl} (not an npm start of this checkout): stop it, or pick another ` +
        'port with BURROW_DEV_PORT=…',
    );
  const start = performance.now();
  say(`• starting the relay on ${relayUrl} (log: ${shown(join(DEV, 'relay.log'))})`);
  const relay = startLogged(
    'the relay',
    node,
    [
      SERVE_RELAY,
      '--config',
      'wrangler.toml',
      '--ip',
      '127.0.0.1',
      '--port',
      String(relayPort),
      '--persist-to',
      join(DEV, 'relay-state'),
      '--env-file',
      envFile,
      // Development only: enrollment without ENROLL_SECRET (RL-HTTP-3); never set on a deployed relay.
      '--var',
      'DEV_OPEN_ENROLLMENT:1',
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: 'false',
        NO_UPDATE_NOTIFIER: '1',
        CLOUDFLARE_CF_FETCH_ENABLED: 'false',
        // No Local Explorer: it lets any local user read and rewrite the relay's storage (issue 24.1).
        X_LOCAL_EXPLORER: 'false',
      },
      logFile: join(DEV, 'relay.log'),
    },
  );
  let info: { vapidPublicKey: string | null } | null = null;
  await waitFor(
    'the relay',
    RELAY_READY_MS,
    async () => {
      info = await answers(relayUrl);
      return info !== null;
    },
    relay,
  );
  const pushOn = (info as { vapidPublicKey: string | null } | null)?.vapidPublicKey === vapid.publicKey;
  say(
    `  up in ${elapsed(start)}; ${pushOn ? 'Web Push is on (development VAPID key)' : 'warning: the relay did not take the VAPID key; push is off'}`,
  );
  return relay;
}

/** A path under the repository as typed from its root. */
function shown(path: string): string {
  return path.startsWith(`${ROOT}/`) ? path.slice(ROOT.length + 1) : path;
}

interface Listed {
  readonly id: string;
  readonly name: string;
  readonly state: string;
}

/** Starts the daemon unless one already runs on the development state; null when one did. */
async function startDaemon(): Promise<Started | null> {
  const status = await burrow('status', '--json');
  if (status.status === 0) {
    const s = JSON.parse(status.stdout) as { pid: number };
    say(
      `• a daemon is running on ${shown(STATE_DIR)} already (pid ${s.pid}): using it; it keeps running after this`,
    );
    return null;
  }
  const start = performance.now();
  say(`• starting the daemon (log: ${shown(join(DEV, 'daemon.log'))})`);
  const daemon = startLogged('the daemon', node, [BURROW, 'daemon'], {
    cwd: ROOT,
    env,
    logFile: join(DEV, 'daemon.log'),
  });
  await waitFor('the daemon', DAEMON_READY_MS, async () => daemon.tail().includes('listening on'), daemon);
  say(`  up in ${elapsed(start)}`);
  return daemon;
}

/** The first shell, unless a session runs already; an ended one from an earlier run is replaced. */
async function firstShell(): Promise<string> {
  const sessions = await burrowJson<Listed[]>('ls');
  const live = sessions.filter((s) => s.state === 'running');
  if (live.length > 0) {
    const names = live.map((s) => s.name).join(', ');
    say(`• ${live.length} session${live.length === 1 ? '' : 's'} running already (${names}): no new shell`);
    return live.find((s) => s.name === FIRST_SHELL)?.name ?? live[0]!.name;
  }
  // The previous run's first shell is replaced below; the other ended sessions stay listed (the roster).
  const ended = sessions.filter((s) => s.state !== 'running' && s.name !== FIRST_SHELL).length;
  if (ended > 0)
    say(
      `• ${ended} session${ended === 1 ? '' : 's'} from the last run listed as ended (clear them with \`${CLI} kill NAME\`)`,
    );
  if (sessions.some((s) => s.name === FIRST_SHELL)) {
    const cleared = await burrow('kill', FIRST_SHELL);
    if (cleared.status !== 0)
      throw new Error(`clearing the old first shell failed: ${cleared.stderr.trim()}`);
  }
  const created = await burrow('new', '--name', FIRST_SHELL, '--cwd', ROOT);
  if (created.status !== 0) throw new Error(`starting the first shell failed: ${created.stderr.trim()}`);
  say(`• first shell session: ${FIRST_SHELL} (${created.stdout.trim()})`);
  return FIRST_SHELL;
}

/** `burrow pair` in the foreground: the owner compares the code and answers y/N here. */
async function pair(): Promise<void> {
  say('• pairing: open the link below in a browser (see what it says about phones), then compare the code\n');
  const p = runInteractive('burrow pair', node, [BURROW, 'pair'], { cwd: ROOT, env });
  const code = await p.exited;
  stillGoing();
  if (code !== 0) say(`  not paired this time; pair later with \`${CLI} pair\``);
}

function commandsText(relayUrl: string, shell: string): string[] {
  return [
    `Pocket: ${relayUrl}/   (relay ${relayUrl})`,
    'Use it from the repository root:',
    `  ${CLI} attach ${shell}`,
    `  ${CLI} ls`,
    `  ${CLI} status`,
    `  ${CLI} pair`,
  ];
}

async function main(group: GroupLeader): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  if (flags.help) {
    process.stdout.write(USAGE);
    return;
  }
  const stopped = new Promise<string>((r) =>
    group.onStop((why) => {
      stopping = true;
      r(why);
    }),
  );
  const relayPort = port();
  const localUrl = `http://127.0.0.1:${relayPort}`;
  mkdirSync(DEV, { recursive: true, mode: 0o700 });

  const other = otherStart();
  if (other !== null) {
    say(
      `npm start is running for ${shown(DEV)} already (pid ${other.pid}): this one only shows how to use it.`,
    );
    for (const line of commandsText(other.relayUrl, FIRST_SHELL)) say(line);
    if (flags.pair) await pair();
    return;
  }
  writeFileSync(LOCK_FILE, `${JSON.stringify({ pid: process.pid, relayUrl: localUrl })}\n`, { mode: 0o600 });

  const work = (async () => {
    await build();
    stillGoing();
    const relay = await startRelay(relayPort, localUrl);
    stillGoing();
    const enrolledAt = await stillEnrolled();
    if (enrolledAt !== null) say(`• the development Burrow is enrolled already (at ${enrolledAt})`);
    else {
      const r = await burrow('enroll', '--relay', localUrl);
      if (r.status !== 0) throw new Error(`enrolling failed: ${r.stderr.trim()}`);
      say(`• ${r.stdout.trim()}`);
    }
    stillGoing();
    const daemon = await startDaemon();
    stillGoing();
    await waitFor('the relay link', DAEMON_READY_MS, async () => {
      const s = await burrow('status', '--json');
      return (
        s.status === 0 && (JSON.parse(s.stdout) as { relay: { state: string } }).relay.state === 'connected'
      );
    });
    stillGoing();
    const shell = await firstShell();
    stillGoing();
    const devices = await burrowJson<unknown[]>('devices');
    if (devices.length === 0 || flags.pair) await pair();
    else
      say(
        `• ${devices.length} phone${devices.length === 1 ? ' is' : 's are'} paired already; pair another with ` +
          `\`npm start -- --pair\` or \`${CLI} pair\``,
      );
    stillGoing();
    say(`\nBurrow is running (${enrolledAt ?? localUrl}).`);
    for (const line of commandsText(localUrl, shell)) say(line);
    say('Press Ctrl-C to stop.');
    return [relay, daemon].filter((x): x is Started => x !== null);
  })();
  // A stop request (Ctrl-C, SIGTERM, SIGHUP, npm start gone) ends whatever step is running.
  work.catch(() => {}); // after a stop its failure (a killed step) is nobody's news
  const parts = await Promise.race([work, stopped.then(() => null)]);
  if (parts === null) return;
  const end = await Promise.race([
    stopped.then(() => null),
    ...parts.map((p) => p.exited.then(() => `${p.name} exited:\n${p.tail()}`)),
  ]);
  if (end !== null) throw new Error(end);
}

/** Removes start.json if this process wrote it. */
function releaseLock(): boolean {
  try {
    const held = JSON.parse(readFileSync(LOCK_FILE, 'utf8')) as { pid: number };
    if (held.pid !== process.pid) return false;
    rmSync(LOCK_FILE, { force: true });
    return true;
  } catch {
    return false;
  }
}

/** Stops everything this process started; what ignores that is SIGKILLed with the group (process-group.ts). */
async function shutdown(group: GroupLeader, code: number): Promise<never> {
  if (releaseLock()) {
    say('\nstopping what npm start started (daemon, relay)…');
    await stopAll();
    say('stopped.');
  }
  return group.exit(code);
}

const group = startOwnGroup();
if (group !== null) {
  main(group).then(
    () => shutdown(group, 0),
    (err: unknown) => {
      process.stderr.write(`npm start: ${(err as Error).message}\n`);
      return shutdown(group, 1);
    },
  );
}
