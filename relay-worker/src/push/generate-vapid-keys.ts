/**
 * Prints a fresh VAPID key pair for a relay deployment:
 *   npx tsx --conditions=source relay-worker/src/push/generate-vapid-keys.ts
 * then `npx wrangler secret put VAPID_PRIVATE_KEY` with the first line (a P-256 private JWK in JSON; see
 * vapid-keys.ts). The second line is the public key phones subscribe with, for reference only: the relay
 * derives it from the secret.
 */
import { generateVapidKeys } from './vapid-keys.js';

const { keys, secret } = await generateVapidKeys();
console.log(secret);
console.log(keys.publicKeyText);
