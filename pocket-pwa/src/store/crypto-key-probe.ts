/**
 * Whether this engine's IndexedDB can keep a CryptoKey (issue 16 item 7). Chrome, Firefox and Safari can.
 * WebKitGTK wraps stored keys with a secret from the desktop keyring, and without one (a headless session) its
 * `put` fails ("key path did not yield a value") — after pairing would already have been accepted. So Pocket
 * asks first, once per page, on a throwaway database shaped like the pairings store, and falls back to the
 * @noble key where the answer is no (core/client-static.ts).
 */
import { deleteDB, openDB } from 'idb';

const PROBE_DB = 'burrow-pocket-key-probe';
/**
 * How long the probe may take (ms) before the answer is no. WebKitGTK asks the desktop keyring over D-Bus for the
 * wrapping secret and, when there is none, fails only after D-Bus's own timeout (~25 s) — pairing would wait that
 * long. Every engine that can store the key answers in milliseconds.
 */
export const KEY_PROBE_TIMEOUT_MS = 3_000;
let answer: Promise<boolean> | null = null;

/** Asked once per page (main.tsx starts it early, so pairing rarely waits). */
export function canStoreCryptoKeys(): Promise<boolean> {
  answer ??= Promise.race([
    probe().catch(() => false),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), KEY_PROBE_TIMEOUT_MS)),
  ]);
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
