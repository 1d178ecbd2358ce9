// Fragmentation and bounded reassembly. [SPEC: R-FRAG-*]
import { describe, expect, test } from 'vitest';
import {
  decodeBurrowMessage,
  encodeBurrowMessage,
  FRAGMENT_HEADER_BYTES,
  Fragmenter,
  fragment,
  MAX_FRAGMENT_CHUNK_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_NOISE_PLAINTEXT_BYTES,
  MAX_PARTIAL_MESSAGES,
  MAX_REASSEMBLY_BYTES,
  Reassembler,
} from '../src/remote/index.js';
import { expectRule } from './helpers.js';

const frameOf = (length: number, fill = 7) => {
  const f = new Uint8Array(length).fill(fill);
  f[0] = 0x01;
  return f;
};

/** A FRAGMENT frame built by hand. */
function frag(id: number, total: number, at: number, chunk: Uint8Array | number[]): Uint8Array {
  const body = chunk instanceof Uint8Array ? chunk : new Uint8Array(chunk);
  const out = new Uint8Array(FRAGMENT_HEADER_BYTES + body.length);
  const view = new DataView(out.buffer);
  out[0] = 0x05;
  view.setUint32(1, id);
  view.setUint32(5, total);
  view.setUint32(9, at);
  out.set(body, FRAGMENT_HEADER_BYTES);
  return out;
}

describe('fragment()', () => {
  test('R-FRAME-5 / R-FRAG-1: golden layout', () => {
    const pieces = fragment(frameOf(2500), 1024, 3);
    expect(pieces.map((p) => p.length)).toEqual([1024 + 13, 1024 + 13, 452 + 13]);
    expect(Buffer.from(pieces[1]!.subarray(0, 13)).toString('hex')).toBe(
      '05' + '00000003' + '000009c4' + '00000400',
    );
  });
  test('rejects bad arguments with TypeError / RangeError', () => {
    expect(() => fragment([1, 2] as unknown as Uint8Array, 1024, 1)).toThrow(TypeError);
    expect(() => fragment(frameOf(5000), 1023, 1)).toThrow(RangeError);
    expect(() => fragment(frameOf(5000), MAX_FRAGMENT_CHUNK_BYTES + 1, 1)).toThrow(RangeError);
    expect(() => fragment(frameOf(5000), 1024, 0)).toThrow(RangeError);
    expect(() => fragment(frameOf(5000), 1024, 2 ** 32)).toThrow(RangeError);
    expect(() => fragment(frameOf(1024), 1024, 1)).toThrow(RangeError);
    expect(() => fragment(frag(1, 5000, 0, new Uint8Array(5000)), 1024, 1)).toThrow(RangeError);
  });
});

describe('Fragmenter', () => {
  test('passes a frame that fits through untouched, and numbers fragmented messages 1, 2, …', () => {
    const f = new Fragmenter();
    const small = frameOf(MAX_NOISE_PLAINTEXT_BYTES);
    expect(f.split(small)).toEqual([small]);
    const a = f.split(frameOf(MAX_NOISE_PLAINTEXT_BYTES + 1));
    const b = f.split(frameOf(MAX_NOISE_PLAINTEXT_BYTES + 1));
    expect(a).toHaveLength(2);
    expect(new DataView(a[0]!.buffer).getUint32(1)).toBe(1);
    expect(new DataView(b[0]!.buffer).getUint32(1)).toBe(2);
    for (const piece of [...a, ...b]) expect(piece.length).toBeLessThanOrEqual(MAX_NOISE_PLAINTEXT_BYTES);
  });
  test('rejects bad arguments', () => {
    expect(() => new Fragmenter(100)).toThrow(RangeError);
    expect(() => new Fragmenter(MAX_NOISE_PLAINTEXT_BYTES + 1)).toThrow(RangeError);
    expect(() => new Fragmenter().split(new Uint8Array(0))).toThrow(TypeError);
  });
  test('a 10,000-line × 120-column coloured snapshot crosses in order and decodes', () => {
    const line = Array.from(
      { length: 120 },
      (_, i) => `\x1b[38;5;${i}m${String.fromCharCode(33 + (i % 90))}`,
    ).join('');
    const data = Array.from({ length: 10_000 }, () => line).join('\r\n');
    const message = {
      type: 'attached',
      rid: 1,
      session: 'big',
      offset: 123_456_789,
      cols: 120,
      rows: 50,
      firstLine: 0,
      hasOlder: false,
      data,
    } as const;
    const frame = encodeBurrowMessage(message);
    expect(frame.length).toBeGreaterThan(10_000_000);
    expect(frame.length).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const pieces = new Fragmenter().split(frame);
    const r = new Reassembler();
    const out = pieces.map((p) => r.push(p));
    expect(out.slice(0, -1).every((x) => x === null)).toBe(true);
    expect(r.reservedBytes).toBe(0);
    expect(decodeBurrowMessage(out.at(-1)!)).toEqual(message);
    r.end();
  });
});

