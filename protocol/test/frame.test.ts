// Byte layouts of the frames and their rejection rules. [SPEC: R-FRAME-*]
import { describe, expect, test } from 'vitest';
import {
  decodeBurrowMessage,
  decodeClientMessage,
  decodePairClientMessage,
  encodeBurrowMessage,
  encodeClientMessage,
  MAX_CONTROL_JSON_BYTES,
  MAX_INPUT_CHUNK_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_OUTPUT_CHUNK_BYTES,
  MAX_SNAPSHOT_BYTES,
} from '../src/remote/index.js';
import { controlFrame, controlOf, expectRule } from './helpers.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const u8 = (...b: number[]) => new Uint8Array(b);

describe('R-FRAME-1: the first byte says what the frame is', () => {
  test('an empty frame is fatal', () => {
    expectRule(() => decodeClientMessage(new Uint8Array(0)), 'R-FRAME-1', { fatal: true });
  });
  test.each([0x00, 0x06, 0x7f, 0xff])('unknown kind 0x%s is fatal', (kind) => {
    expectRule(() => decodeBurrowMessage(u8(kind, 1, 2)), 'R-FRAME-1', { fatal: true });
  });
});

describe('R-FRAME-2: CONTROL is 0x01 then UTF-8 JSON', () => {
  test('golden bytes', () => {
    expect(hex(encodeClientMessage({ type: 'ping', rid: 7 }))).toBe(
      hex(new Uint8Array([0x01, ...new TextEncoder().encode('{"type":"ping","rid":7}')])),
    );
  });
  test('invalid UTF-8 is refused (not replaced)', () => {
    expectRule(() => decodeClientMessage(u8(0x01, 0x7b, 0xff, 0x7d)), 'R-FRAME-2', { fatal: false });
  });
  test('JSON that does not parse is refused', () => {
    expectRule(() => decodeClientMessage(controlFrame('{"type":"ping",')), 'R-FRAME-2');
  });
  test('JSON over MAX_CONTROL_JSON_BYTES is refused before parsing', () => {
    const big = controlFrame(`{"type":"ping","rid":1,"x":"${'a'.repeat(MAX_CONTROL_JSON_BYTES)}"}`);
    expectRule(() => decodeClientMessage(big), 'R-FRAME-2', { code: 'payload_too_large' });
  });
});

describe('R-FRAME-3: TEXT_BODY is 0x02, u32 JSON length, JSON, UTF-8 data', () => {
  const resync = {
    type: 'resync',
    session: 's',
    offset: 3,
    cols: 2,
    rows: 1,
    firstLine: 0,
    hasOlder: false,
    data: 'hé',
  } as const;
  test('golden bytes', () => {
    const json = new TextEncoder().encode(
      '{"type":"resync","session":"s","offset":3,"cols":2,"rows":1,"firstLine":0,"hasOlder":false}',
    );
    const frame = encodeBurrowMessage(resync);
    expect(frame[0]).toBe(0x02);
    expect(Buffer.from(frame.subarray(1, 5)).readUInt32BE(0)).toBe(json.length);
    expect(hex(frame.subarray(5, 5 + json.length))).toBe(hex(json));
    expect(hex(frame.subarray(5 + json.length))).toBe('68c3a9');
  });
  test('a frame cut inside its JSON length is refused', () => {
    expectRule(() => decodeBurrowMessage(u8(0x02, 0, 0)), 'R-FRAME-3');
  });
  test('a JSON length past the end is refused', () => {
    expectRule(() => decodeBurrowMessage(u8(0x02, 0, 0, 0, 9, 0x7b, 0x7d)), 'R-FRAME-3');
  });
  test('data that is not UTF-8 is refused', () => {
    const frame = encodeBurrowMessage(resync);
    const bad = new Uint8Array(frame.length + 1);
    bad.set(frame);
    bad[frame.length] = 0xc3; // a lead byte with no continuation
    expectRule(() => decodeBurrowMessage(bad), 'R-FRAME-3');
  });
  test('an encoder refuses a lone surrogate (it could not round-trip)', () => {
    expectRule(() => encodeBurrowMessage({ ...resync, data: 'a\ud800b' }), 'R-FRAME-3');
  });
  test('an encoder refuses data over MAX_SNAPSHOT_BYTES', () => {
    expectRule(
      () => encodeBurrowMessage({ ...resync, data: 'x'.repeat(MAX_SNAPSHOT_BYTES + 1) }),
      'R-FRAME-3',
    );
  });
  test('data of exactly MAX_SNAPSHOT_BYTES is accepted', () => {
    const frame = encodeBurrowMessage({ ...resync, data: 'x'.repeat(MAX_SNAPSHOT_BYTES) });
    expect(frame.length).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect((decodeBurrowMessage(frame) as { data: string }).data.length).toBe(MAX_SNAPSHOT_BYTES);
  });
});

