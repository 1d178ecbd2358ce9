import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputCursor } from './output-cursor.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('OutputCursor', () => {
  it('delivers contiguous frames and trims overlap', () => {
    const c = new OutputCursor(10);
    expect(c.accept(10, bytes('abc'))).toEqual({ kind: 'deliver', data: bytes('abc') });
    const r = c.accept(11, bytes('bcdef'));
    expect(r.kind === 'deliver' && text(r.data)).toBe('def');
    expect(c.offset).toBe(16);
    expect(c.accept(12, bytes('cd'))).toEqual({ kind: 'duplicate' });
    expect(c.accept(17, bytes('x'))).toEqual({ kind: 'gap' });
  });

  it('reconstructs a stream exactly from overlapping, replayed chunks', () => {
    const stream = bytes('0123456789abcdefghijklmnopqrstuvwxyz');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(35), fc.nat(10)), { maxLength: 60 }), (cuts) => {
        const c = new OutputCursor(0);
        let out = '';
        for (const [start, len] of cuts) {
          const s = Math.min(start, c.offset);
          const r = c.accept(s, stream.subarray(s, Math.min(stream.length, s + len)));
          if (r.kind === 'deliver') out += text(r.data);
          expect(r.kind).not.toBe('gap');
        }
        expect(out).toBe(text(stream.subarray(0, c.offset)));
      }),
      { seed: 7, numRuns: 300 },
    );
  });
});
