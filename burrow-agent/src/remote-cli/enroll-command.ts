/**
 * `burrow enroll --relay <url> [--secret <s>]`: enroll at a relay and store burrowId / burrowToken / relay URL
 * in the state file, creating the Burrow's static key if it has none (DESIGN §3, §6).
 */
import { generateKeyPair } from '@burrow/crypto';
import { encodeBase64url } from '@burrow/protocol';
import type { openStateStore } from '../state/burrow-state.js';
import { enrollAtRelay } from './relay-http.js';

export interface EnrollArgs {
  readonly relayUrl: string;
  readonly secret: string | null;
}

const RELAY_URL = /^(https:\/\/[^\s/?#@]+|http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?)\/?$/;

export async function enrollCommand(
  args: EnrollArgs,
  store: ReturnType<typeof openStateStore>,
  now: () => number = Date.now,
  fetchFn: typeof fetch = fetch,
): Promise<{ burrowId: string; relayUrl: string }> {
  if (!RELAY_URL.test(args.relayUrl))
    throw new TypeError('--relay must be an https:// URL (http:// only for localhost)');
  const relayUrl = args.relayUrl.replace(/\/+$/, '');
  const enrolled = await enrollAtRelay(relayUrl, args.secret, fetchFn);
  const state = store.load();
  const staticKey =
    state.staticKey ??
    (() => {
      const kp = generateKeyPair();
      return { publicKey: encodeBase64url(kp.publicKey), privateKey: encodeBase64url(kp.privateKey) };
    })();
  store.save({
    ...state,
    staticKey,
    // A new enrollment is a new identity at the relay: phones paired under the old burrowId cannot reach us.
    acl: state.enrollment?.burrowId === enrolled.burrowId ? state.acl : [],
    enrollment: {
      relayUrl,
      burrowId: enrolled.burrowId,
      burrowToken: enrolled.burrowToken,
      enrolledAt: now(),
    },
  });
  return { burrowId: enrolled.burrowId, relayUrl };
}
