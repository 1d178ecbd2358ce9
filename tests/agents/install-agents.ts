/**
 * Installs the pinned agent CLIs (agent-clis.ts) once into a cache outside the clone and verifies them:
 *
 *   ${BURROW_TEST_AGENTS_DIR:-${XDG_CACHE_HOME:-~/.cache}/burrow-test-agents}/<hash of the pinned list>/
 *
 * Several test files and workers may ask at once, so the install runs under a file lock (proper-lockfile: a
 * lock directory with a heartbeat, taken over when its holder died) and lands by renaming a finished staging
 * directory, so nobody ever sees a half-installed tree. A finished install carries `verified.json`, written
 * only after each binary ran `--version` and printed its pinned version; with it present `ensureAgentClis()`
 * is a cheap no-op.
 *
 * Everything comes from the npm registry, nothing else: Claude Code's and opencode's postinstall scripts copy
 * their native binary out of a platform package npm already fetched (optionalDependencies), Codex's binary is
 * an npm-aliased optional package, Gemini CLI's optional node-pty is compiled against the running Node's own
 * headers (npm_config_nodedir, so node-gyp never downloads them) or skipped, its keytar copies a shipped
 * prebuild. See README.md.
 *
 * CLI (what .ci/run calls before `npm test`): `npx tsx tests/agents/install-agents.ts` prints progress and the
 * directory; exit 1 with what to do when something fails.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import lockfile from 'proper-lockfile';
import { AGENT_CLIS, AGENT_NAMES, type AgentName } from './agent-clis.js';

/** An install on a slow link or a loaded machine: npm fetches ~350 MB of tarballs and unpacks ~1.1 GB. */
export const INSTALL_TIMEOUT_MS = 15 * 60_000;
/** How long a second caller waits for the first one's install before giving up. */
export const LOCK_WAIT_MS = 20 * 60_000;
/** One `<bin> --version` (a cold native binary of 200 MB on a loaded machine). */
const VERSION_TIMEOUT_MS = 60_000;
/** A progress line at least this often while npm works quietly. */
const HEARTBEAT_MS = 10_000;
const VERIFIED_FILE = 'verified.json';

export interface AgentInstall {
  /** The install's directory (holds node_modules/). */
  readonly dir: string;
  /** Absolute path of each agent's executable. */
  readonly bins: Readonly<Record<AgentName, string>>;
}

type Log = (line: string) => void;

/** The cache root: BURROW_TEST_AGENTS_DIR, else $XDG_CACHE_HOME/burrow-test-agents, else ~/.cache/…. */
export function agentCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BURROW_TEST_AGENTS_DIR) return env.BURROW_TEST_AGENTS_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'burrow-test-agents');
}

/** The pinned set's directory: its name hashes the pinned list, the platform and Node's ABI. */
export function agentInstallDir(env: NodeJS.ProcessEnv = process.env): string {
  const pinned = AGENT_NAMES.map((n) => `${AGENT_CLIS[n].package}@${AGENT_CLIS[n].version}`).join(' ');
  const key = `${pinned} ${process.platform}-${process.arch} node-abi-${process.versions.modules}`;
  return join(agentCacheRoot(env), createHash('sha256').update(key).digest('hex').slice(0, 16));
}

function binsOf(dir: string): Record<AgentName, string> {
  return Object.fromEntries(
    AGENT_NAMES.map((n) => [n, join(dir, 'node_modules', '.bin', AGENT_CLIS[n].bin)]),
  ) as Record<AgentName, string>;
}

function isVerified(dir: string): boolean {
  try {
    const v = JSON.parse(readFileSync(join(dir, VERIFIED_FILE), 'utf8')) as {
      versions?: Record<string, string>;
    };
    return AGENT_NAMES.every((n) => v.versions?.[n] === AGENT_CLIS[n].version);
  } catch {
    return false;
  }
}