describe('R-FRAME-4: OUTPUT and INPUT layouts', () => {
  test('OUTPUT golden bytes: kind, id length, id, u64 offset, bytes', () => {
    const frame = encodeBurrowMessage({ type: 'output', session: 'ab', offset: 2 ** 32 + 5, data: u8(9, 8) });
    expect(hex(frame)).toBe('03' + '02' + '6162' + '0000000100000005' + '0908');
  });
  test('the largest offset, 2^53−1, round-trips', () => {
    const frame = encodeBurrowMessage({ type: 'output', session: 'a', offset: 2 ** 53 - 1, data: u8(1) });
    expect(hex(frame.subarray(3, 11))).toBe('001fffffffffffff');
    expect(decodeBurrowMessage(frame)).toMatchObject({ offset: 2 ** 53 - 1 });
  });
  test('an offset of 2^53 or more is refused', () => {
    expectRule(() => decodeBurrowMessage(u8(0x03, 1, 0x61, 0, 0x20, 0, 0, 0, 0, 0, 0, 1)), 'R-FRAME-4');
    expectRule(
      () => decodeBurrowMessage(u8(0x03, 1, 0x61, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1)),
      'R-FRAME-4',
    );
  });
  test('an encoder refuses an offset that is not a safe non-negative integer', () => {
    for (const offset of [-1, 1.5, 2 ** 53, Number.NaN]) {
      expectRule(
        () => encodeBurrowMessage({ type: 'output', session: 'a', offset, data: u8(1) }),
        'R-FIELD-3',
      );
    }
  });
  test('a frame cut inside the id or the offset is refused', () => {
    expectRule(() => decodeBurrowMessage(u8(0x03)), 'R-FRAME-4');
    expectRule(() => decodeBurrowMessage(u8(0x03, 5, 0x61)), 'R-FRAME-4');
    expectRule(() => decodeBurrowMessage(u8(0x03, 1, 0x61, 0, 0, 0)), 'R-FRAME-4');
  });
  test('a binary session id outside the alphabet is refused', () => {
    expectRule(() => decodeBurrowMessage(u8(0x03, 1, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 1)), 'R-FIELD-1');
    expectRule(() => decodeBurrowMessage(u8(0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)), 'R-FIELD-1');
  });
  test('an empty payload is refused both ways', () => {
    expectRule(() => decodeBurrowMessage(u8(0x03, 1, 0x61, 0, 0, 0, 0, 0, 0, 0, 0)), 'R-FRAME-4');
    expectRule(
      () => encodeBurrowMessage({ type: 'output', session: 'a', offset: 0, data: u8() }),
      'R-FRAME-4',
    );
    expectRule(() => decodeClientMessage(u8(0x04, 0, 1, 0x61)), 'R-FRAME-4');
  });
  test('payloads over their bound are refused', () => {
    const big = new Uint8Array(MAX_OUTPUT_CHUNK_BYTES + 1);
    expectRule(
      () => encodeBurrowMessage({ type: 'output', session: 'a', offset: 0, data: big }),
      'R-FRAME-4',
    );
    const frame = new Uint8Array(3 + 1 + MAX_INPUT_CHUNK_BYTES + 1);
    frame.set([0x04, 0, 1, 0x61]);
    expectRule(() => decodeClientMessage(frame), 'R-FRAME-4');
  });
  test('INPUT golden bytes: kind, flags (bit 0 = reply), id length, id, bytes', () => {
    expect(hex(encodeClientMessage({ type: 'input', session: 'z', kind: 'user', data: u8(0x61) }))).toBe(
      '0400017a61',
    );
    expect(hex(encodeClientMessage({ type: 'input', session: 'z', kind: 'reply', data: u8(0x61) }))).toBe(
      '0401017a61',
    );
  });
  test('INPUT with unknown flag bits, or cut inside its flags, is refused', () => {
    expectRule(() => decodeClientMessage(u8(0x04, 0x02, 1, 0x61, 1)), 'R-FRAME-4');
    expectRule(() => decodeClientMessage(u8(0x04)), 'R-FRAME-4');
  });
  test('an encoder refuses an input kind other than user / reply', () => {
    expectRule(
      () => encodeClientMessage({ type: 'input', session: 'a', kind: 'robot' as 'user', data: u8(1) }),
      'R-FRAME-4',
    );
    expectRule(
      () => encodeClientMessage({ type: 'input', session: 'a b', kind: 'user', data: u8(1) }),
      'R-FIELD-1',
    );
  });
});

describe('R-FRAME-6: each direction and mode uses only its own frame kinds', () => {
  test('OUTPUT to the Burrow, INPUT to the phone, TEXT_BODY to the Burrow are fatal', () => {
    const output = encodeBurrowMessage({ type: 'output', session: 'a', offset: 0, data: u8(1) });
    const input = encodeClientMessage({ type: 'input', session: 'a', kind: 'user', data: u8(1) });
    expectRule(() => decodeClientMessage(output), 'R-FRAME-6', { fatal: true });
    expectRule(() => decodeBurrowMessage(input), 'R-FRAME-6', { fatal: true });
    expectRule(() => decodeClientMessage(u8(0x02, 0, 0, 0, 2, 0x7b, 0x7d)), 'R-FRAME-6', { fatal: true });
    expectRule(() => decodePairClientMessage(input), 'R-FRAME-6', { fatal: true });
  });
  test('a FRAGMENT must be reassembled first', () => {
    expectRule(() => decodeBurrowMessage(u8(0x05, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0, 0, 1)), 'R-FRAME-6', {
      fatal: true,
    });
  });
  test('a message of one direction is unknown in the other', () => {
    expectRule(() => decodeClientMessage(controlOf({ type: 'pong', rid: 1 })), 'R-MSG-3', {
      code: 'unknown_message',
    });
    expectRule(() => decodePairClientMessage(controlOf({ type: 'ping', rid: 1 })), 'R-MSG-3');
  });
});

test('R-FRAME-7: a whole frame over MAX_MESSAGE_BYTES is fatal', () => {
  const frame = new Uint8Array(MAX_MESSAGE_BYTES + 1);
  frame[0] = 0x01;
  expectRule(() => decodeClientMessage(frame), 'R-FRAME-7', { fatal: true });
});

test('decoders take only a Uint8Array (a programming error, not peer input)', () => {
  expect(() => decodeClientMessage('x' as unknown as Uint8Array)).toThrow(TypeError);
});
