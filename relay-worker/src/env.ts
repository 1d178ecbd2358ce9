import type { BurrowObject } from './burrow-object.js';
import type { SourceLimiter } from './source-limiter.js';

/** Bindings and vars from wrangler.toml; secrets via `wrangler secret put`. */
export interface Env {
  readonly BURROW: DurableObjectNamespace<BurrowObject>;
  readonly LIMITER: DurableObjectNamespace<SourceLimiter>;
  readonly ASSETS: Fetcher;
  /** Operator gate for enrollment: when set, `POST /v1/burrows` needs `Authorization: Bearer <it>`. */
  readonly ENROLL_SECRET?: string;
  /**
   * Secret: the relay's VAPID key pair as a P-256 private JWK in JSON (push/vapid-keys.ts). `/v1/info`
   * publishes its public half; without it (or without VAPID_SUBJECT) push sends answer 503 push_unavailable.
   */
  readonly VAPID_PRIVATE_KEY?: string;
  /** Var: the operator's real `mailto:` or `https:` contact, the VAPID `sub` claim (RFC 8292 §2.1). */
  readonly VAPID_SUBJECT?: string;
  /**
   * DEVELOPMENT ONLY, never set in the committed wrangler.toml: `"1"` lets subscriptions and pushes use
   * loopback `http:` endpoints (127.0.0.0/8, [::1], localhost), for the local push service the tests run.
   */
  readonly DEV_ALLOW_LOOPBACK_PUSH?: string;
}

/** The development switch, read one way everywhere: exactly `"1"` turns it on. [SPEC: RL-PUSH-6] */
export function allowsLoopbackPushForDev(env: Pick<Env, 'DEV_ALLOW_LOOPBACK_PUSH'>): boolean {
  return env.DEV_ALLOW_LOOPBACK_PUSH === '1';
}
