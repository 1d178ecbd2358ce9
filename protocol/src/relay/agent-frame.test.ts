import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CloseCode } from '../close-codes.js';
import {
  AgentFrameType,
  decodeAgentToRelayFrame,
  decodeRelayToAgentFrame,
  encodeClientClosedFrame,
  encodeClientOpenFrame,
  encodeCloseClientFrame,
  encodeDataFrame,
  MAX_AGENT_FRAME_BYTES,
  MAX_CONN_ID,
  MAX_NOISE_MESSAGE_BYTES,
} from './agent-frame.js';
import { RelayCodecError } from './relay-codec-error.js';

const connId = fc.integer({ min: 1, max: MAX_CONN_ID });
const payload = fc.uint8Array({ minLength: 1, maxLength: 2_000 });
const RUNS = { seed: 0xb0770, numRuns: 300 };

describe('agent socket frames [RL-FRAME-1..7]', () => {
  it('lays out DATA as type, connId big-endian, payload [RL-FRAME-1]', () => {
    expect(encodeDataFrame(0x01020304, new Uint8Array([0xaa, 0xbb]))).toEqual(
      new Uint8Array([AgentFrameType.DATA, 1, 2, 3, 4, 0xaa, 0xbb]),
    );
    expect(encodeClientOpenFrame(MAX_CONN_ID)).toEqual(new Uint8Array([2, 0xff, 0xff, 0xff, 0xff]));
    expect(encodeClientClosedFrame(7, 4003)).toEqual(new Uint8Array([3, 0, 0, 0, 7, 0x0f, 0xa3]));
    expect(encodeCloseClientFrame(7, CloseCode.DEVICE_REVOKED)).toEqual(
      new Uint8Array([4, 0, 0, 0, 7, 0x10, 0x05]),
    );
  });

  it('round-trips every frame in its direction (property)', () => {
    fc.assert(
      fc.property(connId, payload, (id, p) => {
        expect(decodeAgentToRelayFrame(encodeDataFrame(id, p))).toEqual({
          type: 'data',
          connId: id,
          payload: p,
        });
        expect(decodeRelayToAgentFrame(encodeDataFrame(id, p))).toEqual({
          type: 'data',
          connId: id,
          payload: p,
        });
        expect(decodeRelayToAgentFrame(encodeClientOpenFrame(id))).toEqual({
          type: 'client_open',
          connId: id,
        });
      }),
      RUNS,
    );
    fc.assert(
      fc.property(
        connId,
        fc.integer({ min: 1000, max: 4999 }),
        fc.integer({ min: 4100, max: 4199 }),
        (id, c, b) => {
          expect(decodeRelayToAgentFrame(encodeClientClosedFrame(id, c))).toEqual({
            type: 'client_closed',
            connId: id,
            code: c,
          });
          expect(decodeAgentToRelayFrame(encodeCloseClientFrame(id, b))).toEqual({
            type: 'close_client',
            connId: id,
            code: b,
          });
        },
      ),
      RUNS,
    );
  });

  it('accepts a full Noise message and refuses one byte more [RL-FRAME-2]', () => {
    const max = new Uint8Array(MAX_NOISE_MESSAGE_BYTES);
    expect(decodeAgentToRelayFrame(encodeDataFrame(1, max)).type).toBe('data');
    expect(() => encodeDataFrame(1, new Uint8Array(MAX_NOISE_MESSAGE_BYTES + 1))).toThrow(RangeError);
    const over = new Uint8Array(MAX_AGENT_FRAME_BYTES + 1);
    over.set([1, 0, 0, 0, 1]);
    expect(() => decodeAgentToRelayFrame(over)).toThrow(
      expect.objectContaining({ reason: 'frame_too_large' }),
    );
  });

  it('rejects bad frames with the reason [RL-FRAME-4]', () => {
    const reason = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof RelayCodecError ? e.reason : `other: ${String(e)}`;
      }
      return 'accepted';
    };
    expect(reason(() => decodeAgentToRelayFrame(new Uint8Array([1, 0, 0, 1])))).toBe('frame_too_short');
    expect(reason(() => decodeAgentToRelayFrame(new Uint8Array([1, 0, 0, 0, 0, 9])))).toBe('bad_conn_id');
    expect(reason(() => decodeAgentToRelayFrame(new Uint8Array([1, 0, 0, 0, 1])))).toBe('bad_length');
    expect(reason(() => decodeAgentToRelayFrame(new Uint8Array([9, 0, 0, 0, 1])))).toBe('unknown_frame_type');
    expect(reason(() => decodeAgentToRelayFrame(encodeClientOpenFrame(1)))).toBe('wrong_direction');
    expect(reason(() => decodeRelayToAgentFrame(encodeCloseClientFrame(1, 1000)))).toBe('wrong_direction');
    expect(reason(() => decodeAgentToRelayFrame(new Uint8Array([4, 0, 0, 0, 1, 0x0f, 0xa0])))).toBe(
      'bad_close_code',
    );
    expect(reason(() => decodeRelayToAgentFrame(new Uint8Array([3, 0, 0, 0, 1, 0x00, 0x10])))).toBe(
      'bad_close_code',
    );
    expect(reason(() => decodeRelayToAgentFrame(new Uint8Array([3, 0, 0, 0, 1, 0x03])))).toBe('bad_length');
    expect(reason(() => decodeRelayToAgentFrame(new Uint8Array([2, 0, 0, 0, 1, 0])))).toBe('bad_length');
  });

  it('rejects bad encoder input with TypeError / RangeError', () => {
    expect(() => encodeDataFrame(0, new Uint8Array(1))).toThrow(RangeError);
    expect(() => encodeDataFrame(MAX_CONN_ID + 1, new Uint8Array(1))).toThrow(RangeError);
    expect(() => encodeDataFrame(1.5, new Uint8Array(1))).toThrow(RangeError);
    expect(() => encodeDataFrame('1' as unknown as number, new Uint8Array(1))).toThrow(TypeError);
    expect(() => encodeDataFrame(1, [1] as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => encodeDataFrame(1, new Uint8Array(0))).toThrow(RangeError);
    expect(() => encodeCloseClientFrame(1, CloseCode.AGENT_OFFLINE)).toThrow(RangeError);
    expect(() => encodeClientClosedFrame(1, 999)).toThrow(RangeError);
    expect(() => decodeAgentToRelayFrame('x' as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('random and mutated input throws only RelayCodecError (property)', () => {
    const valid = fc.oneof(
      fc.tuple(connId, payload).map(([i, p]) => encodeDataFrame(i, p)),
      connId.map((i) => encodeClientOpenFrame(i)),
      connId.map((i) => encodeClientClosedFrame(i, 1000)),
      connId.map((i) => encodeCloseClientFrame(i, 4100)),
    );
    const mutated = fc
      .tuple(
        valid,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        fc.nat(8),
      )
      .map(([bytes, flips, cut]) => {
        const out = bytes.slice(0, Math.max(0, bytes.length - (cut % 3 === 0 ? cut : 0)));
        for (const [at, v] of flips) if (out.length > 0) out[at % out.length] = v;
        return out;
      });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), mutated), (bytes) => {
        for (const decode of [decodeAgentToRelayFrame, decodeRelayToAgentFrame]) {
          try {
            decode(bytes);
          } catch (e) {
            expect(e).toBeInstanceOf(RelayCodecError);
          }
        }
      }),
      RUNS,
    );
  });

  it('returns DATA payloads as views into the frame (no copy)', () => {
    const frame = encodeDataFrame(5, new Uint8Array([1, 2, 3]));
    const decoded = decodeAgentToRelayFrame(frame);
    if (decoded.type !== 'data') throw new Error('expected data');
    expect(decoded.payload.buffer).toBe(frame.buffer);
    expect(decoded.payload.byteOffset).toBe(5);
  });
});
