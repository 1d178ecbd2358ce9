/**
 * The phone's Client static key (DESIGN §3) as it is stored and as a handshake uses it (issue 16 item 7).
 *
 * Where the runtime has X25519 in WebCrypto, Pocket makes it a **non-extractable** CryptoKey and stores that
 * object in IndexedDB: script in the page — a modified Pocket build included — can use the key while it runs,
 * but no script can read its bytes, so it cannot be copied off the phone and used from elsewhere later.
 * Revoking the phone (`burrow devices revoke`) then ends whatever a modified build could do with it.
 *
 * Where WebCrypto has no X25519 (WebKit before it shipped the curve, any engine without Secure Curves) and in
 * the Node test clients, the key is 32 raw bytes (base64url) used by the project's own @noble code in
 * `crypto/`, as before. Noise's state machine is synchronous and WebCrypto is not, so a WebCrypto key is used
 * through `WebCryptoStaticKey`: before each handshake message the caller `prepare`s the DH results that
 * message needs (the peer keys are known by then), and the handshake reads them back (`ExternalStaticKey`).
 */
import {
  type ExternalStaticKey,
  generateKeyPair,
  type KeyPair,
  keyPairFromPrivate,
  NoiseError,
  X25519_KEY_BYTES,
} from '@burrow/crypto';
import { decodeBase64url, encodeBase64url } from '@burrow/protocol';

/** A WebCrypto X25519 private key (a `CryptoKey`), described by hand: the core has no DOM types. */
export interface WebCryptoPrivateKey {
  readonly type: string;
  readonly extractable: boolean;
  readonly algorithm: { readonly name: string };
  readonly usages: readonly string[];
}

/** The Client static's private half as a pairing record holds it: base64url bytes, or a non-extractable key. */
export type StoredClientKey = string | WebCryptoPrivateKey;

export const X25519_ALGORITHM = 'X25519';

/** What the key is allowed to do: derive shared secrets, nothing else. */
const KEY_USAGES = ['deriveBits'] as const;

/**
 * The only WebCrypto calls this module makes, typed narrowly so it compiles against the DOM's, the
 * WebWorker's and the core's own (runtime-globals.d.ts) view of `crypto`.
 */
interface SubtleX25519 {
  generateKey(algorithm: { name: string }, extractable: boolean, usages: readonly string[]): Promise<unknown>;
  exportKey(format: 'raw', key: unknown): Promise<ArrayBuffer>;
  importKey(
    format: 'raw',
    keyData: unknown,
    algorithm: { name: string },
    extractable: boolean,
    usages: readonly string[],
  ): Promise<unknown>;
  deriveBits(
    algorithm: { name: string; public: unknown },
    baseKey: unknown,
    length: number,
  ): Promise<ArrayBuffer>;
}

function subtle(): SubtleX25519 | undefined {
  return (globalThis.crypto as unknown as { subtle?: SubtleX25519 } | undefined)?.subtle;
}

/** A non-extractable X25519 private key that may only derive bits: what a stored WebCrypto key must be. */
export function isWebCryptoKey(value: unknown): value is WebCryptoPrivateKey {
  if (value === null || typeof value !== 'object') return false;
  const k = value as Partial<WebCryptoPrivateKey>;
  return (
    k.type === 'private' &&
    k.extractable === false &&
    k.algorithm?.name === X25519_ALGORITHM &&
    Array.isArray(k.usages) &&
    k.usages.length === 1 &&
    k.usages[0] === 'deriveBits'
  );
}

export interface NewClientKey {
  readonly stored: StoredClientKey;
  readonly publicKey: Uint8Array;
}

/**
 * A fresh Client static. `webCrypto: true` (Pocket) asks for a non-extractable WebCrypto key and falls back to
 * @noble when the engine has no X25519 there; `false` (Node test clients, which read the raw key in tests) uses
 * @noble directly.
 */
