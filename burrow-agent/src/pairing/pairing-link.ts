/**
 * The pairing link and its QR (DESIGN §4.2): `https://<relay>/#pair=<base64url>`, everything secret in the
 * fragment. Byte layout — must match pocket-pwa/src/core/pairing-link.ts (tests/integration parses links made
 * here with Pocket's parser):
 *   [version u8 = 1][burrowId 16][Burrow static public key 32][secret 32][expiresAt u64 BE ms][relay URL utf-8, optional]
 */
import { decodeBase64url, encodeBase64url } from '@burrow/protocol';
import QRCode from 'qrcode';

export const PAIRING_LINK_VERSION = 1;

export interface PairingLinkParams {
  readonly relayUrl: string;
  readonly burrowId: string;
  readonly burrowPublicKey: Uint8Array;
  readonly secret: Uint8Array;
  readonly expiresAt: number;
}

export function pairingLink(p: PairingLinkParams): string {
  const id = decodeBase64url(p.burrowId);
  if (id.length !== 16) throw new RangeError('burrowId must be 16 bytes');
  if (p.burrowPublicKey.length !== 32 || p.secret.length !== 32)
    throw new RangeError('keys must be 32 bytes');
  if (!Number.isSafeInteger(p.expiresAt) || p.expiresAt < 0)
    throw new RangeError('expiresAt must be epoch ms');
  const out = new Uint8Array(89);
  out[0] = PAIRING_LINK_VERSION;
  out.set(id, 1);
  out.set(p.burrowPublicKey, 17);
  out.set(p.secret, 49);
  new DataView(out.buffer).setBigUint64(81, BigInt(p.expiresAt), false);
  // The link is served by the relay, so its origin names the relay and the payload needs no URL.
  return `${p.relayUrl.replace(/\/+$/, '')}/#pair=${encodeBase64url(out)}`;
}

/** The link as a QR code for a terminal (half-height blocks, so it fits an 80×24 screen). */
export function pairingQr(link: string): Promise<string> {
  return QRCode.toString(link, { type: 'terminal', small: true, errorCorrectionLevel: 'L' });
}
