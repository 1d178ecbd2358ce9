/**
 * When and how the host writes its two files (attention-store.ts): alarm settings and rules at once, on every
 * edit; the per-session TODO list debounced (a burst of state changes is one write), skipped when unchanged,
 * and flushed on dispose. A failed write is logged, never thrown into the PTY pipeline, and retried every
 * PERSIST_RETRY_MS (a full or read-only disk comes back; a TODO set meanwhile must then reach the disk without
 * waiting for the next state change — issue 8, "disk full").
 */
import type { AlertSettings } from '../attention/index.js';
import type { Logger } from '../session/activity.js';
import { WriteScheduler } from '../state/write-scheduler.js';
import {
  ATTENTION_FILE_VERSION,
  MAX_PERSISTED_CWD_CHARS,
  openAttentionSettingsStore,
  openAttentionStore,
  type PersistedSession,
} from './attention-store.js';

/** State changes closer together than this are written once. */
export const PERSIST_DEBOUNCE_MS = 250;
/** After a failed write, the latest state is tried again this often until a write succeeds. */
export const PERSIST_RETRY_MS = 2_000;

export class AttentionPersistence {
  readonly #sessions;
  readonly #settings;
  readonly #log: Logger;
  readonly #writes = new WriteScheduler(() => this.#writePending(), {
    debounceMs: PERSIST_DEBOUNCE_MS,
    retryMs: PERSIST_RETRY_MS,
  });
  /** The snapshot to write; kept after a failed write so the retry writes the state as it is by then. */
  #pending: (() => PersistedSession[]) | null = null;
  #lastWritten: string | null = null;
  /** Settings whose save failed, tried again with the TODO file's retries; null when saved. */
  #unsavedSettings: (() => void) | null = null;
  #failing = false;

  constructor(stateDir: string, log: Logger) {
    this.#sessions = openAttentionStore(stateDir);
    this.#settings = openAttentionSettingsStore(stateDir);
    this.#log = log;
  }

  /** Saved alarm settings and rules (unvalidated: the engine normalizes them). StateFileError if untrusted. */
  loadSettings(): { alert: unknown; watchRules: unknown } {
    const saved = this.#settings.load();
    return { alert: saved.alert, watchRules: saved.watchRules };
  }

  saveSettings(settings: AlertSettings, watchRules: readonly string[]): void {
    const save = () =>
      this.#settings.save({
        version: ATTENTION_FILE_VERSION,
        alert: { ...settings },
        watchRules: [...watchRules],
      });
    try {
      save();
      this.#unsavedSettings = null;
    } catch (err) {
      this.#log('error', `attention: saving settings failed (retrying): ${(err as Error).message}`);
      this.#unsavedSettings = save;
      this.#writes.schedule(PERSIST_RETRY_MS);
    }
  }

  /** Sessions that held a TODO when the previous daemon stopped. StateFileError if the file is untrusted. */
  loadSessions(): readonly PersistedSession[] {
    const saved = this.#sessions.load();
    this.#lastWritten = JSON.stringify(saved.sessions);
    return saved.sessions;
  }

  /** Writes `snapshot()` after PERSIST_DEBOUNCE_MS; calls within the window share one write. */
  schedule(snapshot: () => PersistedSession[]): void {
    this.#pending = snapshot;
    this.#writes.schedule();
  }

  #writePending(): boolean {
    const settingsOk = this.#retrySettings();
    const take = this.#pending;
    const sessionsOk = take === null || this.#write(take());
    if (sessionsOk) this.#pending = null;
    return settingsOk && sessionsOk;
  }

  #retrySettings(): boolean {
    if (this.#unsavedSettings === null) return true;
    try {
      this.#unsavedSettings();
      this.#unsavedSettings = null;
      this.#log('info', 'attention: settings saved after an earlier failure');
      return true;
    } catch {
      return false;
    }
  }

  /** Writes now (shutdown), cancelling a scheduled write. */
  flush(sessions: PersistedSession[]): void {
    this.#pending = () => sessions;
    this.#writes.flush();
  }

  dispose(): void {
    this.#writes.dispose();
    this.#pending = null;
  }

  /** True when the file holds `sessions` afterwards. Logs the first failure of a run and the recovery. */
  #write(sessions: PersistedSession[]): boolean {
    const bounded = sessions.map((s) => ({ ...s, cwd: s.cwd.slice(0, MAX_PERSISTED_CWD_CHARS) }));
    const json = JSON.stringify(bounded);
    if (json === this.#lastWritten) return true;
    try {
      this.#sessions.save({ version: ATTENTION_FILE_VERSION, sessions: bounded });
      this.#lastWritten = json;
      if (this.#failing) this.#log('info', 'attention: TODO state saved after an earlier failure');
      this.#failing = false;
      return true;
    } catch (err) {
      if (!this.#failing) {
        this.#log('error', `attention: saving TODO state failed (retrying): ${(err as Error).message}`);
      }
      this.#failing = true;
      return false;
    }
  }
}
