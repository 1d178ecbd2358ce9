/**
 * Reading and rewriting an agent's own settings file the safe way (the winmux ADR's rules, which `burrow setup
 * claude` set): fail-closed reads (only a missing file is empty), bounded size, UTF-8 only; a backup copy
 * first, then an atomic replace that keeps the file's permission bits and a symlink's target
 * (../setup-claude/settings-writer.ts).
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { backupFile, writeAtomically } from '../setup-claude/settings-writer.js';
import { SetupClaudeError as SetupError } from '../setup-claude/setup-claude-error.js';

export { SetupError };

/** A settings file larger than this is not one a person wrote; it is refused rather than parsed. */
export const CONFIG_MAX_BYTES = 1024 * 1024;
/** New settings files are the user's own: owner read/write. */
const NEW_FILE_MODE = 0o600;

export interface ConfigFile {
  readonly path: string;
  /** The file's text, or null when there is no file yet. */
  readonly text: string | null;
  /** Permission bits for the rewritten file. */
  readonly mode: number;
}

/** @throws SetupError when the file exists but cannot be read as UTF-8 text within CONFIG_MAX_BYTES. */
export function readConfigFile(path: string): ConfigFile {
  let mode: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new SetupError(`${path} is not a regular file; nothing was changed.`);
    mode = st.mode & 0o7777;
  } catch (err) {
    if (err instanceof SetupError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path, text: null, mode: NEW_FILE_MODE };
    throw new SetupError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new SetupError(`cannot read ${path}: ${(err as Error).message}`);
  }
  if (bytes.length > CONFIG_MAX_BYTES)
    throw new SetupError(`${path} is larger than ${CONFIG_MAX_BYTES} bytes; nothing was changed.`);
  try {
    return { path, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), mode };
  } catch {
    throw new SetupError(`${path} is not UTF-8 text; nothing was changed.`);
  }
}

function randomSuffix(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join(
    '',
  );
}

/** Backs `file` up (when it exists) and replaces it with `text`; returns the backup's path or null. */
export function replaceConfigFile(file: ConfigFile, text: string, nowMs: number): string | null {
  const backup = file.text === null ? null : backupFile(file.path, nowMs);
  // A file that is a symlink (dotfile managers) stays one: the file it points to is replaced.
  const target = file.text === null ? file.path : realpathSync(file.path);
  writeAtomically(target, text, file.mode, randomSuffix());
  return backup;
}
