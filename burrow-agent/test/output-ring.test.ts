import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputRing } from '../src/session/output-ring.js';

describe('OutputRing', () => {
  it('returns exactly the bytes from an offset, and null once they are overwritten', () => {
    const r = new OutputRing(8);
    r.append(Buffer.from('abcdef'));
    r.append(Buffer.from('ghij'));
    expect(r.startOffset).toBe(2);
    expect(Buffer.from(r.readFrom(2)!).toString()).toBe('cdefghij');
    expect(Buffer.from(r.readFrom(9)!).toString()).toBe('j');
    expect(r.readFrom(10)!.byteLength).toBe(0);
    expect(r.readFrom(1)).toBeNull();
    expect(() => r.readFrom(11)).toThrow(RangeError);
    expect(() => r.readFrom(-1)).toThrow(RangeError);
    expect(() => new OutputRing(0)).toThrow(RangeError);
  });

  it('matches a naive model for any sequence of appends (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.array(fc.uint8Array({ maxLength: 100 }), { maxLength: 30 }),
        fc.nat(),
        (cap, chunks, pick) => {
          const r = new OutputRing(cap);
          let all = Buffer.alloc(0);
          for (const c of chunks) {
            r.append(c);
            all = Buffer.concat([all, c]);
          }
          expect(r.endOffset).toBe(all.byteLength);
          const off = all.byteLength === 0 ? 0 : pick % (all.byteLength + 1);
          const got = r.readFrom(off);
          if (off < all.byteLength - cap) expect(got).toBeNull();
          else expect(Buffer.from(got!)).toEqual(all.subarray(off));
        },
      ),
      { seed: 1234, numRuns: 300 },
    );
  });
});
