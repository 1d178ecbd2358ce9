/**
 * Encode and decode whole frames for each direction and mode of the remote API. [SPEC: R-FRAME-*, R-MSG-*]
 *
 * A decoder takes one whole frame — a Noise plaintext that is not a FRAGMENT, or what `Reassembler.push`
 * returned — and either returns a fresh, validated message or throws ProtocolError. An encoder validates too,
 * so nothing is ever sent that the other side would refuse; its frame may exceed one Noise message, so pass it
 * through `Fragmenter.split` before sending.
 */

import {
  type BurrowControlMessage,
  type BurrowMessage,
  burrowControlSchema,
  TEXT_BODY_TYPES,
} from './burrow-messages.js';
import { isWellFormed, utf8Decode, utf8Encode } from './bytes.js';
import { type ClientControlMessage, type ClientMessage, clientControlSchema } from './client-messages.js';
import { type ControlCodec, controlCodec, parseJson, serializeJson } from './control.js';
import { fatalError, ProtocolError } from './errors.js';
import { isSessionId } from './fields.js';
import {
  decodeInputFrame,
  decodeOutputFrame,
  encodeInputFrame,
  encodeOutputFrame,
  encodeTextBodyFrame,
  FrameKind,
  splitTextBodyFrame,
} from './frame.js';
import {
  MAX_INPUT_CHUNK_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_OFFSET,
  MAX_OUTPUT_CHUNK_BYTES,
  MAX_SNAPSHOT_BYTES,
} from './limits.js';
import {
  type PairBurrowMessage,
  type PairClientMessage,
  pairBurrowSchema,
  pairClientSchema,
} from './pairing-messages.js';

interface Direction<C> {
  readonly control: ControlCodec<C>;
  /** The binary frame kind this direction may send besides CONTROL, if any. */
  readonly binary: typeof FrameKind.OUTPUT | typeof FrameKind.INPUT | null;
  /** Whether TEXT_BODY frames are used in this direction. */
  readonly textBody: boolean;
}

const CLIENT: Direction<ClientControlMessage> = {
  control: controlCodec<ClientControlMessage>(clientControlSchema),
  binary: FrameKind.INPUT,
  textBody: false,
};
const BURROW: Direction<BurrowControlMessage> = {
  control: controlCodec<BurrowControlMessage>(burrowControlSchema),
  binary: FrameKind.OUTPUT,
  textBody: true,
};
const PAIR_CLIENT: Direction<PairClientMessage> = {
  control: controlCodec<PairClientMessage>(pairClientSchema),
  binary: null,
  textBody: false,
};
const PAIR_BURROW: Direction<PairBurrowMessage> = {
  control: controlCodec<PairBurrowMessage>(pairBurrowSchema),
  binary: null,
  textBody: false,
};

type Binary =
  | { readonly type: 'output'; readonly session: string; readonly offset: number; readonly data: Uint8Array }
  | {
      readonly type: 'input';
      readonly session: string;
      readonly kind: 'user' | 'reply';
      readonly data: Uint8Array;
    };

function checkChunk(data: unknown, max: number): asserts data is Uint8Array {
  if (!(data instanceof Uint8Array) || data.length === 0 || data.length > max) {
    throw new ProtocolError('R-FRAME-4', `binary payload must be 1 … ${max} bytes`);
  }
}

function encodeBinary(message: Binary): Uint8Array {
  if (!isSessionId(message.session))
    throw new ProtocolError('R-FIELD-1', 'session id must be 1–32 characters of [A-Za-z0-9_-]');
  if (message.type === 'output') {
    const { offset } = message;
    if (!Number.isInteger(offset) || offset < 0 || offset > MAX_OFFSET) {
      throw new ProtocolError('R-FIELD-3', 'offset must be an integer 0 … 2^53−1');
    }
    checkChunk(message.data, MAX_OUTPUT_CHUNK_BYTES);
    return encodeOutputFrame(message.session, offset, message.data);
  }
  if (message.kind !== 'user' && message.kind !== 'reply')
    throw new ProtocolError('R-FRAME-4', 'input kind is user or reply');
  checkChunk(message.data, MAX_INPUT_CHUNK_BYTES);
  return encodeInputFrame(message.session, message.kind === 'reply', message.data);
}

