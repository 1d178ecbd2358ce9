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

/** Light modules around the code: ISO/IEC 18004 asks for a quiet zone 4 modules wide on every side. */
export const QR_QUIET_ZONE_MODULES = 4;
/** Dark modules on a light background whatever the terminal's colours (SGR 47 / 30), reset after each line. */
const QR_LINE_START = '\x1b[47m\x1b[30m';
const QR_LINE_END = '\x1b[0m';
/** Two modules (top, bottom) per character cell: half blocks, so the code fits a terminal. */
const HALF_BLOCKS = [' ', '▄', '▀', '█'] as const; // index: top dark ×2 + bottom dark

/**
 * The link as a QR code for a terminal, with the full 4-module quiet zone. Drawn here rather than by
 * qrcode's own `terminal` renderer, whose small (half-block) form draws a 1-module quiet zone that many phone
 * cameras do not lock on to; its full-size form would not fit an 80×24 screen.
 */
export function pairingQrText(link: string): string {
  const modules = QRCode.create(link, { errorCorrectionLevel: 'L' }).modules;
  const n = modules.size;
  const q = QR_QUIET_ZONE_MODULES;
  const dark = (x: number, y: number) => x >= 0 && y >= 0 && x < n && y < n && Boolean(modules.get(y, x));
  const lines: string[] = [];
  for (let y = -q; y < n + q; y += 2) {
    let line = QR_LINE_START;
    for (let x = -q; x < n + q; x++) line += HALF_BLOCKS[(dark(x, y) ? 2 : 0) + (dark(x, y + 1) ? 1 : 0)];
    lines.push(line + QR_LINE_END);
  }
  return lines.join('\n');
}

/** `pairingQrText` for callers that await it (the daemon's pairing offer). */
export async function pairingQr(link: string): Promise<string> {
  return pairingQrText(link);
}
