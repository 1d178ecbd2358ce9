/**
 * A pure token bucket: state in, state out, the clock passed in. [SPEC: RL-LIM-2]
 * Starts full; one token returns every `refillIntervalMs`, never above `capacity`.
 */
export interface TokenBucketConfig {
  /** Largest burst, in requests. */
  readonly capacity: number;
  /** Milliseconds for one token to come back. */
  readonly refillIntervalMs: number;
}

export interface TokenBucketState {
  readonly tokens: number;
  /** Clock reading (ms) that `tokens` is valid at. */
  readonly at: number;
}

export function checkBucketConfig(config: TokenBucketConfig): void {
  if (!Number.isInteger(config.capacity) || config.capacity < 1)
    throw new RangeError('capacity must be an integer ≥ 1');
  if (!Number.isFinite(config.refillIntervalMs) || config.refillIntervalMs <= 0) {
    throw new RangeError('refillIntervalMs must be > 0');
  }
}

export function fullBucket(config: TokenBucketConfig, now: number): TokenBucketState {
  checkBucketConfig(config);
  return { tokens: config.capacity, at: now };
}

/** Refills for the time elapsed since `state.at`. A clock that went backwards refills nothing. */
export function refill(config: TokenBucketConfig, state: TokenBucketState, now: number): TokenBucketState {
  const elapsed = Math.max(0, now - state.at);
  const tokens = Math.min(config.capacity, state.tokens + elapsed / config.refillIntervalMs);
  return { tokens, at: Math.max(now, state.at) };
}

/**
 * The clock reading at which `state` has refilled to `capacity` (never before `state.at`): from then on it
 * answers exactly like a bucket never used, so whoever stores it may forget it.
 */
export function fullAgainAt(config: TokenBucketConfig, state: TokenBucketState): number {
  checkBucketConfig(config);
  const missing = Math.max(0, config.capacity - state.tokens);
  return state.at + Math.ceil(missing * config.refillIntervalMs);
}

export interface TakeResult {
  readonly allowed: boolean;
  readonly state: TokenBucketState;
  /** When refused: ms until one token is back (for `Retry-After`). */
  readonly retryAfterMs: number;
}

/**
 * Takes `cost` tokens (default 1: one request; a byte budget takes a frame's length) if the bucket holds them.
 * A refusal takes nothing.
 */
export function take(
  config: TokenBucketConfig,
  state: TokenBucketState | undefined,
  now: number,
  cost = 1,
): TakeResult {
  if (typeof now !== 'number' || !Number.isFinite(now)) throw new TypeError('now must be a finite number');
  if (!Number.isInteger(cost) || cost < 1 || cost > config.capacity)
    throw new RangeError('cost must be an integer from 1 to the capacity');
  const current = refill(config, state ?? fullBucket(config, now), now);
  if (current.tokens >= cost)
    return { allowed: true, state: { tokens: current.tokens - cost, at: current.at }, retryAfterMs: 0 };
  return {
    allowed: false,
    state: current,
    retryAfterMs: Math.ceil((cost - current.tokens) * config.refillIntervalMs),
  };
}
