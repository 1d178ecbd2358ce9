/**
 * The network policy (protocol/SPEC.md "The direct path", R-NET-1): whether paired phones may reach this
 * Burrow over a direct WebRTC path, and which ICE servers both ends may use. One owner-only file beside the
 * state, `network-policy.json`, written atomically; changed by `burrow settings` (through the daemon) and by a
 * phone (`network-policy-set`), and announced to every connected phone.
 *
 * Reads fail closed, to the safe side: a missing file is the default (direct allowed, no ICE servers), but a
 * file that exists and cannot be trusted — unreadable, not JSON, not a policy — reads as `direct: off` until
 * the owner fixes or rewrites it. (The reference reads an unparseable policy as "nothing", i.e. the default;
 * here the default allows the direct path, and an owner who turned it off should not find it back on because
 * the file broke.)
 */
import { join } from 'node:path';
import {
  DEFAULT_NETWORK_POLICY,
  type NetworkPolicy,
  networkPolicySchema,
  parseNetworkPolicy,
} from '@burrow/protocol';
import { StateFileError } from '../state/atomic-file.js';
import { JsonFileStore } from '../state/json-store.js';

export const NETWORK_POLICY_FILE = 'network-policy.json';
/** What an untrustworthy policy file reads as. */
export const FAIL_CLOSED_POLICY: NetworkPolicy = Object.freeze({ direct: 'off', iceServers: [] });
/** Listeners of policy changes at once (one per daemon part that cares; tests add a few). */
export const MAX_POLICY_LISTENERS = 16;

export class NetworkPolicyStore {
  readonly #store: JsonFileStore<typeof networkPolicySchema>;
  readonly #log: (line: string) => void;
  readonly #listeners = new Set<(policy: NetworkPolicy) => void>();
  #warned = false;

  constructor(stateDir: string, log: (line: string) => void) {
    this.#store = new JsonFileStore(join(stateDir, NETWORK_POLICY_FILE), networkPolicySchema, () => ({
      ...DEFAULT_NETWORK_POLICY,
      iceServers: [],
    }));
    this.#log = log;
  }

  get path(): string {
    return this.#store.path;
  }

  /** The policy in force (fail-closed, see above). */
  get(): NetworkPolicy {
    try {
      return this.#store.load();
    } catch (error) {
      if (!(error instanceof StateFileError)) throw error;
      if (!this.#warned) {
        this.#warned = true;
        this.#log(`network policy: ${error.message}; the direct path is off until it is fixed`);
      }
      return FAIL_CLOSED_POLICY;
    }
  }

  /** Validates (RangeError naming the R-NET rule), saves, and tells every listener. */
  set(value: unknown): NetworkPolicy {
    const policy = parseNetworkPolicy(value);
    this.#store.save(policy);
    this.#warned = false;
    for (const l of this.#listeners) l(policy);
    return policy;
  }

  onChange(listener: (policy: NetworkPolicy) => void): () => void {
    if (this.#listeners.size >= MAX_POLICY_LISTENERS)
      throw new RangeError(`over ${MAX_POLICY_LISTENERS} network policy listeners`);
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
