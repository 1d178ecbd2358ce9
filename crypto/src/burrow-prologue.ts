import { assertBytes, concatBytes, utf8 } from './bytes.js';

/** burrowId is 16 random bytes (DESIGN §3); on the wire and in URLs it is base64url, here raw bytes. */
export const BURROW_ID_BYTES = 16;

/** The two handshakes Burrow runs (DESIGN §4.2): pairing (psk = pairing secret) and connect (device psk). */
export type HandshakeMode = 'pair' | 'connect';

/** Fixed label that starts every Burrow prologue, so it can never collide with another protocol's. */
export const BURROW_PROLOGUE_LABEL = 'burrow noise prologue';

const MODE_BYTE: Readonly<Record<HandshakeMode, number>> = { pair: 1, connect: 2 };

export interface PrologueParams {
  readonly mode: HandshakeMode;
  /** The remote API version (protocol's PROTOCOL_VERSION, passed in: crypto does not import protocol). */
  readonly protocolVersion: number;
  readonly burrowId: Uint8Array;
}

/**
 * The Noise prologue (rev 34 §6) for phone↔Burrow handshakes: both sides must agree on it or the first
 * AEAD fails, so a pairing handshake can't be replayed as a connect, a phone can't be steered to a
 * different protocol version, and a handshake for one Burrow can't be relayed to another.
 *
 * Layout (fixed-length fields after the label, so no two inputs encode alike):
 * `label ‖ 0x00 ‖ mode (1 byte: pair = 1, connect = 2) ‖ protocolVersion (u16 big-endian) ‖ burrowId (16)`.
 */
export function burrowPrologue({ mode, protocolVersion, burrowId }: PrologueParams): Uint8Array {
  const modeByte = MODE_BYTE[mode];
  if (modeByte === undefined || !Object.hasOwn(MODE_BYTE, mode))
    throw new RangeError(`unknown handshake mode`);
  if (!Number.isInteger(protocolVersion) || protocolVersion < 0 || protocolVersion > 0xffff) {
    throw new RangeError('protocolVersion must be an integer in [0, 65535]');
  }
  assertBytes('burrowId', burrowId, BURROW_ID_BYTES);
  const fields = new Uint8Array(3);
  fields[0] = modeByte;
  new DataView(fields.buffer).setUint16(1, protocolVersion, false);
  return concatBytes(utf8(BURROW_PROLOGUE_LABEL), Uint8Array.of(0), fields, burrowId);
}
