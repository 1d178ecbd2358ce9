/**
 * The phone's paired Burrows in IndexedDB (DESIGN §7; several Burrows may be paired): the core's
 * `PairingStorage` over `idb`, plus this phone's own names for its Burrows (a second object store, so the
 * core's record stays exactly what pairing produced). Every record is checked on the way in and out.
 */

import { MAX_LABEL_CHARS } from '@burrow/protocol';
import type { IDBPDatabase } from 'idb';
import { MAX_PAIRINGS, type PairingRecord, type PairingStorage } from '../core/pairing-storage.js';
import { checkPairingRecord, StoredPairingError } from './check-pairing-record.js';

import { openPocketDb, POCKET_DB_NAME, STORE } from './pocket-db.js';

export { POCKET_DB_NAME } from './pocket-db.js';

const PAIRINGS = STORE.pairings;
const NAMES = STORE.names;

/** Aborting makes `tx.done` reject; that rejection is expected, the caller throws its own error instead. */
function abortQuietly(tx: { abort(): void; done: Promise<void> }): void {
  tx.done.catch(() => undefined);
  tx.abort();
}

export class IdbPairingStorage implements PairingStorage {
  private constructor(private readonly db: IDBPDatabase) {}

  static async open(name: string = POCKET_DB_NAME): Promise<IdbPairingStorage> {
    return new IdbPairingStorage(await openPocketDb(name));
  }

  /** Every pairing, oldest first. Throws StoredPairingError if one is corrupted. */
  async list(): Promise<PairingRecord[]> {
    const all = (await this.db.getAll(PAIRINGS)).map(checkPairingRecord);
    return all.sort((a, b) => a.pairedAt - b.pairedAt || (a.burrowId < b.burrowId ? -1 : 1));
  }

  async get(burrowId: string): Promise<PairingRecord | undefined> {
    const value: unknown = await this.db.get(PAIRINGS, burrowId);
    return value === undefined ? undefined : checkPairingRecord(value);
  }

  /** Adds or replaces (re-pairing the same Burrow replaces its old keys). */
  async put(record: PairingRecord): Promise<void> {
    const checked = checkPairingRecord(record);
    const tx = this.db.transaction(PAIRINGS, 'readwrite');
    const exists = (await tx.store.getKey(checked.burrowId)) !== undefined;
    if (!exists && (await tx.store.count()) >= MAX_PAIRINGS) {
      abortQuietly(tx);
      throw new RangeError(`at most ${MAX_PAIRINGS} computers can be paired with this phone`);
    }
    await tx.store.put(checked);
    await tx.done;
  }

  /** Forgets a Burrow, its keys, its local name and its push state. */
  async delete(burrowId: string): Promise<void> {
    const stores = [PAIRINGS, NAMES, STORE.pushSeq, STORE.pushRegistrations];
    const tx = this.db.transaction(stores, 'readwrite');
    await Promise.all(stores.map((s) => tx.objectStore(s).delete(burrowId)));
    await tx.done;
  }

  /** This phone's names for its Burrows, by burrowId (only those the owner renamed). */
  async localNames(): Promise<Map<string, string>> {
    const tx = this.db.transaction(NAMES, 'readonly');
    const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
    const names = new Map<string, string>();
    keys.forEach((k, i) => {
      const v: unknown = values[i];
      if (typeof k === 'string' && typeof v === 'string') names.set(k, v);
    });
    return names;
  }

  /** Sets this phone's name for a paired Burrow; null or blank goes back to the name the Burrow announced. */
  async rename(burrowId: string, localName: string | null): Promise<void> {
    const trimmed = localName?.trim() ?? '';
    if ([...trimmed].length > MAX_LABEL_CHARS) {
      throw new RangeError(`a name has at most ${MAX_LABEL_CHARS} characters`);
    }
    const tx = this.db.transaction([PAIRINGS, NAMES], 'readwrite');
    if ((await tx.objectStore(PAIRINGS).getKey(burrowId)) === undefined) {
      abortQuietly(tx);
      throw new StoredPairingError(`no pairing for ${burrowId}`);
    }
    const names = tx.objectStore(NAMES);
    await (trimmed === '' ? names.delete(burrowId) : names.put(trimmed, burrowId));
    await tx.done;
  }

  close(): void {
    this.db.close();
  }
}
