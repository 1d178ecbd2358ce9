/**
 * Bounded, failure-tolerant reads of an agent's store: every file here belongs to another program that may be
 * writing it this instant, so a missing file, a half-written line or a JSON error is "nothing found", never an
 * exception into the daemon.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';

/** Entries of one store directory looked at (chats, project folders, …). */
export const MAX_STORE_DIR_ENTRIES = 10_000;
/** Bytes read from the start of one store file (its header line, its first messages). */
export const MAX_STORE_HEAD_BYTES = 512 * 1024;
/** Most bytes any one read of a store file takes (a log's new tail included). */
export const MAX_STORE_READ_BYTES = 4 * 1024 * 1024;

/** The first `max` bytes of a file as UTF-8, or null. */
export function readHead(path: string, max = MAX_STORE_HEAD_BYTES): string | null {
  return readRange(path, 0, max)?.toString('utf8') ?? null;
}

/** `len` bytes from `offset` (at most MAX_STORE_READ_BYTES), or null. */
export function readRange(path: string, offset: number, len: number): Buffer | null {
  if (!Number.isSafeInteger(len) || len < 0 || len > MAX_STORE_READ_BYTES) {
    throw new RangeError(`len must be an integer in [0, ${MAX_STORE_READ_BYTES}]`);
  }
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(len);
    let got = 0;
    while (got < len) {
      const n = readSync(fd, buf, got, len - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Complete lines of `text` parsed as JSON objects (a torn last line, or a bad one, is skipped). */
export function jsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const lines = text.split('\n');
  // The last piece has no newline after it: possibly half-written.
  lines.pop();
  for (const line of lines) {
    const v = parseJson(line);
    if (v !== null) out.push(v);
  }
  return out;
}

export function parseJson(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function mtimeOf(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/** Names in a directory (at most MAX_STORE_DIR_ENTRIES), or [] when it cannot be read. */
export function listDir(path: string): string[] {
  try {
    return readdirSync(path).slice(0, MAX_STORE_DIR_ENTRIES);
  } catch {
    return [];
  }
}

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
