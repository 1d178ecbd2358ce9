/**
 * The relay's VAPID key pair (RFC 8292 §3; DESIGN §3: a relay secret).
 *
 * Secret format (`VAPID_PRIVATE_KEY`, set with `wrangler secret put`): the private key as a JWK in JSON,
 * `{"kty":"EC","crv":"P-256","x":"…","y":"…","d":"…"}` (x, y, d base64url, RFC 7518 §6.2). JWK because
 * WebCrypto cannot import a raw private scalar, and because it carries the public half, which `/v1/info`
 * publishes as the 65-byte application server key. `generateVapidKeys` prints one.
 */
import { encodeBase64url } from '@burrow/protocol';
import { ascii } from './bytes.js';
import {
  exportPublicPoint,
  importPrivateJwk,
  importPublicPoint,
  P256_POINT_BYTES,
  type P256Jwk,
  type WebCryptoKey,
  type WebCryptoKeyPair,
} from './p256.js';

/** Longest secret read (a P-256 JWK is ~180 characters). */
export const MAX_VAPID_SECRET_CHARS = 1024;

export interface VapidKeys {
  /** ES256 signing key (not extractable). */
  readonly privateKey: WebCryptoKey;
  /** Uncompressed P-256 point, the `applicationServerKey` phones subscribe with. */
  readonly publicKey: Uint8Array;
  /** `publicKey` in base64url: the `k=` parameter and what `/v1/info` publishes. */
  readonly publicKeyText: string;
}

/** A fresh key pair and its secret string (JWK JSON) for `wrangler secret put VAPID_PRIVATE_KEY`. */
export async function generateVapidKeys(): Promise<{ readonly keys: VapidKeys; readonly secret: string }> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as WebCryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey('jwk', pair.privateKey)) as P256Jwk;
  const secret = JSON.stringify({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, d: jwk.d });
  return { keys: await importVapidKeys(secret), secret };
}

/**
 * Imports the secret string. @throws TypeError when it is not a string; RangeError when it is not a P-256
 * private JWK, or its public half does not belong to its private half.
 */
export async function importVapidKeys(secret: string): Promise<VapidKeys> {
  if (typeof secret !== 'string') throw new TypeError('VAPID secret must be a string');
  if (secret.length > MAX_VAPID_SECRET_CHARS) throw new RangeError('VAPID secret is too long');
  let jwk: unknown;
  try {
    jwk = JSON.parse(secret);
  } catch {
    throw new RangeError('VAPID secret must be a P-256 private JWK in JSON');
  }
  if (!isEcPrivateJwk(jwk)) throw new RangeError('VAPID secret must be a P-256 private JWK in JSON');
  const privateKey = await importPrivateJwk(jwk, 'ECDSA');
  const publicJwk = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
  let publicCrypto: WebCryptoKey;
  try {
    publicCrypto = await crypto.subtle.importKey(
      'jwk',
      publicJwk,
      { name: 'ECDSA', namedCurve: 'P-256' },
      true,
      ['verify'],
    );
  } catch {
    throw new RangeError('VAPID secret: x, y is not a P-256 point');
  }
  const publicKey = await exportPublicPoint(publicCrypto);
  if (publicKey.length !== P256_POINT_BYTES) throw new RangeError('VAPID secret: bad public key');
  // A JWK whose x, y belong to another key would sign tokens no push service accepts: prove the pair once.
  const probe = ascii('burrow vapid key check');
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, probe);
  const verifier = await importPublicPoint(publicKey, 'ECDSA');
  if (!(await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, verifier, signature, probe))) {
    throw new RangeError('VAPID secret: x, y do not match d');
  }
  return { privateKey, publicKey, publicKeyText: encodeBase64url(publicKey) };
}

interface EcPrivateJwk {
  readonly kty: 'EC';
  readonly crv: 'P-256';
  readonly x: string;
  readonly y: string;
  readonly d: string;
}

function isEcPrivateJwk(value: unknown): value is EcPrivateJwk {
  if (typeof value !== 'object' || value === null) return false;
  const j = value as Record<string, unknown>;
  return (
    j.kty === 'EC' &&
    j.crv === 'P-256' &&
    typeof j.x === 'string' &&
    typeof j.y === 'string' &&
    typeof j.d === 'string'
  );
}
