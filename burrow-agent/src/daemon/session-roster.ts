/**
 * The daemon's memory of its sessions across a crash or a reboot (issue 8 "Faults": sessions that died with
 * the daemon are shown as such on the phone rather than vanishing). `sessions.json` in the state directory
 * holds the identity of the newest MAX_REMEMBERED_SESSIONS sessions — never their output, which dies with
 * the PTY. At start every remembered session the attention host did not already bring back (it restores the
 * ones holding a TODO, src/attention-host/attention-store.ts) is listed as exited, "died with the previous
 * daemon", until the owner clears it (`burrow kill`, or Remove on the phone).
 *
 * Written through JsonFileStore (atomic, owner-only, fail-closed), debounced; a failed write (disk full, read
 * only) is retried every ROSTER_RETRY_MS until it lands, so nothing the daemon accepted is lost once the disk
 * recovers. On an orderly stop the roster is frozen before the PTYs are ended, so a reboot shows them too.
 */
import { join } from 'node:path';
import * as v from 'valibot';
import { type RecoveryRecord, RecoveryRecordSchema } from '../recovery/recovery-record.js';
import type { Logger } from '../session/activity.js';
import type { SessionInfo } from '../session/session.js';
import { SESSION_ID_PATTERN } from '../session/session-id.js';
import type { SessionRegistry } from '../session/session-registry.js';
import { MAX_STATE_FILE_BYTES } from '../state/atomic-file.js';
import { JsonFileStore } from '../state/json-store.js';
import { WriteScheduler } from '../state/write-scheduler.js';

export const ROSTER_FILE_NAME = 'sessions.json';
export const ROSTER_FILE_VERSION = 1;
/** Sessions remembered across a restart (the newest by creation time). */
export const MAX_REMEMBERED_SESSIONS = 64;
/** Characters of a remembered command line (all arguments together) and of its working directory. */
export const MAX_REMEMBERED_COMMAND_CHARS = 1024;
export const MAX_REMEMBERED_CWD_CHARS = 1024;
/** Longest remembered name, in UTF-16 units (the registry's own bound is lower; this only guards the file). */
const MAX_REMEMBERED_NAME_CHARS = 256;
/** Changes closer together than this are one write. */
export const ROSTER_DEBOUNCE_MS = 200;
/** A write that failed is tried again this often until it lands. */
export const ROSTER_RETRY_MS = 2_000;

const RememberedSchema = v.strictObject({
  id: v.pipe(v.string(), v.regex(SESSION_ID_PATTERN)),
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_REMEMBERED_NAME_CHARS)),
  command: v.pipe(
    v.array(v.pipe(v.string(), v.maxLength(MAX_REMEMBERED_COMMAND_CHARS))),
    v.maxLength(MAX_REMEMBERED_COMMAND_CHARS),
  ),
  cwd: v.pipe(v.string(), v.maxLength(MAX_REMEMBERED_CWD_CHARS)),
  createdAt: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** How it ended before the daemon went, if it had; both null while it was running (it died with it). */
  exitCode: v.nullable(v.pipe(v.number(), v.integer())),
  signal: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** While it ran a coding agent: how to resume the agent's conversation (src/recovery/). Absent otherwise. */
  recovery: v.optional(RecoveryRecordSchema),
});

const RosterFileSchema = v.strictObject({
  version: v.literal(ROSTER_FILE_VERSION),
  sessions: v.pipe(v.array(RememberedSchema), v.maxLength(MAX_REMEMBERED_SESSIONS)),
});

export type RememberedSession = v.InferOutput<typeof RememberedSchema>;

export function openRosterStore(stateDir: string): JsonFileStore<typeof RosterFileSchema> {
  return new JsonFileStore(join(stateDir, ROSTER_FILE_NAME), RosterFileSchema, () => ({
    version: ROSTER_FILE_VERSION,
    sessions: [],
  }));
}

/** The leading arguments that fit in `max` characters together, the last one cut to fit. */
function boundCommand(command: readonly string[], max: number): string[] {
  const out: string[] = [];
  let left = max;
  for (const arg of command) {
    if (left <= 0) break;
    const a = String(arg).slice(0, left);
    out.push(a);
    // An empty argument still costs one, so the count of arguments is bounded by `max` too.
    left -= Math.max(1, a.length);
  }
  return out;
}

/** A session's agent-recovery record, if it has one (live: the last capture; restored: what it came back with). */
export type RecoveryLookup = (sessionId: string) => RecoveryRecord | null;

