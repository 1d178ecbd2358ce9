import { assertBytes } from './bytes.js';
import { NoiseError } from './noise-error.js';

/**
 * Anti-replay for connect mode (DESIGN §4.2): IK message 1 can be replayed by anyone who saw it, so its
 * payload carries a timestamp that must exceed the last one the Burrow accepted from that device (the same
 * defence as WireGuard's TAI64N timestamp). Encoded as a u64 big-endian count of milliseconds since the Unix
 * epoch; values stay within Number.MAX_SAFE_INTEGER so they are plain numbers in JS.
 */
export const HANDSHAKE_TIMESTAMP_BYTES = 8;

/**
 * How far ahead of the Burrow's clock a timestamp may be. Without a bound, one handshake from a phone whose
 * clock jumped ahead by a year would lock that phone out for a year once its clock was corrected.
 */
export const HANDSHAKE_TIMESTAMP_MAX_AHEAD_MS = 60 * 60 * 1000;

function assertTimestamp(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a safe integer ≥ 0`);
}

export function encodeHandshakeTimestamp(timestampMs: number): Uint8Array {
  assertTimestamp('timestampMs', timestampMs);
  const out = new Uint8Array(HANDSHAKE_TIMESTAMP_BYTES);
  new DataView(out.buffer).setBigUint64(0, BigInt(timestampMs), false);
  return out;
}

/** Decodes message 1's payload; anything but exactly 8 bytes of a safe integer is `malformed-payload`. */
export function decodeHandshakeTimestamp(payload: Uint8Array): number {
  assertBytes('payload', payload);
  if (payload.length !== HANDSHAKE_TIMESTAMP_BYTES) {
    throw new NoiseError(
      'malformed-payload',
      `handshake timestamp must be ${HANDSHAKE_TIMESTAMP_BYTES} bytes`,
    );
  }
  const value = new DataView(payload.buffer, payload.byteOffset, payload.length).getBigUint64(0, false);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new NoiseError('malformed-payload', 'handshake timestamp is out of range');
  }
  return Number(value);
}

/**
 * The phone's side: the timestamp to send, strictly above the last one it sent even if the clock stepped
 * back or two connects fall in one millisecond.
 */
export function nextHandshakeTimestamp(nowMs: number, lastSentMs: number): number {
  assertTimestamp('nowMs', nowMs);
  assertTimestamp('lastSentMs', lastSentMs);
  return Math.max(nowMs, lastSentMs + 1);
}

export type HandshakeTimestampVerdict = 'fresh' | 'replayed' | 'too-far-ahead';

/**
 * The Burrow's side, pure with an injected clock: `fresh` only if `timestamp > lastSeen` and it is at most
 * HANDSHAKE_TIMESTAMP_MAX_AHEAD_MS ahead of `nowMs`. Store `timestamp` as the new lastSeen only once the
 * handshake completes.
 */
export function checkHandshakeTimestamp(
  timestampMs: number,
  lastSeenMs: number,
  nowMs: number,
  maxAheadMs: number = HANDSHAKE_TIMESTAMP_MAX_AHEAD_MS,
): HandshakeTimestampVerdict {
  assertTimestamp('timestampMs', timestampMs);
  assertTimestamp('lastSeenMs', lastSeenMs);
  assertTimestamp('nowMs', nowMs);
  assertTimestamp('maxAheadMs', maxAheadMs);
  if (timestampMs <= lastSeenMs) return 'replayed';
  if (timestampMs > nowMs + maxAheadMs) return 'too-far-ahead';
  return 'fresh';
}
