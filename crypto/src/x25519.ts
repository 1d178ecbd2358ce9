import { x25519 } from '@noble/curves/ed25519.js';
import { assertBytes, isAllZero } from './bytes.js';
import { NoiseError } from './noise-error.js';
import { randomBytes } from './random.js';

/** Noise DHLEN for 25519 (rev 34 §12.1). */
export const X25519_KEY_BYTES = 32;

export interface KeyPair {
  readonly privateKey: Uint8Array;
  readonly publicKey: Uint8Array;
}

/** A fresh key pair from crypto.getRandomValues (Noise GENERATE_KEYPAIR, rev 34 §4.1). */
export function generateKeyPair(): KeyPair {
  const privateKey = randomBytes(X25519_KEY_BYTES);
  return { privateKey, publicKey: publicKeyFromPrivate(privateKey) };
}

export function publicKeyFromPrivate(privateKey: Uint8Array): Uint8Array {
  assertBytes('privateKey', privateKey, X25519_KEY_BYTES);
  return x25519.getPublicKey(privateKey);
}

export function keyPairFromPrivate(privateKey: Uint8Array): KeyPair {
  return { privateKey: Uint8Array.from(privateKey), publicKey: publicKeyFromPrivate(privateKey) };
}

/**
 * Noise DH (rev 34 §4.1, §12.1). Policy for low-order points: the spec allows either accepting them or
 * rejecting the all-zero output; we reject, with `NoiseError('invalid-public-key')`. A low-order point can only
 * come from a misbehaving peer, and with an all-zero DH the token adds nothing to the key. Non-canonical and
 * twist points are accepted (RFC 7748 §5 semantics), which is what Wycheproof calls "acceptable".
 */
export function dh(privateKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  assertBytes('privateKey', privateKey, X25519_KEY_BYTES);
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== X25519_KEY_BYTES) {
    // Public keys come off the wire: a wrong length is the peer's fault, not ours.
    throw new NoiseError('invalid-public-key', 'X25519 public key must be 32 bytes');
  }
  let shared: Uint8Array;
  try {
    shared = x25519.getSharedSecret(privateKey, publicKey);
  } catch {
    // noble throws exactly when the shared secret is all zero (low-order point).
    throw new NoiseError('invalid-public-key', 'X25519 public key is a low-order point');
  }
  // Belt and braces: do not rely on the library for the one check this policy rests on.
  if (isAllZero(shared)) throw new NoiseError('invalid-public-key', 'X25519 public key is a low-order point');
  return shared;
}
