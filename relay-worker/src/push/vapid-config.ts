/**
 * The relay's VAPID signer from its configuration (secret `VAPID_PRIVATE_KEY`, var `VAPID_SUBJECT`),
 * imported once per isolate and shared by the Worker (`/v1/info`) and the Durable Objects (push sends), so
 * the published key and the signing key can never disagree and the token cache (vapid-signer.ts) survives
 * across requests. Missing or unusable configuration → null: push is unavailable (503), `/v1/info` says null.
 */
import { importVapidKeys } from './vapid-keys.js';
import { VapidSigner } from './vapid-signer.js';

/** One entry: an isolate runs one deployment's configuration. A changed value replaces it. */
let memo: { readonly key: string; readonly signer: Promise<VapidSigner | null> } | null = null;

export function vapidSignerFromConfig(
  secret: string | undefined,
  subject: string | undefined,
): Promise<VapidSigner | null> {
  if (typeof secret !== 'string' || secret === '' || typeof subject !== 'string' || subject === '') {
    return Promise.resolve(null);
  }
  // The secret is only compared, never logged.
  const key = `${subject}\n${secret}`;
  if (memo?.key !== key) memo = { key, signer: build(secret, subject) };
  return memo.signer;
}

async function build(secret: string, subject: string): Promise<VapidSigner | null> {
  try {
    return new VapidSigner(await importVapidKeys(secret), subject);
  } catch (error) {
    // The messages of importVapidKeys / vapidSubjectProblem name what is wrong, never the key material.
    console.error(`VAPID configuration unusable: ${error instanceof Error ? error.message : 'unknown'}`);
    return null;
  }
}
