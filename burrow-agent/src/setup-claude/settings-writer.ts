/**
 * Writing Claude Code's settings the safe way: a backup copy first (`settings.json.burrow-backup-<time>`,
 * never overwriting an older one), then the new text into a temp sibling that is fsynced and renamed over
 * the file, so Claude Code never reads half a file. The file keeps its permission bits.
 */
import {
  closeSync,
  constants,
  copyFileSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { SetupClaudeError } from './setup-claude-error.js';

/** Backup names tried for one timestamp (`…-<time>`, `…-<time>-2`, …) before giving up. */
const MAX_BACKUP_ATTEMPTS = 16;

/** `2026-12-01T20:30:00.123Z` → `20261201T203000Z`: sortable, and safe in a file name. */
export function backupStamp(nowMs: number): string {
  return new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/** Copies `path` to a new backup beside it and returns the backup's path. */
export function backupFile(path: string, nowMs: number): string {
  const stem = `${path}.burrow-backup-${backupStamp(nowMs)}`;
  for (let attempt = 1; attempt <= MAX_BACKUP_ATTEMPTS; attempt++) {
    const candidate = attempt === 1 ? stem : `${stem}-${attempt}`;
    try {
      copyFileSync(path, candidate, constants.COPYFILE_EXCL);
      return candidate;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new SetupClaudeError(`cannot back up ${path}: ${(err as Error).message}; nothing was changed.`);
    }
  }
  throw new SetupClaudeError(`cannot back up ${path}: too many backups named ${stem}*; nothing was changed.`);
}

/** Replaces `path` with `text` atomically, creating its directory (owner-only) when needed. */
export function writeAtomically(path: string, text: string, mode: number, randomSuffix: string): void {
  const temp = `${path}.burrow-tmp-${randomSuffix}`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const fd = openSync(temp, 'wx', mode);
    try {
      fchmodSync(fd, mode);
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw new SetupClaudeError(`cannot write ${path}: ${(err as Error).message}`);
  }
}
