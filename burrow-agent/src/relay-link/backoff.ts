/**
 * Reconnect backoff for the Burrow's one relay socket (DESIGN §6 "Relay link: reconnect with capped, jittered
 * backoff"). One named policy and a pure function (the schedule is tested without timers).
 */

export interface BackoffPolicy {
  /** Delay before the first retry, ms. */
  readonly initialDelayMs: number;
  /** Growth per consecutive failure. */
  readonly growthFactor: number;
  /** Cap on any one delay, ms. */
  readonly maxDelayMs: number;
  /** Fraction (0..1) of the delay randomised away, so a relay restart is not met by every Burrow at once. */
  readonly jitter: number;
  /** A connection that stayed up this long resets the failure count (ms). */
  readonly stableAfterMs: number;
}

/**
 * A home computer on a steady link: retry after 1 s, back off to at most a minute. A link that served for
 * 5 s counts as a success, so the next outage (a relay redeploy, a Wi-Fi hop) starts again at 1 s; a relay
 * that accepts and drops the socket at once still backs off to the cap. (Was 30 s: outages less than 30 s
 * apart kept adding up, so each later one started at 2, 4, 8 s instead of 1 s; issue 8's relay-restart test.)
 */
export const RELAY_LINK_BACKOFF: BackoffPolicy = Object.freeze({
  initialDelayMs: 1_000,
  growthFactor: 2,
  maxDelayMs: 60_000,
  jitter: 0.25,
  stableAfterMs: 5_000,
});

const MAX_EXPONENT = 64;

/** Delay before retry `attempt` (0 = first): min(max, initial·growth^attempt) minus up to `jitter` of it. */
export function backoffDelayMs(policy: BackoffPolicy, attempt: number, random: number): number {
  if (!Number.isInteger(attempt) || attempt < 0)
    throw new RangeError('attempt must be a non-negative integer');
  if (!(random >= 0 && random < 1)) throw new RangeError('random must be in [0, 1)');
  const base = Math.min(
    policy.maxDelayMs,
    policy.initialDelayMs * policy.growthFactor ** Math.min(attempt, MAX_EXPONENT),
  );
  return Math.round(base * (1 - policy.jitter * random));
}
