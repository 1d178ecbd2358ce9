/**
 * Pocket's one IndexedDB database and its object stores. The page and the service worker both open it: the
 * page for pairings and push registrations, the worker to open push envelopes (DESIGN §4.4 step 5) with the
 * pairing's keys and to remember the last sequence number per pairing.
 */
import { type IDBPDatabase, openDB } from 'idb';

export const POCKET_DB_NAME = 'burrow-pocket';
/** 1: pairings + local names; 2: push sequence numbers + push registrations. */
const DB_VERSION = 2;

export const STORE = Object.freeze({
  pairings: 'pairings',
  names: 'local-names',
  /** burrowId → highest push seq accepted from that Burrow (number). */
  pushSeq: 'push-seq',
  /** burrowId → `PushRegistrationRecord` (src/store/push-store.ts). */
  pushRegistrations: 'push-registrations',
});

export function openPocketDb(name: string = POCKET_DB_NAME): Promise<IDBPDatabase> {
  return openDB(name, DB_VERSION, {
    upgrade(d) {
      if (!d.objectStoreNames.contains(STORE.pairings))
        d.createObjectStore(STORE.pairings, { keyPath: 'burrowId' });
      if (!d.objectStoreNames.contains(STORE.names)) d.createObjectStore(STORE.names);
      if (!d.objectStoreNames.contains(STORE.pushSeq)) d.createObjectStore(STORE.pushSeq);
      if (!d.objectStoreNames.contains(STORE.pushRegistrations)) d.createObjectStore(STORE.pushRegistrations);
    },
  });
}
