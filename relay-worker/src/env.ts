import type { BurrowObject } from './burrow-object.js';
import { parseExtraPushServiceHosts } from './push/push-service-hosts.js';
import type { SourceLimiter } from './source-limiter.js';

/** Bindings and vars from wrangler.toml; secrets via `wrangler secret put`. */
export interface Env {
  readonly BURROW: DurableObjectNamespace<BurrowObject>;
  readonly LIMITER: DurableObjectNamespace<SourceLimiter>;
  readonly ASSETS: Fetcher;
  /**
   * Operator gate for enrollment: `POST /v1/burrows` needs `Authorization: Bearer <it>`. Without it enrollment
   * is closed (403), unless the development flag below is set. [SPEC: RL-HTTP-3]
   */
  readonly ENROLL_SECRET?: string;
  /**
   * DEVELOPMENT ONLY, never set in the committed wrangler.toml: `"1"` opens enrollment to anyone when no
   * `ENROLL_SECRET` is set. `npm start` and the test harness set it for their local relay. [SPEC: RL-HTTP-3]
   */
  readonly DEV_OPEN_ENROLLMENT?: string;
  /**
   * Secret: the relay's VAPID key pair as a P-256 private JWK in JSON (push/vapid-keys.ts). `/v1/info`
   * publishes its public half; without it (or without VAPID_SUBJECT) push sends answer 503 push_unavailable.
   */
  readonly VAPID_PRIVATE_KEY?: string;
  /** Var: the operator's real `mailto:` or `https:` contact, the VAPID `sub` claim (RFC 8292 §2.1). */
  readonly VAPID_SUBJECT?: string;
  /**
   * Var: Web Push services to allow beyond the built-in list (push/push-service-hosts.ts), as comma- or
   * space-separated host patterns (`push.example.org`, `*.autopush.example.net`). [SPEC: RL-HTTP-8]
   */
  readonly EXTRA_PUSH_SERVICE_HOSTS?: string;
  /**
   * DEVELOPMENT ONLY, for the tests' local push service; never set in the committed wrangler.toml nor by
   * `npm start`: `"1"` lets subscriptions and pushes use loopback `http:` endpoints (127.0.0.0/8, [::1],
   * localhost).
   */
  readonly DEV_ALLOW_LOOPBACK_PUSH?: string;
}

/** The development switch, read one way everywhere: exactly `"1"` turns it on. [SPEC: RL-PUSH-6] */
export function allowsLoopbackPushForDev(env: Pick<Env, 'DEV_ALLOW_LOOPBACK_PUSH'>): boolean {
  return env.DEV_ALLOW_LOOPBACK_PUSH === '1';
}

/** How `POST /v1/burrows` admits a Burrow. [SPEC: RL-HTTP-3] */
export type EnrollmentPolicy =
  | { readonly kind: 'secret'; readonly secret: string }
  | { readonly kind: 'open-for-development' }
  | { readonly kind: 'closed' };

/** The secret wins; without one, only the exact development flag `"1"` opens enrollment. */
export function enrollmentPolicy(env: Pick<Env, 'ENROLL_SECRET' | 'DEV_OPEN_ENROLLMENT'>): EnrollmentPolicy {
  if (env.ENROLL_SECRET) return { kind: 'secret', secret: env.ENROLL_SECRET };
  return env.DEV_OPEN_ENROLLMENT === '1' ? { kind: 'open-for-development' } : { kind: 'closed' };
}

/** The operator's extra push service host patterns; refused entries are logged, never used. */
export function extraPushServiceHosts(env: Pick<Env, 'EXTRA_PUSH_SERVICE_HOSTS'>): readonly string[] {
  const { hosts, rejected } = parseExtraPushServiceHosts(env.EXTRA_PUSH_SERVICE_HOSTS);
  if (rejected.length > 0) {
    console.warn(
      `EXTRA_PUSH_SERVICE_HOSTS: ignored ${rejected.length} entr${rejected.length === 1 ? 'y' : 'ies'} that are not public host patterns`,
    );
  }
  return hosts;
}
