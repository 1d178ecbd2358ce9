/**
 * Signs VAPID authorizations for the relay and caches one per audience until near its expiry, so a burst of
 * pushes to the same service costs one ECDSA signature (RFC 8292 §2 allows reuse until exp). The cache is
 * bounded; past the bound the oldest audience is dropped. Time comes from the caller's clock.
 */
import {
  signVapidJwt,
  VAPID_TOKEN_LIFETIME_SECONDS,
  vapidAuthorization,
  vapidSubjectProblem,
} from './vapid-jwt.js';
import type { VapidKeys } from './vapid-keys.js';

/** Audiences cached at once (there are a handful of push services in the world). */
export const MAX_VAPID_CACHE_ENTRIES = 32;
/** A cached token is replaced once less than this remains before its exp. */
export const VAPID_REFRESH_BEFORE_EXPIRY_SECONDS = 60 * 60;

/** A token being signed or signed, with its exp known up front so callers can judge it before it settles. */
type CachedToken = Promise<{ readonly header: string; readonly exp: number }> & { readonly exp: number };

export class VapidSigner {
  readonly #keys: VapidKeys;
  readonly #subject: string;
  readonly #cache = new Map<string, CachedToken>();

  /** @throws RangeError when `subject` is not a real mailto: / https: contact. */
  constructor(keys: VapidKeys, subject: string) {
    const problem = vapidSubjectProblem(subject);
    if (problem !== null) throw new RangeError(problem);
    this.#keys = keys;
    this.#subject = subject;
  }

  get publicKeyText(): string {
    return this.#keys.publicKeyText;
  }

  /**
   * The `Authorization` header value for `audience` (an origin) at `nowMs`. Concurrent calls for one
   * audience (a send fans out to every target at once) share one signature.
   */
  async authorization(audience: string, nowMs: number): Promise<string> {
    if (!Number.isFinite(nowMs)) throw new RangeError('nowMs must be a finite number');
    const now = Math.floor(nowMs / 1000);
    const cached = this.#cache.get(audience);
    if (cached && cached.exp - now > VAPID_REFRESH_BEFORE_EXPIRY_SECONDS) return (await cached).header;
    const exp = now + VAPID_TOKEN_LIFETIME_SECONDS;
    const entry = signVapidJwt(this.#keys, { aud: audience, exp, sub: this.#subject }).then((token) => ({
      header: vapidAuthorization(token, this.#keys.publicKeyText),
      exp,
    }));
    this.#cache.delete(audience);
    if (this.#cache.size >= MAX_VAPID_CACHE_ENTRIES) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(audience, Object.assign(entry, { exp }));
    try {
      return (await entry).header;
    } catch (error) {
      if (this.#cache.get(audience) === entry) this.#cache.delete(audience);
      throw error;
    }
  }

  /** Audiences currently cached (for tests and diagnostics). */
  get cachedAudiences(): number {
    return this.#cache.size;
  }
}