/** Installs (once) and verifies the pinned agent CLIs; resolves with where they are. */
export async function ensureAgentClis(
  log: Log = (l) => console.error(`[agents] ${l}`),
): Promise<AgentInstall> {
  const dir = agentInstallDir();
  if (isVerified(dir)) return { dir, bins: binsOf(dir) };
  const root = dirname(dir);
  mkdirSync(root, { recursive: true });
  log(`agent CLIs not installed yet; taking the install lock for ${dir}`);
  const started = Date.now();
  const release = await takeLock(dir, log);
  try {
    if (isVerified(dir)) {
      log(`installed by another process meanwhile (waited ${Math.round((Date.now() - started) / 1000)} s)`);
      return { dir, bins: binsOf(dir) };
    }
    rmSync(dir, { recursive: true, force: true }); // a tree left unverified by a crash or a failed check
    const staging = `${dir}.staging-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging);
    await npmInstall(staging, log);
    verify(staging, log);
    renameSync(staging, dir);
    log(`agent CLIs ready in ${dir} (${Math.round((Date.now() - started) / 1000)} s)`);
    return { dir, bins: binsOf(dir) };
  } finally {
    await release();
  }
}

/** The install lock, waiting (with a line every {@link HEARTBEAT_MS}) while another process holds it. */
async function takeLock(dir: string, log: Log): Promise<() => Promise<void>> {
  const started = Date.now();
  let lastSaid = started;
  for (;;) {
    try {
      return await lockfile.lock(dir, {
        realpath: false,
        stale: 30_000,
        update: 5_000,
        onCompromised: (err) =>
          log(`install lock lost (${err.message}); another process may install at the same time`),
      });
    } catch (err) {
      if ((err as { code?: string }).code !== 'ELOCKED') throw err;
      if (Date.now() - started > LOCK_WAIT_MS) {
        throw new Error(
          `another process has been installing the agent CLIs into ${dir} for over ${LOCK_WAIT_MS / 60_000} min. ` +
            `What to do: if no install is running, remove ${dir}.lock and run again.`,
        );
      }
      if (Date.now() - lastSaid >= HEARTBEAT_MS) {
        log(`waiting for another process's install (${Math.round((Date.now() - started) / 1000)} s)`);
        lastSaid = Date.now();
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

async function npmInstall(staging: string, log: Log): Promise<void> {
  const dependencies = Object.fromEntries(
    AGENT_NAMES.map((n) => [AGENT_CLIS[n].package, AGENT_CLIS[n].version]),
  );
  writeFileSync(
    join(staging, 'package.json'),
    `${JSON.stringify({ name: 'burrow-test-agents', private: true, dependencies }, null, 2)}\n`,
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  // node-gyp (Gemini CLI's optional node-pty) downloads Node's headers unless told where they are: use the
  // running Node's own when present, so the install talks to nobody but the npm registry.
  const headers = join(dirname(dirname(process.execPath)), 'include', 'node');
  if (!env.npm_config_nodedir && existsSync(join(headers, 'node.h')))
    env.npm_config_nodedir = dirname(dirname(process.execPath));
  const what = AGENT_NAMES.map((n) => `${AGENT_CLIS[n].package}@${AGENT_CLIS[n].version}`).join(', ');
  log(`npm install ${what} (~1.1 GB unpacked; a first install takes about a minute on a fast link)`);
  const logFile = join(mkdtempSync(join(tmpdir(), 'burrow-agents-npm-')), 'npm-install.log');
  const npm = spawn('npm', ['install', '--no-audit', '--no-fund', '--loglevel=http', '--prefix', staging], {
    cwd: staging,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let transcript = '';
  const keep = (d: Buffer) => {
    transcript += d.toString();
    writeFileSync(logFile, transcript);
    // npm's http lines name each tarball as it arrives: that is the progress a person watching CI wants.
    for (const line of d.toString().split('\n')) {
      const got = /http (?:fetch GET 200|cache) \S*\/([^/\s]+\.tgz) (\d+ms)(?: \(([^)]+)\))?/.exec(line);
      if (got !== null) log(`got ${got[1]} in ${got[2]}${got[3] === undefined ? '' : ` (${got[3]})`}`);
    }
  };
  npm.stdout!.on('data', keep);
  npm.stderr!.on('data', keep);
  const started = Date.now();
  const heartbeat = setInterval(() => {
    log(
      `npm install still running: ${Math.round((Date.now() - started) / 1000)} s, ${Math.round(diskUsage(staging) / 1e6)} MB so far`,
    );
  }, HEARTBEAT_MS);
  const timer = setTimeout(() => npm.kill('SIGTERM'), INSTALL_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => npm.once('close', (c) => resolve(c)));
  clearInterval(heartbeat);
  clearTimeout(timer);
  if (code !== 0) {
    throw new Error(
      `npm install of the agent CLIs failed (exit ${code}); its log is ${logFile}:\n${transcript.slice(-3000)}\n` +
        'What to do: check that the npm registry answers (`npm ping`), then run `npx tsx tests/agents/install-agents.ts` ' +
        `again; it starts over in ${staging}.`,
    );
  }
  log(`npm install done in ${Math.round((Date.now() - started) / 1000)} s (log: ${logFile})`);
}

/** Each binary must run and print its pinned version; then `verified.json` records it. */
function verify(dir: string, log: Log): void {
  const bins = binsOf(dir);
  // A scratch HOME: `--version` must not need (or touch) the user's agent config.
  const home = mkdtempSync(join(tmpdir(), 'burrow-agents-verify-'));
  const versions: Record<string, string> = {};
  const failures: string[] = [];
  for (const name of AGENT_NAMES) {
    const cli = AGENT_CLIS[name];
    const r = spawnSync(bins[name], ['--version'], {
      encoding: 'utf8',
      timeout: VERSION_TIMEOUT_MS,
      env: { PATH: process.env.PATH, HOME: home, TERM: 'dumb', NO_COLOR: '1' },
    });
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
    if (r.status === 0 && out.split('\n').some((l) => l.trim() === cli.versionOutput)) {
      versions[name] = cli.version;
      log(`verified ${cli.bin} --version: ${cli.versionOutput}`);
    } else {
      failures.push(
        `${bins[name]} --version exited ${r.status ?? r.signal ?? r.error?.message}, printed: ${out.slice(0, 500) || '(nothing)'} (expected "${cli.versionOutput}")`,
      );
    }
  }
  rmSync(home, { recursive: true, force: true });
  if (failures.length > 0) {
    throw new Error(
      `agent CLIs installed but not runnable:\n${failures.join('\n')}\nWhat to do: delete ${dir} and run ` +
        '`npx tsx tests/agents/install-agents.ts` again; if a platform package was skipped (a postinstall that ' +
        'could not find its native binary), its npm log names it.',
    );
  }
  writeFileSync(
    join(dir, VERIFIED_FILE),
    `${JSON.stringify({ versions, verifiedAt: new Date().toISOString() }, null, 2)}\n`,
  );
}

/** Bytes under `dir` (for progress lines only). */
function diskUsage(dir: string): number {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile()) {
        try {
          total += statSync(p).size;
        } catch {}
      }
    }
  }
  return total;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const { dir } = await ensureAgentClis();
    console.log(dir);
  } catch (err) {
    console.error(`[agents] FATAL: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
