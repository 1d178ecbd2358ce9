/**
 * A second local OS user for the local-attack tests (issue 8 "another OS user trying the control socket and
 * the state files"; DESIGN §2): made with `useradd` (no home, no login shell, its own group, so it shares no
 * group with the owner), removed with `userdel`, and able to run a batch of file-system and socket operations
 * as itself through `runuser`, each reporting the errno it met. Needs root (the tests run as root here and in CI).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * One attempt the other user makes. `connect` opens a Unix socket; `write` opens an existing file for writing;
 * `create` makes a new file (exclusive); `symlink` makes `path` a link to `to`.
 */
export type Attempt =
  | {
      readonly op: 'readdir' | 'read' | 'write' | 'stat' | 'connect' | 'unlink' | 'mkdir';
      readonly path: string;
    }
  | { readonly op: 'create'; readonly path: string }
  | { readonly op: 'rename' | 'symlink'; readonly path: string; readonly to: string }
  | { readonly op: 'chmod'; readonly path: string; readonly mode: number };

/** What happened: `OK`, or the error code (`EACCES`, `ENOENT`, …). */
export interface AttemptResult {
  readonly op: Attempt['op'];
  readonly path: string;
  readonly outcome: string;
}

/** Budget for one batch run as the other user. */
export const RUN_AS_TIMEOUT_MS = 30_000;
/** Output kept from a run as the other user (bytes). */
export const RUN_AS_MAX_OUTPUT_BYTES = 1024 * 1024;

/** Runs in a fresh `node` as the other user: reads attempts as JSON from argv, prints results as JSON. */
const PROBE = `
const fs = require('node:fs');
const net = require('node:net');
const attempts = JSON.parse(process.argv[1]);
const sync = {
  readdir: (a) => fs.readdirSync(a.path),
  read: (a) => fs.readFileSync(a.path),
  write: (a) => fs.closeSync(fs.openSync(a.path, 'r+')),
  stat: (a) => fs.statSync(a.path),
  unlink: (a) => fs.unlinkSync(a.path),
  mkdir: (a) => fs.mkdirSync(a.path),
  create: (a) => fs.writeFileSync(a.path, 'planted', { flag: 'wx' }),
  rename: (a) => fs.renameSync(a.path, a.to),
  symlink: (a) => fs.symlinkSync(a.to, a.path),
  chmod: (a) => fs.chmodSync(a.path, a.mode),
};
const connect = (a) => new Promise((resolve) => {
  const s = net.connect(a.path);
  s.once('connect', () => { s.destroy(); resolve('OK'); });
  s.once('error', (e) => resolve(e.code || e.message));
});
(async () => {
  const out = [];
  for (const a of attempts) {
    let outcome = 'OK';
    if (a.op === 'connect') outcome = await connect(a);
    else try { sync[a.op](a); } catch (e) { outcome = e.code || e.message; }
    out.push({ op: a.op, path: a.path, outcome });
  }
  process.stdout.write(JSON.stringify(out));
})();
`;

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export class OtherUser {
  private constructor(
    readonly name: string,
    readonly uid: number,
    readonly gid: number,
  ) {}

  /** `useradd` a fresh user named `<prefix><8 hex>`; throws with useradd's words if it cannot. */
  static create(prefix: string): OtherUser {
    if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
      throw new Error('creating a second OS user needs root (run the integration tests as root, as CI does)');
    }
    const name = `${prefix}${randomBytes(4).toString('hex')}`;
    if (name.length > 32) throw new RangeError(`user name ${name} is over 32 characters`);
    const made = spawnSync(
      'useradd',
      ['--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', name],
      { encoding: 'utf8' },
    );
    if (made.status !== 0) throw new Error(`useradd ${name} failed: ${made.stderr}`);
    const id = (flag: string) => Number(spawnSync('id', [flag, name], { encoding: 'utf8' }).stdout.trim());
    return new OtherUser(name, id('-u'), id('-g'));
  }

  /** Runs `argv` as this user (no shell, no login), with exactly `env`. */
  run(argv: readonly string[], env: Readonly<Record<string, string>> = {}): RunResult {
    const r = spawnSync('runuser', ['-u', this.name, '--', 'env', '-i', ...envPairs(env), ...argv], {
      encoding: 'utf8',
      timeout: RUN_AS_TIMEOUT_MS,
      maxBuffer: RUN_AS_MAX_OUTPUT_BYTES,
    });
    return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  }

  /** Makes every attempt as this user, in order; the outcome of each. */
  attempt(attempts: readonly Attempt[]): AttemptResult[] {
    const r = this.run([process.execPath, '-e', PROBE, JSON.stringify(attempts)], { PATH: '/usr/bin:/bin' });
    if (r.code !== 0) throw new Error(`the probe failed as ${this.name}: ${r.stderr}`);
    return JSON.parse(r.stdout) as AttemptResult[];
  }

  /** `userdel` (and its group); safe to call twice. */
  remove(): void {
    spawnSync('userdel', [this.name], { encoding: 'utf8' });
  }
}

function envPairs(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}
