/**
 * Where the phone keeps its pairings (DESIGN §7: IndexedDB in Pocket; memory in tests). Records are plain data
 * (strings, numbers) so they structured-clone; keys are base64url, except a Client static kept as a
 * non-extractable WebCrypto key (client-static.ts), which IndexedDB stores as the key object itself. A record
 * holds secrets: never log one.
 */
import type { StoredClientKey } from './client-static.js';

export interface PairingRecord {
  readonly burrowId: string;
  readonly burrowName: string;
  readonly relayUrl: string;
  /** The Burrow's static public key, pinned at pairing (IK's pre-message). */
  readonly burrowPublicKey: string;
  /** base64url bytes, or a non-extractable WebCrypto key where the engine has X25519 (client-static.ts). */
  readonly clientPrivateKey: StoredClientKey;
  readonly clientPublicKey: string;
  /** Device psk (32 bytes), mixed into every connect handshake. */
  readonly psk: string;
  readonly deviceId: string;
  readonly deliveryId: string;
  readonly deliveryToken: string;
  readonly pairedAt: number;
  /** Highest handshake timestamp this phone has sent to that Burrow (ms); the next must exceed it. */
  readonly lastHandshakeAt: number;
}

export interface PairingStorage {
  list(): Promise<PairingRecord[]>;
  get(burrowId: string): Promise<PairingRecord | undefined>;
  /** Replaces the record with the same burrowId. */
  put(record: PairingRecord): Promise<void>;
  delete(burrowId: string): Promise<void>;
}

/** Most Burrows one phone pairs with (a bound on what storage may hold). */
export const MAX_PAIRINGS = 32;

export class MemoryPairingStorage implements PairingStorage {
  readonly #records = new Map<string, PairingRecord>();

  async list(): Promise<PairingRecord[]> {
    return [...this.#records.values()];
  }
  async get(burrowId: string): Promise<PairingRecord | undefined> {
    return this.#records.get(burrowId);
  }
  async put(record: PairingRecord): Promise<void> {
    if (!this.#records.has(record.burrowId) && this.#records.size >= MAX_PAIRINGS) {
      throw new RangeError(`at most ${MAX_PAIRINGS} pairings`);
    }
    this.#records.set(record.burrowId, { ...record });
  }
  async delete(burrowId: string): Promise<void> {
    this.#records.delete(burrowId);
  }
}
