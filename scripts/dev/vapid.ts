/**
 * The development relay's VAPID key pair (RFC 8292), generated once by the relay's own generator and kept in
 * `.burrow-dev/vapid.json` (0600), so phones subscribed in an earlier run stay subscribed. Development only:
 * a deployed relay takes its key from `wrangler secret put VAPID_PRIVATE_KEY` (relay-worker/README.md).
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generateVapidKeys, importVapidKeys } from '../../relay-worker/src/push/vapid-keys.js';

/**
 * The relay refuses local or reserved hosts in the subject (vapid-jwt.ts). Real push services may refuse a
 * placeholder too: set BURROW_DEV_VAPID_SUBJECT to your own `mailto:` before the first `npm start`.
 */
export const DEV_VAPID_SUBJECT = 'mailto:burrow-dev@example.com';
/** Largest vapid.json read (a JWK is ~250 bytes). */
const MAX_VAPID_FILE_BYTES = 4096;

export interface DevVapid {
  /** The relay's VAPID_PRIVATE_KEY (a P-256 private JWK in JSON). */
  readonly secret: string;
  readonly publicKey: string;
  readonly subject: string;
}

export async function loadOrCreateVapid(path: string): Promise<DevVapid> {
  if (existsSync(path)) {
    const text = readFileSync(path, 'utf8');
    if (text.length > MAX_VAPID_FILE_BYTES) throw new RangeError(`${path} is too large to be a VAPID key`);
    const saved = JSON.parse(text) as Partial<DevVapid>;
    if (typeof saved.secret !== 'string' || typeof saved.subject !== 'string')
      throw new TypeError(`${path} is not a VAPID key file; move it aside to generate a new one`);
    // Validates the key (RangeError if the pair is broken) and re-derives the public half.
    const keys = await importVapidKeys(saved.secret);
    return { secret: saved.secret, publicKey: keys.publicKeyText, subject: saved.subject };
  }
  const { keys, secret } = await generateVapidKeys();
  const subject = process.env.BURROW_DEV_VAPID_SUBJECT || DEV_VAPID_SUBJECT;
  const vapid: DevVapid = { secret, publicKey: keys.publicKeyText, subject };
  writeFileSync(path, `${JSON.stringify(vapid, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return vapid;
}
