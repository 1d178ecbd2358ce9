/**
 * RFC 8291 message encryption for Web Push: the relay (application server) encrypts one sealed envelope for
 * one browser subscription, as one `aes128gcm` record whose key id is the relay's ephemeral public key.
 *
 * Key schedule (RFC 8291 §3.3–3.4):
 *   ecdh_secret = ECDH(as_private, ua_public)
 *   PRK_key = HKDF-Extract(auth_secret, ecdh_secret)
 *   IKM = HKDF-Expand(PRK_key, "WebPush: info" ‖ 0x00 ‖ ua_public ‖ as_public, 32)
 *   then RFC 8188 with that IKM, a random 16-byte salt, rs = 4096, keyid = as_public.
 * A fresh ephemeral key pair and salt per message (§3.2); fixed ones are accepted only as test inputs, to
 * reproduce Appendix A.
 */
import { AES128GCM_SALT_BYTES, AES128GCM_TAG_BYTES, encryptSingleRecord } from './aes128gcm.js';
import { ascii, concat } from './bytes.js';
import { hkdfExpand, hkdfExtract, SHA256_BYTES } from './hmac-sha256.js';
import {
  checkPoint,
  exportPublicPoint,
  importPrivateJwk,
  importPublicPoint,
  P256_POINT_BYTES,
  privateJwk,
  type WebCryptoKey,
  type WebCryptoKeyPair,
} from './p256.js';

/** RFC 8291 §3.2: the auth secret is 16 bytes. */
export const WEB_PUSH_AUTH_SECRET_BYTES = 16;
/** The record size written in the header (RFC 8291 §4 example; services accept 4096). */
export const WEB_PUSH_RECORD_SIZE = 4096;
/** salt (16) ‖ rs (4) ‖ idlen (1) ‖ keyid (65). */
export const WEB_PUSH_HEADER_BYTES = AES128GCM_SALT_BYTES + 4 + 1 + P256_POINT_BYTES;
/** RFC 8030 §7.2 / RFC 8291 §4: services must accept 4096-byte bodies; what fits beside header, tag, delimiter. */
export const WEB_PUSH_MAX_PLAINTEXT_BYTES =
  WEB_PUSH_RECORD_SIZE - WEB_PUSH_HEADER_BYTES - AES128GCM_TAG_BYTES - 1;

export interface WebPushRecipient {
  /** The subscription's `keys.p256dh`: the browser's P-256 public point. */
  readonly p256dh: Uint8Array;
  /** The subscription's `keys.auth`. */
  readonly auth: Uint8Array;
}

/** Fixed inputs that make encryption deterministic. TESTS ONLY: reusing either breaks confidentiality. */
export interface WebPushTestInputs {
  readonly salt: Uint8Array;
  readonly senderPrivateKey: Uint8Array;
  readonly senderPublicKey: Uint8Array;
}

export async function encryptWebPush(
  plaintext: Uint8Array,
  recipient: WebPushRecipient,
  testOnly?: WebPushTestInputs,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!(plaintext instanceof Uint8Array)) throw new TypeError('plaintext must be a Uint8Array');
  if (plaintext.length > WEB_PUSH_MAX_PLAINTEXT_BYTES) {
    throw new RangeError(`Web Push plaintext is limited to ${WEB_PUSH_MAX_PLAINTEXT_BYTES} bytes`);
  }
  checkPoint('p256dh', recipient.p256dh);
  if (!(recipient.auth instanceof Uint8Array) || recipient.auth.length !== WEB_PUSH_AUTH_SECRET_BYTES) {
    throw new RangeError(`auth must be ${WEB_PUSH_AUTH_SECRET_BYTES} bytes`);
  }
  const uaPublic = await importPublicPoint(recipient.p256dh, 'ECDH');
  let asPrivate: WebCryptoKey;
  let asPublic: Uint8Array;
  let salt: Uint8Array;
  if (testOnly) {
    asPrivate = await importPrivateJwk(
      privateJwk(testOnly.senderPrivateKey, testOnly.senderPublicKey),
      'ECDH',
    );
    asPublic = testOnly.senderPublicKey;
    salt = testOnly.salt;
  } else {
    const pair = (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, [
      'deriveBits',
    ])) as WebCryptoKeyPair;
    asPrivate = pair.privateKey;
    asPublic = await exportPublicPoint(pair.publicKey);
    salt = crypto.getRandomValues(new Uint8Array(AES128GCM_SALT_BYTES));
  }
  const ecdhSecret = new Uint8Array(
    await crypto.subtle.deriveBits(ecdhAlgorithm(uaPublic), asPrivate, SHA256_BYTES * 8),
  );
  const ikm = await deriveWebPushIkm(ecdhSecret, recipient.auth, recipient.p256dh, asPublic);
  return encryptSingleRecord({ ikm, salt, recordSize: WEB_PUSH_RECORD_SIZE, keyId: asPublic, plaintext });
}

/** RFC 8291 §3.3: the IKM for RFC 8188, from the ECDH secret, the auth secret and both public keys. */
export async function deriveWebPushIkm(
  ecdhSecret: Uint8Array,
  authSecret: Uint8Array,
  uaPublic: Uint8Array,
  asPublic: Uint8Array,
): Promise<Uint8Array<ArrayBuffer>> {
  const prkKey = await hkdfExtract(authSecret, ecdhSecret);
  const keyInfo = concat(ascii('WebPush: info\0'), uaPublic, asPublic);
  return hkdfExpand(prkKey, keyInfo, SHA256_BYTES);
}

/** `{ name: 'ECDH', public }` (WebCrypto); the Workers typings spell the member `$public`, the runtime does not. */
function ecdhAlgorithm(publicKey: WebCryptoKey): Parameters<typeof crypto.subtle.deriveBits>[0] {
  return { name: 'ECDH', public: publicKey } as unknown as Parameters<typeof crypto.subtle.deriveBits>[0];
}
