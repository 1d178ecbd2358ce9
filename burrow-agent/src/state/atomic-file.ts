/**
 * One file, replaced atomically, owner-only, read fail-closed (standalone-host-spec "Rust file store" and the
 * shared store contract): temp sibling written with 0600, fsynced, renamed over the target, then the directory
 * fsynced so the rename itself survives a crash. The writer removes its temp file on every error path, so only
 * a crash leaves one — and a leftover temp file is never read.
 */

import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { FILE_MODE } from './state-dir.js';

/** Largest state or settings file Burrow will read; anything bigger is corrupt, not data. */
export const MAX_STATE_FILE_BYTES = 1024 * 1024;

/** A state file that exists but cannot be trusted; the message names the file and what to do. */
export class StateFileError extends Error {
  override readonly name = 'StateFileError';
}

/** Hears the outcome of every atomic write: `null` on success, the error otherwise. */
export type WriteObserver = (path: string, error: Error | null) => void;
/** Most observers at once (one daemon has one StorageMonitor; tests may add a few). */
export const MAX_WRITE_OBSERVERS = 16;
const observers = new Set<WriteObserver>();

/**
 * Subscribes to the outcome of every writeFileAtomic in this process, so the daemon can say in `burrow
 * status` that its disk is full or read-only whichever store hit it (issue 8 "Faults"). Returns the
 * unsubscribe. An observer that throws is ignored: reporting must never turn a good write into a failure.
 */
export function observeWrites(observer: WriteObserver): () => void {
  if (observers.size >= MAX_WRITE_OBSERVERS)
    throw new RangeError(`over ${MAX_WRITE_OBSERVERS} write observers`);
  observers.add(observer);
  return () => observers.delete(observer);
}

function notify(path: string, error: Error | null): void {
  for (const o of observers) {
    try {
      o(path, error);
    } catch {
      // see observeWrites
    }
  }
}

/** Writes `data` to `path` atomically with mode 0600; every outcome is reported to the write observers. */
export function writeFileAtomic(path: string, data: Uint8Array | string): void {
  try {
    writeAtomically(path, data);
  } catch (err) {
    notify(path, err instanceof Error ? err : new Error(String(err)));
    throw err;
  }
  notify(path, null);
}

function writeAtomically(path: string, data: Uint8Array | string): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (bytes.byteLength > MAX_STATE_FILE_BYTES) {
    throw new RangeError(`state file would be ${bytes.byteLength} bytes, over ${MAX_STATE_FILE_BYTES}`);
  }
  const dir = dirname(path);
  // A random suffix keeps two writers from sharing one temp file; the leading dot keeps it out of the way.
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', FILE_MODE);
  try {
    let off = 0;
    while (off < bytes.byteLength) off += writeSync(fd, bytes, off, bytes.byteLength - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    removeQuietly(tmp);
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    removeQuietly(tmp);
    throw err;
  }
  fsyncDir(dir);
}

/** Cleanup on an error path: the write's own error (ENOSPC, EROFS…) is what the caller must hear. */
function removeQuietly(tmp: string): void {
  try {
    unlinkSync(tmp);
  } catch {
    // a temp file that cannot be removed is never read (see the header); the next write uses a new name
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads `path` fail-closed: `null` only when the file does not exist. A file that is not a regular file, is
 * readable by group/other, belongs to another user, is oversized or cannot be read is a StateFileError.
 */
export function readFileFailClosed(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StateFileError(
      `cannot open ${path} (${(err as NodeJS.ErrnoException).code}); check its permissions`,
      {
        cause: err,
      },
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new StateFileError(`${path} is not a regular file; remove it`);
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
      throw new StateFileError(`${path} belongs to another user (uid ${st.uid}); remove it or fix its owner`);
    }
    if ((st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8);
      throw new StateFileError(`${path} has mode ${mode}, readable by others; run \`chmod 600 ${path}\``);
    }
    if (st.size > MAX_STATE_FILE_BYTES) {
      throw new StateFileError(`${path} is ${st.size} bytes, over ${MAX_STATE_FILE_BYTES}; it is corrupt`);
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
