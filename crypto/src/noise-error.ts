/**
 * The one error class the Noise layer throws for anything that comes from the other side or from using a
 * state out of order. Bad arguments from our own callers (wrong key length, non-integer) stay `TypeError` /
 * `RangeError`; a `NoiseError` means "this connection must be closed", and `code` says why without leaking
 * secrets (messages never include key material).
 */
export type NoiseErrorCode =
  /** AEAD authentication failed (tampered, wrong key, wrong nonce, wrong AD). */
  | 'decrypt-failed'
  /** A DH produced the all-zero output: the peer sent a low-order point (Wycheproof "ZeroSharedSecret"). */
  | 'invalid-public-key'
  /** A handshake message is shorter or longer than its tokens need. */
  | 'malformed-message'
  /** A message or plaintext exceeds the 65535-byte Noise limit (rev 34 §3). */
  | 'message-too-large'
  /** The nonce reached 2^64−1, which is reserved (rev 34 §5.1); the session must be replaced. */
  | 'nonce-exhausted'
  /** A `psk` token was reached but no psk had been supplied (see `HandshakeState.setPsk`). */
  | 'missing-psk'
  /** A token needs a key the state was not given (s, rs) — a setup error of the caller. */
  | 'missing-key'
  /** write/read called out of turn, after the end of the handshake, or after a failure. */
  | 'invalid-state'
  /** A handshake payload (e.g. the message-1 timestamp) is not in the expected shape. */
  | 'malformed-payload';

export class NoiseError extends Error {
  override readonly name = 'NoiseError';
  constructor(
    readonly code: NoiseErrorCode,
    message: string,
  ) {
    super(message);
  }
}