describe('Reassembler', () => {
  test('passes whole frames through, also between the fragments of a message', () => {
    const r = new Reassembler();
    const [p1, p2] = fragment(frameOf(1500, 1), 1024, 1) as [Uint8Array, Uint8Array];
    const whole = frameOf(10, 2);
    expect(r.push(p1)).toBeNull();
    expect(r.push(whole)).toBe(whole);
    expect(r.partialMessages).toBe(1);
    expect(r.reservedBytes).toBe(1500);
    expect(r.push(p2)).toEqual(frameOf(1500, 1));
    expect(r.partialMessages).toBe(0);
  });
  test('R-FRAG-6: up to MAX_PARTIAL_MESSAGES messages may interleave; one more is fatal', () => {
    const r = new Reassembler();
    const messages = Array.from({ length: MAX_PARTIAL_MESSAGES + 1 }, (_, i) =>
      fragment(frameOf(2000, i), 1024, i + 1),
    );
    for (let i = 0; i < MAX_PARTIAL_MESSAGES; i++) expect(r.push(messages[i]![0]!)).toBeNull();
    expectRule(() => r.push(messages[MAX_PARTIAL_MESSAGES]![0]!), 'R-FRAG-6', { fatal: true });
    // The others complete in any order.
    for (let i = MAX_PARTIAL_MESSAGES - 1; i >= 0; i--)
      expect(r.push(messages[i]![1]!)).toEqual(frameOf(2000, i));
  });
  test('R-FRAG-6: declared totals are reserved against the byte budget up front', () => {
    const r = new Reassembler({ maxBytes: 4096 });
    expect(r.push(frag(1, 3000, 0, new Uint8Array(10).fill(1)))).toBeNull();
    expect(r.reservedBytes).toBe(3000);
    expectRule(() => r.push(frag(2, 1097, 0, new Uint8Array(10).fill(1))), 'R-FRAG-6', { fatal: true });
  });
  test('R-FRAG-6: the default budget holds MAX_REASSEMBLY_BYTES', () => {
    const r = new Reassembler();
    const per = MAX_MESSAGE_BYTES;
    let id = 1;
    for (let held = 0; held + per <= MAX_REASSEMBLY_BYTES; held += per) r.push(frag(id++, per, 0, [1]));
    expect(r.reservedBytes).toBe(MAX_REASSEMBLY_BYTES);
    expectRule(() => r.push(frag(id, 2, 0, [1])), 'R-FRAG-6');
  });
  test('R-FRAG-1: a fragment without a chunk is fatal', () => {
    expectRule(() => new Reassembler().push(frag(1, 10, 0, [])), 'R-FRAG-1', { fatal: true });
    expectRule(() => new Reassembler().push(new Uint8Array([0x05, 0, 0])), 'R-FRAG-1', { fatal: true });
  });
  test('R-FRAG-2: a chunk past the total, or a single-fragment message, is fatal', () => {
    expectRule(() => new Reassembler().push(frag(1, 2, 0, [1, 1, 1])), 'R-FRAG-2');
    expectRule(() => new Reassembler().push(frag(1, 3, 0, [1, 1, 1])), 'R-FRAG-2');
  });
  test('R-FRAG-3: a total over MAX_MESSAGE_BYTES, or a nested FRAGMENT, is fatal', () => {
    expectRule(() => new Reassembler().push(frag(1, MAX_MESSAGE_BYTES + 1, 0, [1])), 'R-FRAG-3');
    expectRule(() => new Reassembler().push(frag(1, 100, 0, [0x05, 0])), 'R-FRAG-3');
  });
  test('R-FRAG-4: out of order, duplicated, or changing total is fatal', () => {
    expectRule(() => new Reassembler().push(frag(1, 100, 10, [1])), 'R-FRAG-4');
    const r = new Reassembler();
    r.push(frag(1, 100, 0, [1, 1]));
    expectRule(() => r.push(frag(1, 100, 3, [1])), 'R-FRAG-4');
    const d = new Reassembler();
    d.push(frag(1, 100, 0, [1, 1]));
    expectRule(() => d.push(frag(1, 100, 0, [1, 1])), 'R-FRAG-4');
    const t = new Reassembler();
    t.push(frag(1, 100, 0, [1, 1]));
    expectRule(() => t.push(frag(1, 101, 2, [1])), 'R-FRAG-4');
  });
  test('R-FRAG-5: message ids start at 1 and increase', () => {
    expectRule(() => new Reassembler().push(frag(0, 10, 0, [1])), 'R-FRAG-5');
    const r = new Reassembler();
    r.push(frag(5, 3, 0, [1, 1]));
    r.push(frag(5, 3, 2, [1]));
    expectRule(() => r.push(frag(5, 3, 0, [1, 1])), 'R-FRAG-5');
    expectRule(() => r.push(frag(4, 3, 0, [1, 1])), 'R-FRAG-5');
    expect(r.push(frag(6, 3, 0, [1, 1]))).toBeNull();
  });
  test('R-FRAG-7: the stream ending inside a message is fatal', () => {
    const r = new Reassembler();
    r.end();
    r.push(frag(1, 3, 0, [1, 1]));
    expectRule(() => r.end(), 'R-FRAG-7', { fatal: true });
  });
  test('R-FRAME-1 / R-FRAME-7: empty or over-long plaintexts are fatal', () => {
    expectRule(() => new Reassembler().push(new Uint8Array(0)), 'R-FRAME-1');
    expectRule(() => new Reassembler().push(frameOf(MAX_NOISE_PLAINTEXT_BYTES + 1)), 'R-FRAME-7');
  });
  test('keeps no view of the caller buffer', () => {
    const r = new Reassembler();
    const p1 = frag(1, 4, 0, [1, 2]);
    r.push(p1);
    p1.fill(9);
    expect(r.push(frag(1, 4, 2, [3, 4]))).toEqual(new Uint8Array([1, 2, 3, 4]));
  });
  test('rejects bad limits and inputs', () => {
    expect(() => new Reassembler({ maxBytes: 0 })).toThrow(RangeError);
    expect(() => new Reassembler({ maxBytes: MAX_REASSEMBLY_BYTES + 1 })).toThrow(RangeError);
    expect(() => new Reassembler({ maxPartials: 0 })).toThrow(RangeError);
    expect(() => new Reassembler({ maxPartials: MAX_PARTIAL_MESSAGES + 1 })).toThrow(RangeError);
    expect(() => new Reassembler().push('x' as unknown as Uint8Array)).toThrow(TypeError);
  });
});
