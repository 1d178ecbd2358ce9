/**
 * `npm start`: a whole development Burrow on this machine, from a fresh clone (after `npm ci`).
 *
 *   1. builds the daemon (tsc -b) and Pocket (vite build), which the relay serves as its assets;
 *   2. keeps a development VAPID key pair in .burrow-dev/vapid.json (the relay's own generator);
 *   3. runs the relay on workerd on 127.0.0.1 (wrangler's dev server without its inspector,
 *      relay-worker/dev/serve-relay.mjs; Durable Objects persisted in .burrow-dev/relay-state), with the
 *      development flag DEV_OPEN_ENROLLMENT so the local Burrow enrolls without an operator secret;
 *   4. enrolls a development Burrow (state in .burrow-dev/burrow-state) unless the relay still knows it;
 *   5. starts `burrow daemon` with a first shell session, then `burrow pair`, which prints the pairing link
 *      (http://127.0.0.1:<port>/#pair=…; localhost is a secure context, so Pocket and Web Push work) and QR.
 *
 * Ctrl-C stops everything: the daemon first (phones hear "shutting down"), then the relay. Logs go to
 * .burrow-dev/{relay,daemon}.log. BURROW_DEV_PORT picks the port (default 8787).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runStep, type Started, startLogged, stopAll } from './dev/processes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEV = join(ROOT, '.burrow-dev');
const STATE_DIR = join(DEV, 'burrow-state');
const BURROW = join(ROOT, 'burrow-agent', 'bin', 'burrow.js');
/** wrangler's dev server with no inspector, which any local user could attach to (issue 16.3). */
const SERVE_RELAY = join(ROOT, 'relay-worker', 'dev', 'serve-relay.mjs');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const DEFAULT_PORT = 8787;
/** A cold `wrangler dev` (bundle + workerd) on a loaded 2-core machine. */
const RELAY_READY_MS = 120_000;
const DAEMON_READY_MS = 20_000;
const POLL_MS = 250;

const node = process.execPath;
const env: NodeJS.ProcessEnv = { ...process.env, BURROW_STATE_DIR: STATE_DIR };
const say = (line: string) => process.stdout.write(`${line}\n`);

function port(): number {
  const raw = process.env.BURROW_DEV_PORT;
  const p = raw === undefined || raw === '' ? DEFAULT_PORT : Number(raw);
  if (!Number.isInteger(p) || p < 1024 || p > 65535)
    throw new RangeError('BURROW_DEV_PORT must be 1024…65535');
  return p;
}

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

