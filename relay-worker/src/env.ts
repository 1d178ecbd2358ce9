import type { BurrowObject } from './burrow-object.js';
import type { SourceLimiter } from './source-limiter.js';

/** Bindings and vars from wrangler.toml; secrets via `wrangler secret put`. */
export interface Env {
  readonly BURROW: DurableObjectNamespace<BurrowObject>;
  readonly LIMITER: DurableObjectNamespace<SourceLimiter>;
  readonly ASSETS: Fetcher;
  /** Operator gate for enrollment: when set, `POST /v1/burrows` needs `Authorization: Bearer <it>`. */
  readonly ENROLL_SECRET?: string;
  /** RFC 8292 public key (base64url, 65 bytes), published by /v1/info; the private half arrives with push. */
  readonly VAPID_PUBLIC_KEY?: string;
}
