/**
 * How the session nonce reaches the shell's integration script (issue 24.3): a one-time file, not the
 * environment.
 *
 * The environment was the wrong channel: a shell's initial environment stays readable in `/proc/<pid>/environ`
 * for the shell's whole life, by every process of the same user, and that includes every program the user runs
 * in the session. Unsetting the variable in the script changes the shell's variables, not that copy. So any
 * program could read the nonce from its parent and sign its own command lines.
 *
 * Instead the daemon writes the nonce to a fresh file (mode 0600, created exclusively) in a directory only its
 * user can enter (0700, made once per daemon under the system temp directory), and puts only the file's PATH in
 * the environment (`BURROW_SHELL_NONCE_FILE`). The script reads the file and removes it as its first act, before
 * any user file runs. By the time the shell starts its first program the file is gone: a path in
 * `/proc/<pid>/environ` leads nowhere. The daemon removes the file too when the shell exits or after
 * NONCE_FILE_TTL_MS, whichever is first, in case the shell never read it.
 *
 * Why not an inherited pipe: node-pty's fork gives the child only the terminal (every descriptor Node opens is
 * close-on-exec), so a descriptor cannot be handed over without native code. Why not a nonce rotated per
 * command: the shell would need the key to derive the next one, and whoever can read the shell's memory reads
 * the key as well. What the file does not stop: a process of the same user that opens it in the moment between
 * the spawn and the script's read (such a process can also drive the control socket, DESIGN §2), and a program
 * that reads the shell's memory (`/proc/<pid>/mem`, ptrace), which the kernel allows a child of the shell only
 * where Yama's ptrace_scope is 0 (many distributions set 1).
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkShellNonce } from './nonce.js';

/** After this long (ms) a nonce file the shell never read is removed: its shell will have no nonce. */
export const NONCE_FILE_TTL_MS = 60_000;

let directory: string | null = null;

/** The daemon's nonce directory (0700), made on first use and removed when the process exits. */
function nonceDirectory(): string {
  if (directory !== null) return directory;
  const dir = mkdtempSync(join(tmpdir(), 'burrow-nonce-'));
  directory = dir;
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface NonceFile {
  /** Where the script finds the nonce (`BURROW_SHELL_NONCE_FILE`). */
  readonly path: string;
  /** Removes the file if the script has not (idempotent). */
  dispose(): void;
}

let counter = 0;

/** Writes `nonce` to a new owner-only file; it removes itself after NONCE_FILE_TTL_MS. */
export function writeNonceFile(nonce: string): NonceFile {
  checkShellNonce(nonce);
  const path = join(nonceDirectory(), `${process.pid}-${++counter}.nonce`);
  writeFileSync(path, `${nonce}\n`, { mode: 0o600, flag: 'wx' });
  let timer: NodeJS.Timeout | undefined = setTimeout(() => dispose(), NONCE_FILE_TTL_MS);
  timer.unref();
  const dispose = () => {
    if (timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
    try {
      unlinkSync(path);
    } catch {
      // The script removed it, as it should.
    }
  };
  return { path, dispose };
}
