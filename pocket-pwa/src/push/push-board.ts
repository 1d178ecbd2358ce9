/**
 * The push state of every paired Burrow for this app open (an external store for React, like BurrowHub).
 * Each Burrow's subscription is checked once per open — at start for all of them, whichever screen the app
 * opened on (a notification click opens a terminal, not the list), and on first sight for one paired later —
 * so the check-and-re-register of push-registration.ts runs once, not on every re-render of the list.
 */
import type { PairingRecord } from '../core/pairing-storage.js';
import {
  checkPush,
  disablePush,
  enablePush,
  MAX_RELAY_ERROR_CHARS,
  type PushEnvironment,
  type PushState,
} from './push-registration.js';

export class PushBoard {
  readonly #states = new Map<string, PushState>();
  readonly #checked = new Set<string>();
  readonly #rechecking = new Set<string>();
  readonly #listeners = new Set<() => void>();
  #version = 0;

  constructor(private readonly env: PushEnvironment) {}

  /** null while the first check runs. */
  state(burrowId: string): PushState | null {
    return this.#states.get(burrowId) ?? null;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };
  getVersion = (): number => this.#version;

  /** Checks this Burrow's registration unless it was checked already in this app open. */
  check(pairing: PairingRecord): void {
    if (this.#checked.has(pairing.burrowId)) return;
    this.#checked.add(pairing.burrowId);
    void this.#run(pairing, checkPush);
  }

  /**
   * Checks again a Burrow whose last check or switch failed ("Failed to fetch" while the relay was out of
   * reach): called when its connection is back, so a stale error does not outlive the outage (issue 17 item 7).
   */
  recheckFailed(pairing: PairingRecord): void {
    if (this.#states.get(pairing.burrowId)?.kind !== 'failed' || this.#rechecking.has(pairing.burrowId))
      return;
    this.#rechecking.add(pairing.burrowId);
    void this.#run(pairing, checkPush).finally(() => this.#rechecking.delete(pairing.burrowId));
  }

  /**
   * From the owner's tap (it may prompt for permission). Each step shows as it starts (`working`), and the
   * tap always ends in a state that names itself (issue 23).
   */
  enable(pairing: PairingRecord): Promise<void> {
    return this.#run(pairing, (p, env) =>
      enablePush(p, env, (step) => this.#set(p.burrowId, { kind: 'working', step })),
    );
  }

  disable(pairing: PairingRecord): Promise<void> {
    return this.#run(pairing, disablePush);
  }

  async #run(pairing: PairingRecord, action: (p: PairingRecord, e: PushEnvironment) => Promise<PushState>) {
    let state: PushState;
    try {
      state = await action(pairing, this.env);
    } catch (error) {
      // A store failure (IndexedDB); the flows themselves report relay and browser failures as states.
      const message = error instanceof Error ? error.message : String(error);
      state = { kind: 'failed', message: message.slice(0, MAX_RELAY_ERROR_CHARS) };
    }
    this.#set(pairing.burrowId, state);
  }

  #set(burrowId: string, state: PushState): void {
    this.#states.set(burrowId, state);
    this.#version++;
    for (const l of this.#listeners) l();
  }
}
