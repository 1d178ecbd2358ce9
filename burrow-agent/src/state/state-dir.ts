/**
 * Where Burrow keeps its state, and the owner-only rule for it (DESIGN §2, §6; standalone-host-spec
 * "Persistence": the store is owner-only before any bytes are written, and a directory whose restriction
 * fails is withheld). Resolution order: BURROW_STATE_DIR, else the platform's user state directory.
 */
import { chmodSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';

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

/** uid 0: a directory root owns is trusted like one's own (root can read everything anyway). */
const ROOT_UID = 0;
const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

/**
 * Checks every existing ancestor of `dir`, as OpenSSH's StrictModes checks the path to a key file (issue 24.8):
 * whoever can rename entries in any directory above the state directory can move it away and put another in
 * its place, so each one must be owned by this user or root, and writable by no one else unless it is sticky
 * (like /tmp, where only an entry's owner may rename or remove it). A symlink on the way must be owned by this
 * user or root too, and the directories it leads to are checked the same way.
 */
function checkAncestors(dir: string): void {
  if (typeof process.getuid !== 'function') return;
  const uid = process.getuid();
  const trusted = (owner: number) => owner === uid || owner === ROOT_UID;
  const walk = (path: string, seen: number) => {
    if (seen > 40) throw new StateDirError(`too many symlinks above ${dir}`);
    const parts = path.split(sep).filter((p) => p !== '');
    let at: string = sep;
    for (let i = 0; i < parts.length; i++) {
      at = join(at, parts[i]!);
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(at);
      } catch {
        return; // not there yet: mkdir makes it, as this user
      }
      if (!trusted(st.uid))
        throw new StateDirError(
          `${at}, above the state directory ${dir}, belongs to another user (uid ${st.uid}): they could replace ` +
            'the state directory; use a directory only you (and root) control',
        );
      if (st.isSymbolicLink()) {
        walk(realpathSync(at), seen + 1);
        continue;
      }
      if (!st.isDirectory()) return; // mkdir will say what is in the way
      if ((st.mode & GROUP_OR_OTHER_WRITE) !== 0 && (st.mode & STICKY) === 0)
        throw new StateDirError(
          `${at}, above the state directory ${dir}, is writable by others (mode ${(st.mode & 0o7777).toString(8)}) ` +
            'and not sticky: they could replace the state directory; chmod go-w it, or use another directory',
        );
    }
  };
  walk(resolve(dirname(dir)), 0);
}

/**
 * Creates `dir` (and parents) if needed and makes sure it is a real directory, owned by this user, mode 0700,
 * below directories only this user and root control (`checkAncestors`). A directory that exists with looser
 * bits is tightened; one owned by someone else, a symlink, or one below an unsafe directory is refused.
 */
export function ensureOwnerOnlyDir(dir: string): void {
  checkAncestors(dir);
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  checkAncestors(dir);
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
