/**
 * The carrier frames of a session that has a direct path (SPEC "The direct path", R-PATH-2, R-PATH-5,
 * R-PATH-8): what travels *beside* the Noise messages, on the direct channel and on the relay socket.
 *
 *   direct channel, one message each:  DATA  0x00 | Noise message (16 … 65535 bytes)
 *                                       ACK   0x01 | u64 received
 *                                       START 0x02 | u64 first
 *   relay socket (shorter than any Noise message, which carries at least its 16-byte tag):
 *                                       RESUME   0x01 | u64 first        (9 bytes)
 *                                       REJOINED 0x03                    (1 byte, Burrow → phone)
 *   first frame of a new relay socket:  REJOIN   0x02 | 16-byte rejoin id (17 bytes; a handshake message 1 is
 *                                       at least 96)
 *
 * All integers big-endian, below 2^53 (message numbers are Noise nonces; they never get near it).
 */
import { fatalError } from './errors.js';
import { MAX_DIRECT_MESSAGE_BYTES, REJOIN_ID_BYTES } from './limits.js';

/** A Noise transport message is its ciphertext plus the 16-byte ChaChaPoly tag: never shorter. */
export const MIN_NOISE_MESSAGE_BYTES = 16;
/** The longest Noise message (Noise §3). */
export const MAX_NOISE_MESSAGE_BYTES = 65_535;

export const DirectFrameKind = { DATA: 0x00, ACK: 0x01, START: 0x02 } as const;
export const RelayCarrierKind = { RESUME: 0x01, REJOIN: 0x02, REJOINED: 0x03 } as const;

export type DirectFrame =
  | { readonly kind: 'data'; readonly message: Uint8Array }
  | { readonly kind: 'ack'; readonly received: number }
  | { readonly kind: 'start'; readonly first: number };

export type RelayCarrierFrame =
  | { readonly kind: 'resume'; readonly first: number }
  | { readonly kind: 'rejoined' };

function u64(view: DataView, at: number, rule: string): number {
  const high = view.getUint32(at);
  if (high > 0x1f_ffff) throw fatalError(rule, 'a message number is below 2^53');
  return high * 2 ** 32 + view.getUint32(at + 4);
}

function withU64(kind: number, n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError('a message number is an integer 0 … 2^53−1');
  const out = new Uint8Array(9);
  const view = new DataView(out.buffer);
  out[0] = kind;
  view.setUint32(1, Math.floor(n / 2 ** 32));
  view.setUint32(5, n >>> 0);
  return out;
}

export function encodeDirectData(message: Uint8Array): Uint8Array {
  if (message.length < MIN_NOISE_MESSAGE_BYTES || message.length > MAX_NOISE_MESSAGE_BYTES)
    throw new RangeError('DATA carries one Noise message of 16 … 65535 bytes');
  const out = new Uint8Array(1 + message.length);
  out[0] = DirectFrameKind.DATA;
  out.set(message, 1);
  return out;
}
export const encodeDirectAck = (received: number) => withU64(DirectFrameKind.ACK, received);
export const encodeDirectStart = (first: number) => withU64(DirectFrameKind.START, first);
export const encodeRelayResume = (first: number) => withU64(RelayCarrierKind.RESUME, first);
export const RELAY_REJOINED: Uint8Array = Uint8Array.of(RelayCarrierKind.REJOINED);

/** R-PATH-2: one direct-channel message. Anything else is fatal (the channel is closed). */
export function decodeDirectFrame(bytes: Uint8Array): DirectFrame {
  if (bytes.length < 1 || bytes.length > MAX_DIRECT_MESSAGE_BYTES)
    throw fatalError('R-PATH-2', 'a direct message is 1 … 65536 bytes');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (bytes[0]) {
    case DirectFrameKind.DATA:
      if (bytes.length - 1 < MIN_NOISE_MESSAGE_BYTES)
        throw fatalError('R-PATH-2', 'DATA carries a whole Noise message');
      return { kind: 'data', message: bytes.subarray(1) };
    case DirectFrameKind.ACK:
    case DirectFrameKind.START: {
      if (bytes.length !== 9) throw fatalError('R-PATH-2', 'ACK and START are 9 bytes');
      const n = u64(view, 1, 'R-PATH-2');
      return bytes[0] === DirectFrameKind.ACK ? { kind: 'ack', received: n } : { kind: 'start', first: n };
    }
    default:
      throw fatalError('R-PATH-2', 'unknown direct frame kind');
  }
}

/** True for a relay frame that is a carrier frame, not a Noise message (R-PATH-5). */
export function isRelayCarrierFrame(bytes: Uint8Array): boolean {
  return bytes.length < MIN_NOISE_MESSAGE_BYTES;
}

/** R-PATH-5 / R-PATH-8: a relay carrier frame (RESUME, REJOINED); anything else short is fatal. */
export function decodeRelayCarrierFrame(bytes: Uint8Array): RelayCarrierFrame {
  if (bytes.length === 9 && bytes[0] === RelayCarrierKind.RESUME) {
    return { kind: 'resume', first: u64(new DataView(bytes.buffer, bytes.byteOffset, 9), 1, 'R-PATH-5') };
  }
  if (bytes.length === 1 && bytes[0] === RelayCarrierKind.REJOINED) return { kind: 'rejoined' };
  throw fatalError('R-PATH-5', 'a relay frame shorter than a Noise message is RESUME or REJOINED');
}

/** R-PATH-8: the REJOIN frame a phone sends first on a new relay socket. */
export function encodeRejoin(id: Uint8Array): Uint8Array {
  if (id.length !== REJOIN_ID_BYTES) throw new RangeError(`a rejoin id is ${REJOIN_ID_BYTES} bytes`);
  const out = new Uint8Array(1 + REJOIN_ID_BYTES);
  out[0] = RelayCarrierKind.REJOIN;
  out.set(id, 1);
  return out;
}

/** The rejoin id of a REJOIN frame, or null when `bytes` is not one (a handshake message 1 is longer). */
export function decodeRejoin(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length !== 1 + REJOIN_ID_BYTES || bytes[0] !== RelayCarrierKind.REJOIN) return null;
  return bytes.slice(1);
}