function burrow(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(node, [BURROW, ...args], { env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** True when burrow.json is enrolled at `relayUrl` and that relay still accepts its token. */
async function stillEnrolled(relayUrl: string): Promise<boolean> {
  const file = join(STATE_DIR, 'burrow.json');
  if (!existsSync(file)) return false;
  const e = (JSON.parse(readFileSync(file, 'utf8')) as { enrollment?: Record<string, string> | null })
    .enrollment;
  if (!e || e.relayUrl !== relayUrl) return false;
  const res = await fetch(`${relayUrl}/v1/burrows/${e.burrowId}/status`, {
    headers: { authorization: `Bearer ${e.burrowToken}` },
  });
  return res.status === 200;
}

async function main(): Promise<void> {
  const relayPort = port();
  const relayUrl = `http://127.0.0.1:${relayPort}`;
  mkdirSync(DEV, { recursive: true, mode: 0o700 });

  runStep(
    'building the daemon, protocol and crypto (tsc -b)',
    node,
    [TSC, '-b', 'burrow-agent/tsconfig.json'],
    ROOT,
  );
  const pocket = JSON.parse(readFileSync(join(ROOT, 'pocket-pwa', 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  if (pocket.scripts?.build !== undefined)
    runStep('building Pocket (vite build)', 'npm', ['run', 'build', '-w', 'pocket-pwa'], ROOT);

  // After the build: the generator imports @burrow/protocol, which resolves to its built output here.
  const { loadOrCreateVapid } = await import('./dev/vapid.js');
  const vapid = await loadOrCreateVapid(join(DEV, 'vapid.json'));
  // The key goes to wrangler in an owner-only env file, not on its command line (visible in `ps`).
  const envFile = join(DEV, 'relay.env');
  writeFileSync(envFile, `VAPID_PRIVATE_KEY='${vapid.secret}'\nVAPID_SUBJECT='${vapid.subject}'\n`, {
    mode: 0o600,
  });
  chmodSync(envFile, 0o600);

  say(`• starting the relay on ${relayUrl} (log: .burrow-dev/relay.log)`);
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
      },
      logFile: join(DEV, 'relay.log'),
    },
  );
  let info: { vapidPublicKey: string | null } | null = null;
  await waitFor(
    'the relay',
    RELAY_READY_MS,
    async () => {
      try {
        const res = await fetch(`${relayUrl}/v1/info`, { signal: AbortSignal.timeout(2_000) });
        if (res.status === 200) info = (await res.json()) as { vapidPublicKey: string | null };
        return res.status === 200;
      } catch {
        return false;
      }
    },
    relay,
  );
  const pushOn = (info as { vapidPublicKey: string | null } | null)?.vapidPublicKey === vapid.publicKey;
  say(
    pushOn
      ? '  Web Push is on (development VAPID key)'
      : '  warning: the relay did not take the VAPID key; push is off',
  );

  if (await stillEnrolled(relayUrl)) say('• the development Burrow is enrolled already');
  else {
    const r = burrow('enroll', '--relay', relayUrl);
    if (r.status !== 0) throw new Error(`enrolling failed: ${r.stderr}`);
    say(`• ${r.stdout.trim()}`);
  }

  say('• starting the daemon (log: .burrow-dev/daemon.log)');
  const daemon = startLogged('the daemon', node, [BURROW, 'daemon'], {
    cwd: ROOT,
    env,
    logFile: join(DEV, 'daemon.log'),
  });
  await waitFor('the daemon', DAEMON_READY_MS, async () => daemon.tail().includes('listening on'), daemon);
  await waitFor('the relay link', DAEMON_READY_MS, async () => {
    const s = burrow('status', '--json');
    return (
      s.status === 0 && (JSON.parse(s.stdout) as { relay: { state: string } }).relay.state === 'connected'
    );
  });
  const created = burrow('new', '--name', 'shell');
  if (created.status !== 0) throw new Error(`starting the first shell failed: ${created.stderr}`);
  const sessionId = created.stdout.trim();

  const cli = `BURROW_STATE_DIR=.burrow-dev/burrow-state node burrow-agent/bin/burrow.js`;
  say(`• first shell session: ${sessionId}   (attach here: ${cli} attach ${sessionId})`);
  say('• pairing: open the link below on your phone (or scan the QR), then compare the code\n');
  // Foreground: the owner answers y/N here. Ctrl-C reaches it too and withdraws the link.
  const paired = spawnSync(node, [BURROW, 'pair'], { env, stdio: 'inherit' });
  if (paired.signal === 'SIGINT') return; // Ctrl-C while pairing: stop everything
  say(`\nBurrow is running: relay ${relayUrl}, Pocket at ${relayUrl}/`);
  say(`Pair another phone: ${cli} pair        Status: ${cli} status`);
  say('Press Ctrl-C to stop.');
  await new Promise<void>((resolveStop) => {
    const done = () => resolveStop();
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    void daemon.exited.then(done);
    void relay.exited.then(done);
  });
}

let stopping = false;
async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say('\nstopping the daemon and the relay…');
    await stopAll();
    say('stopped.');
  }
  process.exit(code);
}

// While a foreground step runs (build, pair), Ctrl-C must still stop what was started.
process.on('SIGINT', () => {});
main().then(
  () => shutdown(0),
  (err: unknown) => {
    process.stderr.write(`npm start: ${(err as Error).message}\n`);
    return shutdown(1);
  },
);
