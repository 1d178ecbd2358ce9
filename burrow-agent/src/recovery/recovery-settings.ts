/**
 * The one recovery setting, `resumeAgentsAtStart` (`burrow settings set resumeAgentsAtStart true`): kept in
 * settings.json beside `defaultShell`, read at daemon start, written at once when changed.
 */
import { openSettingsStore } from '../state/burrow-state.js';

export const RESUME_SETTING = 'resumeAgentsAtStart';

export class RecoverySettings {
  readonly #store;
  #value: boolean;

  constructor(stateDir: string) {
    this.#store = openSettingsStore(stateDir);
    this.#value = this.#store.load().resumeAgentsAtStart === true;
  }

  get resumeAgentsAtStart(): boolean {
    return this.#value;
  }

  /** Saves the setting (StateFileError if settings.json cannot be trusted or written). */
  setResumeAgentsAtStart(value: boolean): void {
    const current = this.#store.load();
    this.#store.save({ ...current, resumeAgentsAtStart: value });
    this.#value = value;
  }
}
