/**
 * Reconnect backoff for the phone (DESIGN §7 "reconnects with backoff"): one named policy and a pure function,
 * so the schedule is testable without timers and the UI can say "reconnecting in N s".
 */

export interface BackoffPolicy {
  /** Delay before the first retry, ms. */
  readonly initialDelayMs: number;
  /** Growth per failed attempt. */
  readonly growthFactor: number;
  /** Cap on any one delay, ms. */
  readonly maxDelayMs: number;
  /** Fraction (0..1) of the delay that is randomised away, so many phones do not reconnect in lockstep. */
  readonly jitter: number;
}

/**
 * A phone is usually on a flaky mobile link: retry quickly at first, never wait more than 10 s. Pocket is
 * connected only while someone has it open, so every second of backoff is a second they stare at
 * "reconnecting"; a retry costs one small handshake. (Was 30 s: in issue 8's relay-restart test a phone that
 * hit the relay while the Burrow was still away came back 13 s after the Burrow did.)
 */
export const POCKET_BACKOFF: BackoffPolicy = Object.freeze({
  initialDelayMs: 500,
  growthFactor: 2,
  maxDelayMs: 10_000,
  jitter: 0.3,
});

/** Attempts past this all get the capped delay (and growthFactor^attempt stays finite). */
const MAX_EXPONENT = 64;

/**
 * Delay before retry number `attempt` (0 = first retry): min(max, initial·growth^attempt), minus up to
 * `jitter` of it. `random` is a sample in [0, 1) (inject a fixed value in tests).
 */
export function backoffDelayMs(policy: BackoffPolicy, attempt: number, random: number): number {
  if (!Number.isInteger(attempt) || attempt < 0)
    throw new RangeError('attempt must be a non-negative integer');
  if (!(random >= 0 && random < 1)) throw new RangeError('random must be in [0, 1)');
  const exp = Math.min(attempt, MAX_EXPONENT);
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.growthFactor ** exp);
  return Math.round(base * (1 - policy.jitter * random));
}
