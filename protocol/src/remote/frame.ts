/**
 * Binary frame layouts. One Noise transport plaintext carries exactly one frame; its first byte is the kind.
 * [SPEC: R-FRAME-1 … R-FRAME-5]
 *
 * Layouts (all integers big-endian):
 *   CONTROL   0x01 | JSON (UTF-8)
 *   TEXT_BODY 0x02 | u32 jsonLength | JSON (UTF-8) | data (UTF-8)
 *   OUTPUT    0x03 | u8 idLength | session id (ASCII) | u64 offset | bytes
 *   INPUT     0x04 | u8 flags (bit 0: reply) | u8 idLength | session id (ASCII) | bytes
 *   FRAGMENT  0x05 | u32 messageId | u32 totalLength | u32 fragmentOffset | chunk   (see fragment.ts)
 */
import { readOffset, readU32, writeOffset, writeU32 } from './bytes.js';
import { ProtocolError } from './errors.js';
import { isSessionId } from './fields.js';

export const FrameKind = {
  CONTROL: 0x01,
  TEXT_BODY: 0x02,
  OUTPUT: 0x03,
  INPUT: 0x04,
  FRAGMENT: 0x05,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

/** INPUT flags: bit 0 set = a terminal reply; every other bit must be zero (R-FRAME-4). */
export const INPUT_FLAG_REPLY = 0x01;

const ascii = (s: string): Uint8Array => {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
};

function readSessionId(bytes: Uint8Array, at: number, rule: string): { id: string; end: number } {
  const length = bytes[at];
  if (length === undefined || at + 1 + length > bytes.length) {
    throw new ProtocolError(rule, 'frame ends inside the session id');
  }
  const id = String.fromCharCode(...bytes.subarray(at + 1, at + 1 + length));
  if (!isSessionId(id))
    throw new ProtocolError('R-FIELD-1', 'session id must be 1–32 characters of [A-Za-z0-9_-]');
  return { id, end: at + 1 + length };
}

function requireSessionId(id: string): void {
  if (!isSessionId(id))
    throw new ProtocolError('R-FIELD-1', 'session id must be 1–32 characters of [A-Za-z0-9_-]');
}

export function encodeOutputFrame(session: string, offset: number, data: Uint8Array): Uint8Array {
  requireSessionId(session);
  const out = new Uint8Array(2 + session.length + 8 + data.length);
  out[0] = FrameKind.OUTPUT;
  out[1] = session.length;
  out.set(ascii(session), 2);
  writeOffset(out, 2 + session.length, offset);
  out.set(data, 10 + session.length);
  return out;
}

/** `data` is a view into `frame` (no copy). */
export function decodeOutputFrame(frame: Uint8Array): { session: string; offset: number; data: Uint8Array } {
  const { id, end } = readSessionId(frame, 1, 'R-FRAME-4');
  if (end + 8 > frame.length) throw new ProtocolError('R-FRAME-4', 'output frame ends inside the offset');
  const offset = readOffset(frame, end);
  if (offset === null) throw new ProtocolError('R-FRAME-4', 'output offset must be below 2^53');
  return { session: id, offset, data: frame.subarray(end + 8) };
}

export function encodeInputFrame(session: string, reply: boolean, data: Uint8Array): Uint8Array {
  requireSessionId(session);
  const out = new Uint8Array(3 + session.length + data.length);
  out[0] = FrameKind.INPUT;
  out[1] = reply ? INPUT_FLAG_REPLY : 0;
  out[2] = session.length;
  out.set(ascii(session), 3);
  out.set(data, 3 + session.length);
  return out;
}

/** `data` is a view into `frame` (no copy). */
export function decodeInputFrame(frame: Uint8Array): { session: string; reply: boolean; data: Uint8Array } {
  const flags = frame[1];
  if (flags === undefined) throw new ProtocolError('R-FRAME-4', 'input frame ends inside its flags');
  if ((flags & ~INPUT_FLAG_REPLY) !== 0)
    throw new ProtocolError('R-FRAME-4', 'input frame has unknown flag bits');
  const { id, end } = readSessionId(frame, 2, 'R-FRAME-4');
  return { session: id, reply: flags === INPUT_FLAG_REPLY, data: frame.subarray(end) };
}

export function encodeTextBodyFrame(json: Uint8Array, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + json.length + data.length);
  out[0] = FrameKind.TEXT_BODY;
  writeU32(out, 1, json.length);
  out.set(json, 5);
  out.set(data, 5 + json.length);
  return out;
}

export function splitTextBodyFrame(frame: Uint8Array): { json: Uint8Array; data: Uint8Array } {
  if (frame.length < 5) throw new ProtocolError('R-FRAME-3', 'text-body frame ends inside its JSON length');
  const length = readU32(frame, 1);
  if (5 + length > frame.length)
    throw new ProtocolError('R-FRAME-3', 'text-body JSON length exceeds the frame');
  return { json: frame.subarray(5, 5 + length), data: frame.subarray(5 + length) };
}