/** What is remembered of one listed session (pure; bounded). */
export function rememberedOf(info: SessionInfo, recoveryOf?: RecoveryLookup): RememberedSession {
  const ended = info.status === 'exited' && info.diedWithDaemon !== true;
  // Only a session that would die with the daemon (or did) comes back resumable; one that ended did not.
  const recovery = ended ? null : (recoveryOf?.(info.id) ?? null);
  return {
    id: info.id,
    name: info.name.slice(0, MAX_REMEMBERED_NAME_CHARS) || info.id,
    command: boundCommand(info.command, MAX_REMEMBERED_COMMAND_CHARS),
    cwd: info.cwd.slice(0, MAX_REMEMBERED_CWD_CHARS),
    createdAt: Math.max(0, Math.round(info.createdAt)),
    exitCode: ended ? info.exitCode : null,
    signal: ended ? info.signal : null,
    ...(recovery !== null ? { recovery } : {}),
  };
}

/** The file's bytes as JsonFileStore writes them. */
const fileBytes = (sessions: RememberedSession[]) =>
  Buffer.byteLength(`${JSON.stringify({ version: ROSTER_FILE_VERSION, sessions }, null, 2)}\n`);

/**
 * The newest MAX_REMEMBERED_SESSIONS sessions, oldest first. The per-field bounds keep the file well under
 * MAX_STATE_FILE_BYTES even when every character needs a \u escape; should that ever change, the oldest go
 * first until it fits, rather than the write failing.
 */
export function rosterOf(list: readonly SessionInfo[], recoveryOf?: RecoveryLookup): RememberedSession[] {
  const newest = [...list].sort((a, b) => a.createdAt - b.createdAt).slice(-MAX_REMEMBERED_SESSIONS);
  const out = newest.map((info) => rememberedOf(info, recoveryOf));
  while (out.length > 0 && fileBytes(out) > MAX_STATE_FILE_BYTES) out.shift();
  return out;
}

export class SessionRoster {
  readonly #store;
  readonly #registry: SessionRegistry;
  readonly #log: Logger;
  readonly #writes = new WriteScheduler(() => this.#write(), {
    debounceMs: ROSTER_DEBOUNCE_MS,
    retryMs: ROSTER_RETRY_MS,
  });
  #lastWritten: string | null = null;
  #failing = false;
  #closed = false;
  readonly #unsubscribe: () => void;
  readonly #recoveryOf: RecoveryLookup | undefined;

  /** `recoveryOf`: the agent-recovery records to remember with the sessions (src/recovery/); none if absent. */
  constructor(stateDir: string, registry: SessionRegistry, log: Logger, recoveryOf?: RecoveryLookup) {
    this.#store = openRosterStore(stateDir);
    this.#registry = registry;
    this.#log = log;
    this.#recoveryOf = recoveryOf;
    this.#unsubscribe = registry.onListChange(() => this.schedule());
  }

  /**
   * Lists every remembered session that is not listed yet as died-with-the-daemon (or as exited with its
   * code, if it had ended before). StateFileError if the file cannot be trusted. Returns how many.
   */
  restore(): number {
    const saved = this.#store.load();
    const listed = new Set(this.#registry.list().map((s) => s.id));
    let restored = 0;
    for (const entry of saved.sessions) {
      if (listed.has(entry.id)) {
        // Listed already by the attention host (it held a TODO): it stays resumable all the same.
        if (entry.recovery !== undefined) this.#registry.setRestoredRecovery(entry.id, entry.recovery);
        continue;
      }
      try {
        this.#registry.restoreExited(entry);
        listed.add(entry.id);
        restored++;
      } catch (err) {
        this.#log('warn', `remembered session ${entry.id} skipped: ${(err as Error).message}`);
      }
    }
    this.#lastWritten = JSON.stringify(saved.sessions);
    // What is listed now may differ (a name made unique, a skipped entry): write it back once.
    this.schedule();
    return restored;
  }

  /** Something in the list changed (a session created, renamed, exited or cleared): write soon. */
  schedule(): void {
    if (!this.#closed) this.#writes.schedule();
  }

  /** Writes the current list now and stops listening: called before the daemon ends its PTYs. */
  close(): void {
    if (this.#closed) return;
    this.#writes.flush();
    this.#writes.dispose();
    this.#closed = true;
    this.#unsubscribe();
  }

  /** Stops without writing (a start that failed: the file may belong to another daemon). */
  dispose(): void {
    this.#writes.dispose();
    this.#closed = true;
    this.#unsubscribe();
  }

  /** True when the file holds the current list afterwards (a failure is retried by the scheduler). */
  #write(): boolean {
    const sessions = rosterOf(this.#registry.list(), this.#recoveryOf);
    const json = JSON.stringify(sessions);
    if (json === this.#lastWritten) return true;
    try {
      this.#store.save({ version: ROSTER_FILE_VERSION, sessions });
      this.#lastWritten = json;
      if (this.#failing) this.#log('info', 'session list saved again');
      this.#failing = false;
      return true;
    } catch (err) {
      if (!this.#failing) this.#log('error', `saving the session list failed: ${(err as Error).message}`);
      this.#failing = true;
      return false;
    }
  }
}