export async function generateClientKey(options: { readonly webCrypto: boolean }): Promise<NewClientKey> {
  const s = subtle();
  if (options.webCrypto && s) {
    try {
      const pair = (await s.generateKey({ name: X25519_ALGORITHM }, false, KEY_USAGES)) as {
        publicKey: unknown;
        privateKey: unknown;
      };
      const publicKey = new Uint8Array(await s.exportKey('raw', pair.publicKey));
      if (isWebCryptoKey(pair.privateKey) && publicKey.length === X25519_KEY_BYTES) {
        return { stored: pair.privateKey, publicKey };
      }
    } catch {
      // NotSupportedError: this engine's WebCrypto has no X25519. The @noble key below is the fallback.
    }
  }
  const pair = generateKeyPair();
  return { stored: encodeBase64url(pair.privateKey), publicKey: pair.publicKey };
}

/** The raw private key of a record that has one (Node test clients). TypeError for a non-extractable key. */
export function rawClientPrivateKey(record: { readonly clientPrivateKey: StoredClientKey }): Uint8Array {
  if (typeof record.clientPrivateKey !== 'string')
    throw new TypeError('this pairing keeps its private key in WebCrypto: it cannot be read');
  return decodeBase64url(record.clientPrivateKey);
}

/** At most this many DH results a `WebCryptoStaticKey` holds (a handshake needs two: the peer's static, its ephemeral). */
export const MAX_PREPARED_DH = 4;

/**
 * A WebCrypto private key as a Noise static key: `prepare(peerPublicKey)` computes DH(s, peer) in WebCrypto,
 * then the synchronous `dh` the handshake calls returns it. Asked for a key it did not prepare, or one whose
 * DH WebCrypto refused (a low-order point), it throws a NoiseError, failing the handshake.
 */
export class WebCryptoStaticKey implements ExternalStaticKey {
  readonly publicKey: Uint8Array;
  readonly #key: WebCryptoPrivateKey;
  readonly #prepared = new Map<string, Uint8Array | null>();

  constructor(key: WebCryptoPrivateKey, publicKey: Uint8Array) {
    if (!isWebCryptoKey(key)) throw new TypeError('key must be a non-extractable X25519 CryptoKey');
    if (!(publicKey instanceof Uint8Array) || publicKey.length !== X25519_KEY_BYTES)
      throw new TypeError(`publicKey must be ${X25519_KEY_BYTES} bytes`);
    this.#key = key;
    this.publicKey = Uint8Array.from(publicKey);
  }

  async prepare(peerPublicKey: Uint8Array): Promise<void> {
    const id = encodeBase64url(peerPublicKey);
    if (this.#prepared.has(id)) return;
    if (this.#prepared.size >= MAX_PREPARED_DH)
      throw new RangeError(`at most ${MAX_PREPARED_DH} prepared keys`);
    const s = subtle();
    if (!s) throw new TypeError('this runtime has no WebCrypto');
    let shared: Uint8Array | null;
    try {
      const peer = await s.importKey('raw', peerPublicKey, { name: X25519_ALGORITHM }, true, []);
      const bits = await s.deriveBits(
        { name: X25519_ALGORITHM, public: peer },
        this.#key,
        8 * X25519_KEY_BYTES,
      );
      shared = new Uint8Array(bits);
    } catch {
      // WebCrypto refuses an all-zero result (a low-order point) and malformed keys: the handshake must fail.
      shared = null;
    }
    this.#prepared.set(id, shared);
  }

  dh(peerPublicKey: Uint8Array): Uint8Array {
    const shared = this.#prepared.get(encodeBase64url(peerPublicKey));
    if (shared === undefined)
      throw new NoiseError('missing-key', 'no DH result prepared for this public key');
    if (shared === null) throw new NoiseError('invalid-public-key', 'WebCrypto refused this public key');
    return shared;
  }
}

/** The static key a handshake uses for a stored Client static. */
export function clientStaticKey(stored: StoredClientKey, publicKey: string): KeyPair | WebCryptoStaticKey {
  if (typeof stored === 'string') return keyPairFromPrivate(decodeBase64url(stored));
  return new WebCryptoStaticKey(stored, decodeBase64url(publicKey));
}
