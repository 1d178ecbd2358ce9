/**
 * Push state kept per paired Burrow (DESIGN §4.4 step 5): the highest envelope sequence number the service
 * worker accepted (so a replayed envelope is refused even after the worker restarts) and this phone's push
 * registration (whether the owner wants push from that Burrow, and which endpoint the relay was last given, so
 * the page can tell on every open whether the browser's subscription changed or vanished).
 */

import { MAX_PUSH_ENDPOINT_CHARS } from '@burrow/protocol';
import type { IDBPDatabase } from 'idb';
import { openPocketDb, POCKET_DB_NAME, STORE } from './pocket-db.js';

export interface PushRegistrationRecord {
  /** The owner turned push on for this Burrow on this phone. */
  readonly wanted: boolean;
  /** The subscription endpoint the relay accepted last; null when none is registered. */
  readonly endpoint: string | null;
  /** When the relay last accepted it (ms since the epoch); 0 when never. */
  readonly registeredAt: number;
}

export interface PushRegistrationStore {
  getRegistration(burrowId: string): Promise<PushRegistrationRecord | undefined>;
  putRegistration(burrowId: string, record: PushRegistrationRecord): Promise<void>;
  /** Every Burrow whose registration says wanted (the browser's one subscription is shared by all). */
  wantedBurrows(): Promise<string[]>;
}

export interface PushSeqStore {
  /** Highest seq accepted from that Burrow, 0 before the first. */
  lastSeq(burrowId: string): Promise<number>;
  /** Records `seq` if it is above the stored one, in one transaction; false means it was seen (replay). */
  advanceSeq(burrowId: string, seq: number): Promise<boolean>;
}

function checkRegistration(value: unknown): PushRegistrationRecord | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const r = value as Record<string, unknown>;
  const endpointOk =
    r.endpoint === null || (typeof r.endpoint === 'string' && r.endpoint.length <= MAX_PUSH_ENDPOINT_CHARS);
  if (typeof r.wanted !== 'boolean' || !endpointOk || !Number.isSafeInteger(r.registeredAt)) return undefined;
  return { wanted: r.wanted, endpoint: r.endpoint as string | null, registeredAt: r.registeredAt as number };
}

const seqOf = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;

export class IdbPushStore implements PushRegistrationStore, PushSeqStore {
  private constructor(private readonly db: IDBPDatabase) {}

  static async open(name: string = POCKET_DB_NAME): Promise<IdbPushStore> {
    return new IdbPushStore(await openPocketDb(name));
  }

  /** A corrupted record reads as absent: the page then registers afresh, which is always safe. */
  async getRegistration(burrowId: string): Promise<PushRegistrationRecord | undefined> {
    return checkRegistration(await this.db.get(STORE.pushRegistrations, burrowId));
  }

  async putRegistration(burrowId: string, record: PushRegistrationRecord): Promise<void> {
    const checked = checkRegistration(record);
    if (checked === undefined) throw new TypeError('putRegistration: malformed push registration');
    await this.db.put(STORE.pushRegistrations, checked, burrowId);
  }

  async wantedBurrows(): Promise<string[]> {
    const tx = this.db.transaction(STORE.pushRegistrations, 'readonly');
    const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
    return keys.filter(
      (k, i): k is string => typeof k === 'string' && checkRegistration(values[i])?.wanted === true,
    );
  }

  async lastSeq(burrowId: string): Promise<number> {
    return seqOf(await this.db.get(STORE.pushSeq, burrowId));
  }

  async advanceSeq(burrowId: string, seq: number): Promise<boolean> {
    if (!Number.isSafeInteger(seq) || seq < 1)
      throw new RangeError('advanceSeq: seq must be a safe integer ≥ 1');
    const tx = this.db.transaction(STORE.pushSeq, 'readwrite');
    const last = seqOf(await tx.store.get(burrowId));
    if (seq <= last) {
      await tx.done;
      return false;
    }
    await tx.store.put(seq, burrowId);
    await tx.done;
    return true;
  }

  close(): void {
    this.db.close();
  }
}
