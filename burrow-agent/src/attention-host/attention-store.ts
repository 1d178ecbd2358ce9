/**
 * What of the attention engine survives a daemon restart, in the state directory (alert-spec Public State:
 * only `todo` and the sanitized notification, plus the status for diagnostics). Two files, each one atomic,
 * owner-only, fail-closed JsonFileStore (src/state):
 *
 * - `attention.json`: every session holding a TODO — its identity (so it can be listed as having died with
 *   the daemon) and `engine.serialize(id)`. The alert part stays `unknown` here: `restoreAlert` is its one
 *   validator, and reads anything malformed as no TODO.
 * - `attention-settings.json`: alarm settings and WATCHING rules, normalized by the engine on load. The shared
 *   `settings.json` has a strict schema owned by src/state, so these live beside it.
 */
import { join } from 'node:path';
import * as v from 'valibot';
import { MAX_SESSIONS } from '../attention/index.js';
import { MAX_COMMAND_ARG_BYTES, MAX_COMMAND_ARGS } from '../session/command-bounds.js';
import { MAX_SESSION_NAME, SESSION_ID_PATTERN } from '../session/session-id.js';
import { JsonFileStore } from '../state/json-store.js';

export const ATTENTION_FILE_NAME = 'attention.json';
export const ATTENTION_SETTINGS_FILE_NAME = 'attention-settings.json';
export const ATTENTION_FILE_VERSION = 1;
/** Longest working directory kept for a restored entry. */
export const MAX_PERSISTED_CWD_CHARS = 4096;
/** Most WATCHING rules read back (the engine keeps at most MAX_WATCH_RULES of them). */
const MAX_PERSISTED_RULES = 1024;

const PersistedSessionSchema = v.strictObject({
  id: v.pipe(v.string(), v.regex(SESSION_ID_PATTERN)),
  // Code points ≤ MAX_SESSION_NAME; UTF-16 units at most twice that.
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_SESSION_NAME * 2)),
  command: v.pipe(
    v.array(v.pipe(v.string(), v.maxLength(MAX_COMMAND_ARG_BYTES))),
    v.maxLength(MAX_COMMAND_ARGS),
  ),
  cwd: v.pipe(v.string(), v.maxLength(MAX_PERSISTED_CWD_CHARS)),
  createdAt: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** How it ended, if it had before the daemon went (issue 23: a restart keeps the exit code). */
  exitCode: v.optional(v.nullable(v.pipe(v.number(), v.integer()))),
  signal: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0)))),
  alert: v.unknown(),
});

export const AttentionFileSchema = v.strictObject({
  version: v.literal(ATTENTION_FILE_VERSION),
  sessions: v.pipe(v.array(PersistedSessionSchema), v.maxLength(MAX_SESSIONS)),
});

export const AttentionSettingsFileSchema = v.strictObject({
  version: v.literal(ATTENTION_FILE_VERSION),
  alert: v.unknown(),
  watchRules: v.optional(v.pipe(v.array(v.unknown()), v.maxLength(MAX_PERSISTED_RULES))),
});

export type AttentionFile = v.InferOutput<typeof AttentionFileSchema>;
export type PersistedSession = v.InferOutput<typeof PersistedSessionSchema>;
export type AttentionSettingsFile = v.InferOutput<typeof AttentionSettingsFileSchema>;

export function openAttentionStore(stateDir: string): JsonFileStore<typeof AttentionFileSchema> {
  return new JsonFileStore(join(stateDir, ATTENTION_FILE_NAME), AttentionFileSchema, () => ({
    version: ATTENTION_FILE_VERSION,
    sessions: [],
  }));
}

export function openAttentionSettingsStore(
  stateDir: string,
): JsonFileStore<typeof AttentionSettingsFileSchema> {
  // No watchRules key: the engine then seeds DEFAULT_WATCHED_COMMANDS (a saved empty list stays empty).
  return new JsonFileStore(join(stateDir, ATTENTION_SETTINGS_FILE_NAME), AttentionSettingsFileSchema, () => ({
    version: ATTENTION_FILE_VERSION,
    alert: {},
  }));
}
