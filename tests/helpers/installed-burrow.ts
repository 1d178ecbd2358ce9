/**
 * Burrow installed from its npm tarball into a temporary prefix, run where the workspace cannot be reached.
 *
 * How "cannot be reached" is made true, not assumed: every process of the installed Burrow — npm installing
 * it, the daemon, each CLI call, the attach in its PTY — starts in a mount namespace of its own
 * (`unshare --mount`, root only) in which the repository directory is covered by an empty read-only tmpfs,
 * and the wrapper refuses to start the command if the repository's package.json is still visible there.
 * Whatever the installed code would read from the checkout (a module, the shell scripts, the Pocket
 * manifest, node_modules hoisted in the workspace) does not exist for it. Its environment keeps nothing
 * that names the repository (PATH entries, npm_* variables, NODE_PATH, NODE_OPTIONS are dropped), and its
 * working directory and HOME are temporary directories outside it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { REPO_ROOT } from '../../relay-worker/test/harness.js';
import { type CliResult, DAEMON_LOG_MAX_CHARS, until } from './burrow-daemon.js';

/**
 * npm's cache for these installs, outside every checkout so the hidden workspace does not hide it; kept
 * between runs so an install fetches nothing it fetched before (`--prefer-offline`).
 */
export const NPM_CACHE =
  process.env.BURROW_TEST_NPM_CACHE || join(homedir(), '.cache', 'burrow-tests', 'npm');
/** One npm install's budget: node-pty compiles on Linux. */
export const NPM_INSTALL_TIMEOUT_MS = 300_000;
const CLI_TIMEOUT_MS = 30_000;
/** Exit code of the wrapper when the workspace is still visible (the check failed, not the command). */
export const WORKSPACE_VISIBLE_EXIT = 97;

const HIDE_SCRIPT =
  'mount -t tmpfs -o ro,size=4k,mode=0555 burrow-workspace-hidden "$0" && [ ! -e "$0/package.json" ] ||' +
  ` { echo "could not hide the workspace $0" >&2; exit ${WORKSPACE_VISIBLE_EXIT}; }; exec "$@"`;

/** `argv` run in a mount namespace where the repository is an empty directory. */
export function withoutWorkspace(argv: readonly string[]): string[] {
  return [
    '/usr/bin/unshare',
    '--mount',
    '--propagation',
    'private',
    'sh',
    '-c',
    HIDE_SCRIPT,
    REPO_ROOT,
    ...argv,
  ];
}

/** Fails loudly where the hiding cannot work. */
export function assertCanHideWorkspace(): void {
  if (process.getuid?.() !== 0)
    throw new Error(
      'the package-install test hides the workspace with `unshare --mount`, which needs root (CI runs as root)',
    );
}

/** `env` without anything that leads into the repository. */
export function envOutsideWorkspace(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || /^npm_/i.test(k) || k === 'NODE_PATH' || k === 'NODE_OPTIONS' || k === 'INIT_CWD')
      continue;
    if (k === 'PATH') {
      clean.PATH = v
        .split(delimiter)
        .filter((dir) => !dir.startsWith(REPO_ROOT))
        .join(delimiter);
      continue;
    }
    if (v.includes(REPO_ROOT)) continue;
    clean[k] = v;
  }
  return clean;
}

function run(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeout: number,
): Promise<CliResult> {
  const [file, ...args] = argv as [string, ...string[]];
  return new Promise((resolve) => {
    execFile(file, args, { env, cwd, timeout, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `npm install -g --prefix <prefix> <tarball>` from `cwd`, with the workspace hidden; the install's time in ms. */
export async function npmInstallGlobal(
  tarball: string,
  prefix: string,
  cwd: string,
): Promise<CliResult & { ms: number }> {
  mkdirSync(NPM_CACHE, { recursive: true });
  const started = Date.now();
  const r = await run(
    withoutWorkspace([
      'npm',
      'install',
      '--global',
      '--prefix',
      prefix,
      '--cache',
      NPM_CACHE,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      // npm 11.16+ asks for install scripts to be allowed by name (npm 12 enforces it): node-pty compiles.
      '--allow-scripts=node-pty',
      tarball,
    ]),
    envOutsideWorkspace(process.env),
    cwd,
    NPM_INSTALL_TIMEOUT_MS,
  );
  return { ...r, ms: Date.now() - started };
}

/** The installed `burrow`, run by name from `<prefix>/bin` on PATH, as a user runs it. */
export class InstalledBurrow {
  readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly prefix: string,
    readonly home: string,
    /** Extra PATH entries before the prefix (the stand-in systemctl). */
    pathFirst: readonly string[] = [],
  ) {
    this.env = {
      PATH: [
        ...pathFirst,
        join(prefix, 'bin'),
        dirname(process.execPath),
        '/usr/local/bin',
        '/usr/bin',
        '/bin',
      ].join(delimiter),
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      SHELL: '/bin/bash',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
    };
  }

  /** The same install with more PATH entries first. */
  withPathFirst(...dirs: string[]): InstalledBurrow {
    return new InstalledBurrow(this.prefix, this.home, dirs);
  }

  cli(...args: string[]): Promise<CliResult> {
    return run(withoutWorkspace(['burrow', ...args]), this.env, this.home, CLI_TIMEOUT_MS);
  }

  async json<T>(...args: string[]): Promise<T> {
    const r = await this.cli(...args);
    if (r.code !== 0) throw new Error(`burrow ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }

  /** `burrow daemon` in the foreground; resolves once it listens. */
  async daemon(): Promise<{ child: ChildProcess; log: () => string }> {
    const [file, ...args] = withoutWorkspace(['burrow', 'daemon']) as [string, ...string[]];
    const child = spawn(file, args, { env: this.env, cwd: this.home, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr!.on('data', (d: Buffer) => {
      log = (log + d.toString()).slice(-DAEMON_LOG_MAX_CHARS);
    });
    await until(() => log.includes('listening on') || child.exitCode !== null, 'the installed daemon');
    if (child.exitCode !== null) throw new Error(`the installed daemon exited ${child.exitCode}: ${log}`);
    return { child, log: () => log };
  }
}
