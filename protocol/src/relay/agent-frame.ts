/**
 * Framing of the Burrow's one socket to the relay (`GET /v1/burrows/:id/agent`). [SPEC: RL-FRAME-1..7]
 *
 * Every frame is one binary WebSocket message: `[type u8][connId u32 big-endian][body]`. `connId` names one
 * phone socket (the relay assigns it, never 0). The relay reads only the 5-byte header; a DATA body is one
 * Noise message, forwarded untouched and never parsed.
 */
import { isBurrowCloseCode } from '../close-codes.js';
import { RelayCodecError } from './relay-codec-error.js';

/** One Noise message is at most 65535 bytes (Noise spec §3). [SPEC: RL-FRAME-2] */
export const MAX_NOISE_MESSAGE_BYTES = 65535;
/** `type` + `connId`. */
export const AGENT_FRAME_HEADER_BYTES = 5;
/** Largest frame on the agent socket: a header plus one Noise message. */
export const MAX_AGENT_FRAME_BYTES = AGENT_FRAME_HEADER_BYTES + MAX_NOISE_MESSAGE_BYTES;
/** Largest frame on a phone socket: one Noise message, no header. [SPEC: RL-FRAME-6] */
export const MAX_CLIENT_FRAME_BYTES = MAX_NOISE_MESSAGE_BYTES;
/** connId is a u32; 0 is never assigned. */
export const MAX_CONN_ID = 0xffff_ffff;

export const AgentFrameType = {
  /** Both directions: one Noise message for/from connection `connId`. */
  DATA: 0x01,
  /** Relay → agent: a phone socket opened; body empty. */
  CLIENT_OPEN: 0x02,
  /** Relay → agent: that phone socket closed; body = close code u16 BE. */
  CLIENT_CLOSED: 0x03,
  /** Agent → relay: close that phone socket with this code (u16 BE, Burrow range or 1000). */
  CLOSE_CLIENT: 0x04,
} as const;
export type AgentFrameType = (typeof AgentFrameType)[keyof typeof AgentFrameType];

export type AgentToRelayFrame =
  | { readonly type: 'data'; readonly connId: number; readonly payload: Uint8Array }
  | { readonly type: 'close_client'; readonly connId: number; readonly code: number };

export type RelayToAgentFrame =
  | { readonly type: 'data'; readonly connId: number; readonly payload: Uint8Array }
  | { readonly type: 'client_open'; readonly connId: number }
  | { readonly type: 'client_closed'; readonly connId: number; readonly code: number };

function checkConnId(connId: number): void {
  if (typeof connId !== 'number') throw new TypeError('connId must be a number');
  if (!Number.isInteger(connId) || connId < 1 || connId > MAX_CONN_ID) {
    throw new RangeError(`connId must be an integer in 1..${MAX_CONN_ID}`);
  }
}

function header(type: AgentFrameType, connId: number, bodyLength: number): Uint8Array {
  checkConnId(connId);
  const out = new Uint8Array(AGENT_FRAME_HEADER_BYTES + bodyLength);
  out[0] = type;
  new DataView(out.buffer).setUint32(1, connId, false);
  return out;
}

/** Header + payload in one new buffer (one copy). Payload: 1..65535 bytes. [SPEC: RL-FRAME-3] */
export function encodeDataFrame(connId: number, payload: Uint8Array): Uint8Array {
  if (!(payload instanceof Uint8Array)) throw new TypeError('payload must be a Uint8Array');
  if (payload.length < 1 || payload.length > MAX_NOISE_MESSAGE_BYTES) {
    throw new RangeError(`payload must be 1..${MAX_NOISE_MESSAGE_BYTES} bytes`);
  }
  const out = header(AgentFrameType.DATA, connId, payload.length);
  out.set(payload, AGENT_FRAME_HEADER_BYTES);
  return out;
}

export function encodeClientOpenFrame(connId: number): Uint8Array {
  return header(AgentFrameType.CLIENT_OPEN, connId, 0);
}

function checkCloseCode(code: number): void {
  if (typeof code !== 'number') throw new TypeError('close code must be a number');
  if (!Number.isInteger(code) || code < 1000 || code > 4999)
    throw new RangeError('close code must be 1000..4999');
}

