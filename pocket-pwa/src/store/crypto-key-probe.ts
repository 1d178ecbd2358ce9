/**
 * Whether this engine's IndexedDB can keep a CryptoKey (issue 16 item 7). Chrome, Firefox and Safari can.
 * WebKitGTK wraps stored keys with a secret from the desktop keyring, and without one (a headless session) its
 * `put` fails ("key path did not yield a value") — after pairing would already have been accepted. So Pocket
 * asks first, once per page, on a throwaway database shaped like the pairings store, and falls back to the
 * @noble key where the answer is no (core/client-static.ts).
 */
import { deleteDB, openDB } from 'idb';

const PROBE_DB = 'burrow-pocket-key-probe';
let answer: Promise<boolean> | null = null;

export function canStoreCryptoKeys(): Promise<boolean> {
  answer ??= probe().catch(() => false);
  return answer;
}

async function probe(): Promise<boolean> {
  const pair = (await crypto.subtle.generateKey({ name: 'X25519' }, false, ['deriveBits'])) as CryptoKeyPair;
  const db = await openDB(PROBE_DB, 1, {
    upgrade: (d) => void d.createObjectStore('keys', { keyPath: 'id' }),
  });
  try {
    await db.put('keys', { id: 'probe', key: pair.privateKey });
    const back = (await db.get('keys', 'probe')) as { key?: unknown } | undefined;
    return back?.key instanceof CryptoKey && back.key.extractable === false;
  } finally {
    db.close();
    await deleteDB(PROBE_DB);
  }
}
