/**
 * Where Burrow keeps its state, and the owner-only rule for it (DESIGN §2, §6; standalone-host-spec
 * "Persistence": the store is owner-only before any bytes are written, and a directory whose restriction
 * fails is withheld). Resolution order: BURROW_STATE_DIR, else the platform's user state directory.
 */
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** Mode of the state directory and of the control-socket directory: owner read/write/search only. */
export const DIR_MODE = 0o700;
/** Mode of every file Burrow writes under the state directory. */
export const FILE_MODE = 0o600;

/** A state-directory problem the user must fix; the message says what to do. */
export class StateDirError extends Error {
  override readonly name = 'StateDirError';
}

export interface StateDirEnv {
  readonly BURROW_STATE_DIR?: string | undefined;
  readonly XDG_STATE_HOME?: string | undefined;
  readonly HOME?: string | undefined;
}

/** The state directory for this platform and environment (not created). */
export function resolveStateDir(
  env: StateDirEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const explicit = env.BURROW_STATE_DIR;
  if (explicit !== undefined && explicit !== '') {
    if (!isAbsolute(explicit))
      throw new StateDirError(`BURROW_STATE_DIR must be an absolute path, got "${explicit}"`);
    return explicit;
  }
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Burrow');
  const xdg = env.XDG_STATE_HOME;
  // XDG base-directory spec: a relative XDG_STATE_HOME is invalid and must be ignored.
  if (xdg !== undefined && xdg !== '' && isAbsolute(xdg)) return join(xdg, 'burrow');
  return join(home, '.local', 'state', 'burrow');
}

/**
 * Creates `dir` (and parents) if needed and makes sure it is a real directory, owned by this user, mode 0700.
 * A directory that exists with looser bits is tightened; one owned by someone else, or a symlink, is refused.
 */
export function ensureOwnerOnlyDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const st = lstatSync(dir);
  if (!st.isDirectory())
    throw new StateDirError(`${dir} is not a directory (a symlink or file is in the way); remove it`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new StateDirError(`${dir} belongs to another user (uid ${st.uid}); use a directory you own`);
  }
  if ((st.mode & 0o777) !== DIR_MODE) {
    try {
      chmodSync(dir, DIR_MODE);
    } catch (cause) {
      throw new StateDirError(`cannot make ${dir} owner-only (chmod 700 failed); fix its permissions`, {
        cause,
      });
    }
  }
}