/** `code` is how the phone socket ended (1000..4999; 1006 when it dropped without a close frame). */
export function encodeClientClosedFrame(connId: number, code: number): Uint8Array {
  checkCloseCode(code);
  const out = header(AgentFrameType.CLIENT_CLOSED, connId, 2);
  new DataView(out.buffer).setUint16(AGENT_FRAME_HEADER_BYTES, code, false);
  return out;
}

/** `code` must be 1000 or in the Burrow range 4100..4199 of the close-code table. [SPEC: RL-FRAME-5] */
export function encodeCloseClientFrame(connId: number, code: number): Uint8Array {
  checkCloseCode(code);
  if (!isBurrowCloseCode(code)) throw new RangeError('CLOSE_CLIENT code must be 1000 or 4100..4199');
  const out = header(AgentFrameType.CLOSE_CLIENT, connId, 2);
  new DataView(out.buffer).setUint16(AGENT_FRAME_HEADER_BYTES, code, false);
  return out;
}

interface Header {
  readonly type: number;
  readonly connId: number;
  readonly view: DataView;
}

function readHeader(bytes: Uint8Array): Header {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('frame must be a Uint8Array');
  if (bytes.length > MAX_AGENT_FRAME_BYTES)
    throw new RelayCodecError('frame_too_large', 'frame over the limit');
  if (bytes.length < AGENT_FRAME_HEADER_BYTES)
    throw new RelayCodecError('frame_too_short', 'frame shorter than header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const connId = view.getUint32(1, false);
  if (connId === 0) throw new RelayCodecError('bad_conn_id', 'connId 0 is reserved');
  return { type: bytes[0]!, connId, view };
}

function readData(bytes: Uint8Array, connId: number): { type: 'data'; connId: number; payload: Uint8Array } {
  if (bytes.length === AGENT_FRAME_HEADER_BYTES)
    throw new RelayCodecError('bad_length', 'DATA with empty payload');
  return { type: 'data', connId, payload: bytes.subarray(AGENT_FRAME_HEADER_BYTES) };
}

function readCode(h: Header, bytes: Uint8Array): number {
  if (bytes.length !== AGENT_FRAME_HEADER_BYTES + 2)
    throw new RelayCodecError('bad_length', 'close frame body is 2 bytes');
  const code = h.view.getUint16(AGENT_FRAME_HEADER_BYTES, false);
  if (code < 1000 || code > 4999)
    throw new RelayCodecError('bad_close_code', 'close code outside 1000..4999');
  return code;
}

/**
 * What the relay reads from the agent. A DATA payload is a view into `bytes` (no copy).
 * Throws only `RelayCodecError` (or `TypeError` for a non-Uint8Array). [SPEC: RL-FRAME-4]
 */
export function decodeAgentToRelayFrame(bytes: Uint8Array): AgentToRelayFrame {
  const h = readHeader(bytes);
  switch (h.type) {
    case AgentFrameType.DATA:
      return readData(bytes, h.connId);
    case AgentFrameType.CLOSE_CLIENT: {
      const code = readCode(h, bytes);
      if (!isBurrowCloseCode(code))
        throw new RelayCodecError('bad_close_code', 'CLOSE_CLIENT code not in Burrow range');
      return { type: 'close_client', connId: h.connId, code };
    }
    case AgentFrameType.CLIENT_OPEN:
    case AgentFrameType.CLIENT_CLOSED:
      throw new RelayCodecError('wrong_direction', 'relay-to-agent frame type sent by the agent');
    default:
      throw new RelayCodecError('unknown_frame_type', `unknown frame type ${h.type}`);
  }
}

/** What the Burrow reads from the relay. A DATA payload is a view into `bytes` (no copy). */
export function decodeRelayToAgentFrame(bytes: Uint8Array): RelayToAgentFrame {
  const h = readHeader(bytes);
  switch (h.type) {
    case AgentFrameType.DATA:
      return readData(bytes, h.connId);
    case AgentFrameType.CLIENT_OPEN:
      if (bytes.length !== AGENT_FRAME_HEADER_BYTES)
        throw new RelayCodecError('bad_length', 'CLIENT_OPEN has no body');
      return { type: 'client_open', connId: h.connId };
    case AgentFrameType.CLIENT_CLOSED:
      return { type: 'client_closed', connId: h.connId, code: readCode(h, bytes) };
    case AgentFrameType.CLOSE_CLIENT:
      throw new RelayCodecError('wrong_direction', 'agent-to-relay frame type sent by the relay');
    default:
      throw new RelayCodecError('unknown_frame_type', `unknown frame type ${h.type}`);
  }
}
