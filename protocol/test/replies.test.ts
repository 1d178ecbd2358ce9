// Helpers both sides use around the codecs. [SPEC: R-ERR-2, R-ATTACH-2, R-DEV-2]
import { describe, expect, test } from 'vitest';
import { burrowControlSchema } from '../src/remote/burrow-messages.js';
import { clientControlSchema } from '../src/remote/client-messages.js';
import {
  burrowStream,
  clientStream,
  decodeBurrowMessage,
  decodeClientMessage,
  encodeBurrowMessage,
  errorReply,
  OutputCursor,
  type ProtocolError,
  pairBurrowStream,
  pairClientStream,
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

describe('MessageStream', () => {
  test('a snapshot and live output cross a burrow/client pair of streams, fragmented', () => {
    const burrow = burrowStream();
    const phone = clientStream();
    const data = 'x'.repeat(200_000);
    const snapshot = {
      type: 'attached',
      rid: 1,
      session: 's',
      offset: 0,
      cols: 80,
      rows: 24,
      firstLine: 0,
      hasOlder: false,
      data,
    } as const;
    const plaintexts = [
      ...burrow.send(snapshot),
      ...burrow.send({ type: 'output', session: 's', offset: 0, data: new Uint8Array([0x61]) }),
    ];
    expect(plaintexts.length).toBeGreaterThan(3);
    const received = plaintexts.map((p) => phone.receive(p)).filter((m) => m !== null);
    expect(received).toEqual([
      snapshot,
      { type: 'output', session: 's', offset: 0, data: new Uint8Array([0x61]) },
    ]);
    phone.end();
    const [hello] = phone.send({ type: 'hello', appVersion: '1.0.0', viewer: 'test', cols: 80, rows: 24 });
    expect(burrow.receive(hello!)).toMatchObject({ type: 'hello', viewer: 'test' });
  });
  test('pair streams speak only pairing messages', () => {
    const burrow = pairBurrowStream();
    const phone = pairClientStream();
    const [request] = phone.send({ type: 'pair-request', label: 'phone', platform: 'iOS', userAgent: 'x' });
    expect(burrow.receive(request!)).toMatchObject({ type: 'pair-request' });
    const [pending] = burrow.send({ type: 'pair-pending' });
    expect(phone.receive(pending!)).toEqual({ type: 'pair-pending' });
    expectRule(() => burrow.receive(clientStream().send({ type: 'ping', rid: 1 })[0]!), 'R-MSG-3');
  });
  test('a stream cut inside a fragmented message fails on end()', () => {
    const phone = clientStream();
    const pieces = burrowStream().send({
      type: 'resync',
      session: 's',
      offset: 0,
      cols: 1,
      rows: 1,
      firstLine: 0,
      hasOlder: false,
      data: 'y'.repeat(100_000),
    });
    expect(phone.receive(pieces[0]!)).toBeNull();
    expectRule(() => phone.end(), 'R-FRAG-7', { fatal: true });
  });
});
