import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeOutput,
  decodeSnapshot,
  encodeFrame,
  encodeJson,
  encodeOutput,
  encodeSnapshot,
  FrameDecoder,
  FrameError,
  FrameType,
  parseJsonPayload,
} from '../src/control/frame-codec.js';

describe('frame codec', { timeout: 30_000 }, () => {
  it('round-trips every frame type, however the bytes are split', () => {
    const frames = [
      encodeJson({ hello: 'wörld' }),
      encodeOutput(2 ** 40, Buffer.from('out')),
      encodeSnapshot({ cols: 80 }, 'screen'),
      encodeFrame(FrameType.Input, Buffer.from([1, 2, 3])),
    ];
    const all = Buffer.concat(frames);
    for (let split = 1; split < all.length; split += 3) {
      const d = new FrameDecoder(1024);
      const got = [...d.push(all.subarray(0, split)), ...d.push(all.subarray(split))];
      expect(got.map((f) => f.type)).toEqual([
        FrameType.Json,
        FrameType.Output,
        FrameType.Snapshot,
        FrameType.Input,
      ]);
      expect(parseJsonPayload(got[0]!.payload)).toEqual({ hello: 'wörld' });
      const o = decodeOutput(got[1]!.payload);
      expect([o.offset, Buffer.from(o.data).toString()]).toEqual([2 ** 40, 'out']);
      expect(decodeSnapshot(got[2]!.payload)).toEqual({ header: { cols: 80 }, data: 'screen' });
    }
  });

  it('an output frame is the offset (64-bit big-endian) and the data in one Output frame (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.nat(), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
        fc.uint8Array({ maxLength: 300 }),
        (offset, data) => {
          const payload = Buffer.alloc(8 + data.byteLength);
          payload.writeBigUInt64BE(BigInt(offset), 0);
          payload.set(data, 8);
          const frame = encodeOutput(offset, data);
          expect(frame).toEqual(encodeFrame(FrameType.Output, payload));
          const [f] = new FrameDecoder(1024).push(frame);
          const o = decodeOutput(f!.payload);
          expect(o.offset).toBe(offset);
          expect(Buffer.from(o.data)).toEqual(Buffer.from(data));
        },
      ),
    );
    expect(() => encodeOutput(-1, new Uint8Array(1))).toThrow(RangeError);
    expect(() => encodeOutput(2 ** 53, new Uint8Array(1))).toThrow(RangeError);
  });

  it('rejects an oversized frame from its header alone, before buffering it', () => {
    const d = new FrameDecoder(100);
    const head = Buffer.alloc(5);
    head.writeUInt32BE(102, 0);
    head[4] = FrameType.Json;
    expect(() => d.push(head)).toThrow(FrameError);
    expect(() => d.push(Buffer.alloc(1))).toThrow(FrameError);
  });

  it('rejects zero-length frames, unknown types, bad UTF-8 and bad JSON', () => {
    expect(() => new FrameDecoder(10).push(Buffer.from([0, 0, 0, 0]))).toThrow(FrameError);
    expect(() => new FrameDecoder(10).push(Buffer.from([0, 0, 0, 1, 9]))).toThrow(FrameError);
    expect(() => parseJsonPayload(Buffer.from([0xff]))).toThrow(FrameError);
    expect(() => parseJsonPayload(Buffer.from('{'))).toThrow(FrameError);
    expect(() => decodeOutput(Buffer.alloc(3))).toThrow(FrameError);
    expect(() => decodeSnapshot(Buffer.from([0, 0, 0, 9]))).toThrow(FrameError);
  });

  it('random and mutated input never throws anything but FrameError (property)', () => {
    const valid = Buffer.concat([
      encodeJson({ a: 1 }),
      encodeOutput(5, Buffer.from('x')),
      encodeSnapshot({}, 'y'),
    ]);
    const input = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })).map(([i, b]) => {
        const m = Buffer.from(valid);
        m[i] = b;
        return m;
      }),
    );
    fc.assert(
      fc.property(input, fc.nat(50), (bytes, split) => {
        const d = new FrameDecoder(256);
        try {
          for (const f of [...d.push(bytes.subarray(0, split)), ...d.push(bytes.subarray(split))]) {
            if (f.type === FrameType.Json) parseJsonPayload(f.payload);
            if (f.type === FrameType.Output) decodeOutput(f.payload);
            if (f.type === FrameType.Snapshot) decodeSnapshot(f.payload);
          }
        } catch (err) {
          expect(err).toBeInstanceOf(FrameError);
        }
      }),
      { seed: 7, numRuns: 1000 },
    );
  });
});
