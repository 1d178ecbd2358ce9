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

/**
 * A static key whose private half this library never sees: a non-extractable WebCrypto key on the phone
 * (issue 16: a modified Pocket must not be able to copy the phone's key away). The handshake asks it for each
 * DH result instead of reading the private key. `dh` is synchronous — Noise's state machine is — so the holder
 * computes, before each handshake message, the results that message needs (the peer's public keys are known by
 * then: a pinned static, or the ephemeral at the start of the message being read). It throws a NoiseError when
 * asked for a key it did not prepare.
 */
export interface ExternalStaticKey {
  readonly publicKey: Uint8Array;
  dh(remotePublicKey: Uint8Array): Uint8Array;
}

export function isExternalStaticKey(key: KeyPair | ExternalStaticKey): key is ExternalStaticKey {
  return typeof (key as ExternalStaticKey).dh === 'function' && !('privateKey' in key);
}

/**
 * DH with our static key, whichever kind it is. The external result gets the same checks `dh` applies to its
 * own: 32 bytes, not all zero (a low-order peer key, rev 34 §12.1 policy above).
 */
export function staticDh(key: KeyPair | ExternalStaticKey, publicKey: Uint8Array): Uint8Array {
  if (!isExternalStaticKey(key)) return dh(key.privateKey, publicKey);
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== X25519_KEY_BYTES) {
    throw new NoiseError('invalid-public-key', 'X25519 public key must be 32 bytes');
  }
  const shared = key.dh(publicKey);
  if (!(shared instanceof Uint8Array) || shared.length !== X25519_KEY_BYTES) {
    throw new NoiseError('missing-key', 'the external static key gave no 32-byte DH result');
  }
  if (isAllZero(shared)) throw new NoiseError('invalid-public-key', 'X25519 public key is a low-order point');
  return Uint8Array.from(shared);
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
