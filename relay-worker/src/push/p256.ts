/**
 * P-256 key handling on WebCrypto: raw uncompressed points (0x04 ‖ X ‖ Y, SEC1 §2.3.3) and JWKs.
 * WebCrypto cannot import a raw private scalar, so a private key travels as a JWK (d with x, y).
 */
import { encodeBase64url } from '@burrow/protocol';
import { own } from './bytes.js';

export const P256_POINT_BYTES = 65;
export const P256_SCALAR_BYTES = 32;

export type P256Algorithm = 'ECDH' | 'ECDSA';
/** WebCrypto's key type, named the same way under the Workers and the Node typings. */
export type WebCryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
export interface WebCryptoKeyPair {
  readonly publicKey: WebCryptoKey;
  readonly privateKey: WebCryptoKey;
}

/** A P-256 JWK (RFC 7518 §6.2); `d` only in a private one. */
export interface P256Jwk {
  readonly kty: 'EC';
  readonly crv: 'P-256';
  readonly x: string;
  readonly y: string;
  readonly d?: string;
}

export function checkPoint(name: string, point: unknown): asserts point is Uint8Array {
  if (!(point instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (point.length !== P256_POINT_BYTES || point[0] !== 0x04) {
    throw new RangeError(`${name} must be a 65-byte uncompressed P-256 point`);
  }
}

/** Imports a public point; WebCrypto rejects points off the curve (RangeError here). */
export async function importPublicPoint(point: Uint8Array, algorithm: P256Algorithm): Promise<WebCryptoKey> {
  checkPoint('public key', point);
  try {
    return await crypto.subtle.importKey(
      'raw',
      own(point),
      { name: algorithm, namedCurve: 'P-256' },
      true,
      algorithm === 'ECDSA' ? ['verify'] : [],
    );
  } catch {
    throw new RangeError('public key is not a point on P-256');
  }
}

/** The private JWK for a key pair given as raw scalar and point. */
export function privateJwk(privateScalar: Uint8Array, publicPoint: Uint8Array): P256Jwk {
  checkPoint('public key', publicPoint);
  if (!(privateScalar instanceof Uint8Array) || privateScalar.length !== P256_SCALAR_BYTES) {
    throw new RangeError('private key must be a 32-byte P-256 scalar');
  }
  return {
    kty: 'EC',
    crv: 'P-256',
    x: encodeBase64url(publicPoint.subarray(1, 33)),
    y: encodeBase64url(publicPoint.subarray(33, 65)),
    d: encodeBase64url(privateScalar),
  };
}

export async function importPrivateJwk(jwk: P256Jwk, algorithm: P256Algorithm): Promise<WebCryptoKey> {
  const usages: ('sign' | 'deriveBits')[] = algorithm === 'ECDSA' ? ['sign'] : ['deriveBits'];
  const { kty, crv, x, y, d } = jwk;
  try {
    return await crypto.subtle.importKey(
      'jwk',
      { kty, crv, x, y, d },
      { name: algorithm, namedCurve: 'P-256' },
      false,
      usages,
    );
  } catch {
    throw new RangeError('not a valid P-256 private key');
  }
}

export async function exportPublicPoint(key: WebCryptoKey): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array((await crypto.subtle.exportKey('raw', key)) as ArrayBuffer);
}
