/**
 * Whether the daemon can still write its state directory, in words for `burrow status` (issue 8 "Faults":
 * disk full or a read-only state directory — the daemon says so and keeps serving sessions). Pure: it is
 * told about write outcomes (src/daemon/storage-watch.ts feeds it from writeFileAtomic and a periodic probe)
 * with their time, and projects them.
 *
 * A full or read-only file system is a property of the whole directory, so any later successful write there
 * clears it; a per-file failure (permission denied on one file, an odd I/O error) clears only when that same
 * file is written again.
 */

export type StorageProblem = 'full' | 'read-only' | 'denied' | 'io-error';

/** What `burrow status` shows under `storage`. */
export interface StorageHealthView {
  readonly ok: boolean;
  readonly problem: StorageProblem | null;
  /** The errno code of the oldest unresolved failure (ENOSPC, EROFS, …). */
  readonly code: string | null;
  /** The file whose write failed first. */
  readonly path: string | null;
  /** When the oldest unresolved failure happened (epoch ms). */
  readonly since: number | null;
  /** Unresolved failing files (bounded by MAX_TRACKED_FAILURES). */
  readonly failingFiles: number;
  /** One line: "writable", or what is wrong. */
  readonly text: string;
  /** What the owner should do, or null when all is well. */
  readonly advice: string | null;
}

/** Most failing files remembered at once; failures of further files are not tracked until some clear. */
export const MAX_TRACKED_FAILURES = 32;
/** Longest path or code echoed back (paths come from our own state dir, but stay bounded). */
const MAX_ECHO_CHARS = 512;

interface Failure {
  readonly problem: StorageProblem;
  readonly code: string;
  readonly at: number;
}

/** Classifies an error from a write by its errno code. */
export function classifyWriteError(error: Error): { problem: StorageProblem; code: string } {
  const raw = (error as NodeJS.ErrnoException).code;
  const code = typeof raw === 'string' && raw !== '' ? raw.slice(0, MAX_ECHO_CHARS) : 'EIO';
  if (code === 'ENOSPC' || code === 'EDQUOT') return { problem: 'full', code };
  if (code === 'EROFS') return { problem: 'read-only', code };
  if (code === 'EACCES' || code === 'EPERM') return { problem: 'denied', code };
  return { problem: 'io-error', code };
}

const DIRECTORY_WIDE: ReadonlySet<StorageProblem> = new Set(['full', 'read-only']);

export class StorageHealth {
  readonly #failures = new Map<string, Failure>();

  constructor(readonly stateDir: string) {
    if (typeof stateDir !== 'string' || stateDir === '') throw new TypeError('stateDir must be a path');
  }

  recordFailure(path: string, error: Error, at: number): void {
    const key = String(path).slice(0, MAX_ECHO_CHARS);
    const { problem, code } = classifyWriteError(error);
    const previous = this.#failures.get(key);
    // Full: the oldest failures are what the view reports, so a new file is simply not tracked.
    if (previous === undefined && this.#failures.size >= MAX_TRACKED_FAILURES) return;
    // The first failure's time is kept: "full since 01:02" stays true while it keeps failing.
    this.#failures.set(key, { problem, code, at: previous?.at ?? at });
  }

  recordSuccess(path: string): void {
    this.#failures.delete(String(path).slice(0, MAX_ECHO_CHARS));
    for (const [p, f] of this.#failures) if (DIRECTORY_WIDE.has(f.problem)) this.#failures.delete(p);
  }

  view(): StorageHealthView {
    let first: [string, Failure] | undefined;
    for (const entry of this.#failures) if (first === undefined || entry[1].at < first[1].at) first = entry;
    if (first === undefined) {
      return {
        ok: true,
        problem: null,
        code: null,
        path: null,
        since: null,
        failingFiles: 0,
        text: 'writable',
        advice: null,
      };
    }
    const [path, f] = first;
    const dir = this.stateDir;
    const words: Record<StorageProblem, { text: string; advice: string }> = {
      full: {
        text: `the disk holding ${dir} is full (${f.code}); changes are kept in memory only`,
        advice: `free some space there (\`df -h ${dir}\`); Burrow keeps serving sessions and saves again once it can`,
      },
      'read-only': {
        text: `${dir} is on a read-only file system (${f.code}); changes are kept in memory only`,
        advice: `remount it read-write, or set BURROW_STATE_DIR to a writable directory and restart the daemon`,
      },
      denied: {
        text: `cannot write ${path} (${f.code}, permission denied); changes are kept in memory only`,
        advice: `make ${dir} and its files yours with mode 700/600 (\`ls -la ${dir}\`)`,
      },
      'io-error': {
        text: `writing ${path} failed (${f.code}); changes are kept in memory only`,
        advice: `check the disk (\`dmesg\`, \`df -h ${dir}\`); Burrow retries on its own`,
      },
    };
    return {
      ok: false,
      problem: f.problem,
      code: f.code,
      path,
      since: f.at,
      failingFiles: this.#failures.size,
      ...words[f.problem],
    };
  }
}
