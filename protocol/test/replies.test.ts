// Helpers both sides use around the codecs. [SPEC: R-ERR-2, R-ATTACH-2, R-DEV-2]
import { describe, expect, test } from 'vitest';
import { burrowControlSchema } from '../src/remote/burrow-messages.js';
import { clientControlSchema } from '../src/remote/client-messages.js';
import {
  decodeBurrowMessage,
  decodeClientMessage,
  encodeBurrowMessage,
  errorReply,
  OutputCursor,
  type ProtocolError,
  Reassembler,
} from '../src/remote/index.js';
import { controlOf, expectRule } from './helpers.js';

describe('R-ERR-2: errorReply', () => {
  test('a non-fatal error becomes an error message that encodes, echoing the rid', () => {
    let caught: unknown;
    try {
      decodeClientMessage(controlOf({ type: 'kill', rid: 42, session: 'no such' }));
    } catch (error) {
      caught = error;
    }
    const reply = errorReply(caught as ProtocolError);
    expect(reply).toEqual({
      type: 'error',
      rid: 42,
      code: 'malformed_message',
      message: 'R-FIELD-1: kill.session: session id must be 1–32 characters of [A-Za-z0-9_-]',
    });
    expect(decodeBurrowMessage(encodeBurrowMessage(reply))).toEqual(reply);
  });
  test('an unknown type answers unknown_message; no rid gives rid null', () => {
    const error = expectRule(() => decodeClientMessage(controlOf({ type: 'x' })), 'R-MSG-3');
    expect(errorReply(error)).toMatchObject({ rid: null, code: 'unknown_message' });
  });
  test('a fatal error has no reply, and only ProtocolErrors are accepted', () => {
    const fatal = expectRule(() => new Reassembler().push(new Uint8Array([0x05])), 'R-FRAG-1');
    expect(() => errorReply(fatal)).toThrow(RangeError);
    expect(() => errorReply(new Error('x') as ProtocolError)).toThrow(TypeError);
  });
});

describe('R-ATTACH-2: OutputCursor', () => {
  const chunk = (offset: number, length: number) => ({ offset, data: new Uint8Array(length) });
  test('accepts contiguous output and tracks the resume offset', () => {
    const cursor = new OutputCursor(100);
    expect(cursor.advance(chunk(100, 5))).toBe(105);
    expect(cursor.advance(chunk(105, 1))).toBe(106);
    expect(cursor.offset).toBe(106);
    cursor.reset(7);
    expect(cursor.offset).toBe(7);
  });
  test('a gap or an overlap is refused and leaves the cursor where it was', () => {
    const cursor = new OutputCursor(10);
    expectRule(() => cursor.advance(chunk(11, 1)), 'R-ATTACH-2', { fatal: false });
    expectRule(() => cursor.advance(chunk(9, 1)), 'R-ATTACH-2');
    expect(cursor.offset).toBe(10);
  });
  test('offsets stay below 2^53', () => {
    const cursor = new OutputCursor(2 ** 53 - 2);
    expectRule(() => cursor.advance(chunk(2 ** 53 - 2, 2)), 'R-FIELD-3');
    expect(() => new OutputCursor(-1)).toThrow(RangeError);
    expect(() => cursor.reset(1.5)).toThrow(RangeError);
  });
});

test('R-DEV-2: no connect-mode message can carry delivery credentials or keys', () => {
  const fields = [...clientControlSchema.options, ...burrowControlSchema.options].flatMap((o) =>
    Object.keys(o.entries),
  );
  for (const secret of ['deliveryToken', 'deliveryId', 'psk']) expect(fields).not.toContain(secret);
});