function encodeWith<C extends { type: string }>(dir: Direction<C>, message: C | Binary): Uint8Array {
  const binaryType =
    dir.binary === FrameKind.OUTPUT ? 'output' : dir.binary === FrameKind.INPUT ? 'input' : null;
  if (message !== null && typeof message === 'object' && message.type === binaryType) {
    return encodeBinary(message as Binary);
  }
  const valid = dir.control.validate(message) as C & { data?: unknown };
  if (dir.textBody && TEXT_BODY_TYPES.has(valid.type)) {
    const { data, ...head } = valid;
    if (typeof data !== 'string' || !isWellFormed(data)) {
      throw new ProtocolError('R-FRAME-3', 'text body must be a well-formed string');
    }
    const body = utf8Encode(data);
    if (body.length > MAX_SNAPSHOT_BYTES)
      throw new ProtocolError('R-FRAME-3', 'text body exceeds MAX_SNAPSHOT_BYTES');
    return encodeTextBodyFrame(serializeJson(head), body);
  }
  const json = serializeJson(valid);
  const frame = new Uint8Array(1 + json.length);
  frame[0] = FrameKind.CONTROL;
  frame.set(json, 1);
  return frame;
}

function decodeWith<C>(dir: Direction<C>, frame: Uint8Array): C | Binary {
  if (!(frame instanceof Uint8Array)) throw new TypeError('frame must be a Uint8Array');
  if (frame.length === 0) throw fatalError('R-FRAME-1', 'empty frame');
  if (frame.length > MAX_MESSAGE_BYTES) throw fatalError('R-FRAME-7', 'frame exceeds MAX_MESSAGE_BYTES');
  const kind = frame[0];
  switch (kind) {
    case FrameKind.CONTROL: {
      const value = parseJson(frame.subarray(1));
      if (dir.textBody && isTextBodyMessage(value)) {
        throw new ProtocolError('R-MSG-4', 'this message type travels only in a TEXT_BODY frame');
      }
      return dir.control.validate(value);
    }
    case FrameKind.TEXT_BODY: {
      if (!dir.textBody) throw fatalError('R-FRAME-6', 'TEXT_BODY frames are not used in this direction');
      const { json, data } = splitTextBodyFrame(frame);
      const head = parseJson(json);
      if (!isTextBodyMessage(head)) {
        throw new ProtocolError('R-MSG-4', 'a TEXT_BODY frame carries only attached, resync or history-page');
      }
      if (Object.hasOwn(head, 'data'))
        throw new ProtocolError('R-MSG-4', 'the JSON part of a TEXT_BODY has no data');
      const text = utf8Decode(data);
      if (text === null) throw new ProtocolError('R-FRAME-3', 'text body is not valid UTF-8');
      return dir.control.validate({ ...head, data: text });
    }
    case FrameKind.OUTPUT:
    case FrameKind.INPUT: {
      if (dir.binary !== kind)
        throw fatalError('R-FRAME-6', 'this binary frame kind is not used in this direction');
      if (kind === FrameKind.OUTPUT) {
        const { session, offset, data } = decodeOutputFrame(frame);
        checkChunk(data, MAX_OUTPUT_CHUNK_BYTES);
        return { type: 'output', session, offset, data };
      }
      const { session, reply, data } = decodeInputFrame(frame);
      checkChunk(data, MAX_INPUT_CHUNK_BYTES);
      return { type: 'input', session, kind: reply ? 'reply' : 'user', data };
    }
    case FrameKind.FRAGMENT:
      throw fatalError('R-FRAME-6', 'a FRAGMENT must go through the Reassembler before decoding');
    default:
      throw fatalError('R-FRAME-1', 'unknown frame kind');
  }
}

function isTextBodyMessage(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && TEXT_BODY_TYPES.has(type);
}

/** Phone → Burrow (connect mode). */
export function encodeClientMessage(message: ClientMessage): Uint8Array {
  return encodeWith(CLIENT, message);
}
export function decodeClientMessage(frame: Uint8Array): ClientMessage {
  return decodeWith(CLIENT, frame) as ClientMessage;
}

/** Burrow → phone (connect mode). */
export function encodeBurrowMessage(message: BurrowMessage): Uint8Array {
  return encodeWith(BURROW, message);
}
export function decodeBurrowMessage(frame: Uint8Array): BurrowMessage {
  return decodeWith(BURROW, frame) as BurrowMessage;
}

/** Phone → Burrow (pair mode). */
export function encodePairClientMessage(message: PairClientMessage): Uint8Array {
  return encodeWith(PAIR_CLIENT, message);
}
export function decodePairClientMessage(frame: Uint8Array): PairClientMessage {
  return decodeWith(PAIR_CLIENT, frame) as PairClientMessage;
}

/** Burrow → phone (pair mode). */
export function encodePairBurrowMessage(message: PairBurrowMessage): Uint8Array {
  return encodeWith(PAIR_BURROW, message);
}
export function decodePairBurrowMessage(frame: Uint8Array): PairBurrowMessage {
  return decodeWith(PAIR_BURROW, frame) as PairBurrowMessage;
}
