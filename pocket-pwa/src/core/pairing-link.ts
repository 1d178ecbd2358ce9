/**
 * The pairing link `https://<relay>/#pair=<base64url payload>` (DESIGN §3, §4.2 "Pairing"). Everything secret
 * is in the URL fragment, which browsers never send to a server, so the relay that serves Pocket never sees it.
 *
 * Payload (binary, then unpadded base64url), version 1:
 *   [version u8 = 1][burrowId 16][Burrow static public key 32][pairing secret 32][expiresAt u64 BE, ms epoch]
 *   [relay URL, UTF-8, 0..PAIRING_LINK_MAX_RELAY_URL_BYTES — empty: the link's own origin is the relay]
 *
 * The Burrow builds the same bytes in burrow-agent/src/pairing/pairing-link.ts; tests/integration checks that
 * this parser accepts what the Burrow makes.
 */
import { decodeBase64url, encodeBase64url } from '@burrow/protocol';

export const PAIRING_LINK_VERSION = 1;
export const PAIRING_LINK_FIXED_BYTES = 1 + 16 + 32 + 32 + 8;
/** Relay URLs are short; this bounds the link (and what a hostile QR can make us decode). */
export const PAIRING_LINK_MAX_RELAY_URL_BYTES = 512;
/** Longest link text we look at, in UTF-16 code units. */
export const PAIRING_LINK_MAX_CHARS = 4096;
export const PAIR_FRAGMENT_KEY = 'pair=';

export interface PairingOffer {
  /** base64url of 16 bytes. */
  readonly burrowId: string;
  readonly burrowPublicKey: Uint8Array;
  readonly secret: Uint8Array;
  /** ms since the Unix epoch. */
  readonly expiresAt: number;
  /** Origin (and optional path) of the relay, without a trailing slash. */
  readonly relayUrl: string;
}

export type PairingLinkErrorReason =
  | 'no_pair_fragment'
  | 'bad_encoding'
  | 'bad_version'
  | 'bad_length'
  | 'bad_relay_url';

/** The one error `parsePairingLink` throws; its message never contains the link (the link is a secret). */
export class PairingLinkError extends Error {
  override readonly name = 'PairingLinkError';
  constructor(
    readonly reason: PairingLinkErrorReason,
    message: string,
  ) {
    super(message);
  }
}

// https, or http only on loopback (development: `npm start` serves the relay on localhost).
const RELAY_URL =
  /^(https:\/\/[A-Za-z0-9.-]+(:\d{1,5})?|http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?)(\/[A-Za-z0-9._~/-]*)?$/;

export function isRelayUrl(text: string): boolean {
  return text.length <= PAIRING_LINK_MAX_RELAY_URL_BYTES && RELAY_URL.test(text) && !text.endsWith('/');
}

function originOf(link: string): string | null {
  const m = /^(https?:\/\/[^/?#]+)/.exec(link);
  return m ? m[1]! : null;
}

export function encodePairingPayload(offer: PairingOffer, includeRelayUrl: boolean): string {
  if (offer.burrowPublicKey.length !== 32 || offer.secret.length !== 32)
    throw new RangeError('keys are 32 bytes');
  if (!Number.isSafeInteger(offer.expiresAt) || offer.expiresAt < 0)
    throw new RangeError('expiresAt must be ms');
  const id = decodeBase64url(offer.burrowId);
  if (id.length !== 16) throw new RangeError('burrowId is 16 bytes');
  if (!isRelayUrl(offer.relayUrl))
    throw new RangeError('relayUrl must be https (or loopback http), no trailing slash');
  const url = includeRelayUrl ? new TextEncoder().encode(offer.relayUrl) : new Uint8Array(0);
  const out = new Uint8Array(PAIRING_LINK_FIXED_BYTES + url.length);
  out[0] = PAIRING_LINK_VERSION;
  out.set(id, 1);
  out.set(offer.burrowPublicKey, 17);
  out.set(offer.secret, 49);
  new DataView(out.buffer).setBigUint64(81, BigInt(offer.expiresAt), false);
  out.set(url, PAIRING_LINK_FIXED_BYTES);
  return encodeBase64url(out);
}

/** `<relayUrl>/#pair=<payload>`; the relay URL goes into the payload only when the link is not served by it. */
export function encodePairingLink(offer: PairingOffer): string {
  return `${offer.relayUrl}/#${PAIR_FRAGMENT_KEY}${encodePairingPayload(offer, false)}`;
}

/** Accepts a whole link, or just the `pair=…` fragment. Throws only `PairingLinkError` (and TypeError). */
export function parsePairingLink(link: string): PairingOffer {
  if (typeof link !== 'string') throw new TypeError('link must be a string');
  if (link.length > PAIRING_LINK_MAX_CHARS) throw new PairingLinkError('bad_length', 'pairing link too long');
  const hash = link.indexOf('#');
  const fragment = hash >= 0 ? link.slice(hash + 1) : link;
  if (!fragment.startsWith(PAIR_FRAGMENT_KEY))
    throw new PairingLinkError('no_pair_fragment', 'not a pairing link');
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64url(fragment.slice(PAIR_FRAGMENT_KEY.length));
  } catch {
    throw new PairingLinkError('bad_encoding', 'pairing link is not valid base64url');
  }
  if (bytes.length < 1) throw new PairingLinkError('bad_length', 'pairing link is empty');
  if (bytes[0] !== PAIRING_LINK_VERSION)
    throw new PairingLinkError('bad_version', 'pairing link from another version');
  if (
    bytes.length < PAIRING_LINK_FIXED_BYTES ||
    bytes.length > PAIRING_LINK_FIXED_BYTES + PAIRING_LINK_MAX_RELAY_URL_BYTES
  ) {
    throw new PairingLinkError('bad_length', 'pairing link has the wrong length');
  }
  const expires = new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(81, false);
  if (expires > BigInt(Number.MAX_SAFE_INTEGER))
    throw new PairingLinkError('bad_length', 'expiry out of range');
  let relayUrl: string | null;
  if (bytes.length > PAIRING_LINK_FIXED_BYTES) {
    try {
      relayUrl = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(PAIRING_LINK_FIXED_BYTES));
    } catch {
      throw new PairingLinkError('bad_relay_url', 'relay URL is not UTF-8');
    }
  } else {
    relayUrl = hash >= 0 ? originOf(link) : null;
  }
  if (relayUrl === null || !isRelayUrl(relayUrl))
    throw new PairingLinkError('bad_relay_url', 'relay URL is missing or not allowed');
  return {
    burrowId: encodeBase64url(bytes.slice(1, 17)),
    burrowPublicKey: bytes.slice(17, 49),
    secret: bytes.slice(49, 81),
    expiresAt: Number(expires),
    relayUrl,
  };
}

export function isOfferExpired(offer: PairingOffer, nowMs: number): boolean {
  return nowMs >= offer.expiresAt;
}
