/**
 * When and how the host writes its two files (attention-store.ts): alarm settings and rules at once, on every
 * edit; the per-session TODO list debounced (a burst of state changes is one write), skipped when unchanged,
 * and flushed on dispose. A failed write is logged, never thrown into the PTY pipeline.
 */
import type { AlertSettings } from '../attention/index.js';
import type { Logger } from '../session/activity.js';
import {
  ATTENTION_FILE_VERSION,
  MAX_PERSISTED_CWD_CHARS,
  openAttentionSettingsStore,
  openAttentionStore,
  type PersistedSession,
} from './attention-store.js';

/** State changes closer together than this are written once. */
export const PERSIST_DEBOUNCE_MS = 250;

export class AttentionPersistence {
  readonly #sessions;
  readonly #settings;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;
  #pending: (() => PersistedSession[]) | null = null;
  #lastWritten: string | null = null;

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
    try {
      this.#settings.save({
        version: ATTENTION_FILE_VERSION,
        alert: { ...settings },
        watchRules: [...watchRules],
      });
    } catch (err) {
      this.#log('error', `attention: saving settings failed: ${(err as Error).message}`);
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
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const take = this.#pending;
      this.#pending = null;
      if (take !== null) this.#write(take());
    }, PERSIST_DEBOUNCE_MS);
    this.#timer.unref();
  }

  /** Writes now (shutdown), cancelling a scheduled write. */
  flush(sessions: PersistedSession[]): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = null;
    this.#write(sessions);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = null;
  }

  #write(sessions: PersistedSession[]): void {
    const bounded = sessions.map((s) => ({ ...s, cwd: s.cwd.slice(0, MAX_PERSISTED_CWD_CHARS) }));
    const json = JSON.stringify(bounded);
    if (json === this.#lastWritten) return;
    try {
      this.#sessions.save({ version: ATTENTION_FILE_VERSION, sessions: bounded });
      this.#lastWritten = json;
    } catch (err) {
      this.#log('error', `attention: saving TODO state failed: ${(err as Error).message}`);
    }
  }
}
