import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputLog } from '../src/session/output-log.js';

const log = (floor: () => number = () => Number.POSITIVE_INFINITY, keep = 8, max = 16, block = 4) =>
  new OutputLog({ blockBytes: block, keepBytes: keep, maxBytes: max, floor });

describe('OutputLog', () => {
  it('keeps the last keepBytes, more while a reader needs them, never more than maxBytes', () => {
    let floor = Number.POSITIVE_INFINITY;
    const l = log(() => floor);
    l.append(Buffer.from('abcdefghij')); // blocks abcd efgh ij..
    expect(l.startOffset).toBe(0); // 10 - 8 = 2: block 0 holds offset 2, kept
    l.append(Buffer.from('klmn')); // end 14: keep from 6, block 0 (0..4) goes
    expect(l.startOffset).toBe(4);
    expect(Buffer.from(l.read(4, 100)!).toString()).toBe('efghijklmn');
    expect(l.read(3, 1)).toBeNull();
    floor = 4; // a reader still needs offset 4
    l.append(Buffer.from('opqrstuv')); // end 22: keep from 14, but held from 4
    expect(l.startOffset).toBe(4);
    l.append(Buffer.from('wxyz')); // end 26: max 16 → everything before 10 may go
    expect(l.startOffset).toBe(8);
    floor = Number.POSITIVE_INFINITY;
    l.trim();
    expect(l.startOffset).toBe(16);
    expect(Buffer.from(l.read(16, 3)!).toString()).toBe('qrs');
    expect(l.read(26, 5)!.byteLength).toBe(0);
    expect(() => l.read(27, 1)).toThrow(RangeError);
    expect(() => l.read(-1, 1)).toThrow(RangeError);
  });

  it('hands out views that later appends never change', () => {
    const l = log();
    l.append(Buffer.from('ab'));
    const view = l.read(0, 10)!;
    l.append(Buffer.from('cdefghijklmnopqrstuvwxyz'));
    expect(Buffer.from(view).toString()).toBe('ab');
  });

  it('refuses bad bounds', () => {
    expect(() => log(undefined, 0)).toThrow(RangeError);
    expect(() => log(undefined, 32, 16)).toThrow(RangeError);
    expect(() => new OutputLog({ blockBytes: 4, keepBytes: 4, maxBytes: 4, floor: 1 as never })).toThrow(
      TypeError,
    );
  });

  it('matches a naive model for any appends, floors and reads (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.tuple(fc.uint8Array({ maxLength: 50 }), fc.nat(), fc.nat(), fc.nat()), { maxLength: 30 }),
        (block, keep, extra, steps) => {
          const max = keep + extra;
          let floor = Number.POSITIVE_INFINITY;
          const l = new OutputLog({ blockBytes: block, keepBytes: keep, maxBytes: max, floor: () => floor });
          let all = Buffer.alloc(0);
          for (const [chunk, pickFloor, pickRead, len] of steps) {
            // A reader's claim is never older than what the log still holds when it is made (session.ts).
            const held = all.byteLength - l.startOffset;
            floor =
              all.byteLength === 0 ? Number.POSITIVE_INFINITY : l.startOffset + (pickFloor % (held + 1));
            l.append(chunk);
            all = Buffer.concat([all, chunk]);
            const end = all.byteLength;
            expect(l.endOffset).toBe(end);
            // What must be there is there; nothing beyond max (+ one partial block) is held.
            expect(l.startOffset).toBeLessThanOrEqual(
              Math.max(0, Math.min(end - keep, Math.max(floor, end - max))),
            );
            expect(end - l.startOffset).toBeLessThanOrEqual(max + 2 * block);
            const off = pickRead % (end + 1);
            const got = l.read(off, len % 60);
            if (off < l.startOffset) expect(got).toBeNull();
            else expect(Buffer.from(got!)).toEqual(all.subarray(off, Math.min(end, off + (len % 60))));
          }
        },
      ),
      { seed: 1414, numRuns: 300 },
    );
  });

  it('copies any held range across blocks; refuses what is not held or does not fit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 13 }), { maxLength: 12 }),
        fc.nat(),
        fc.nat(),
        (parts, a, b) => {
          const l = log(() => 0, 8, 1000, 4);
          for (const p of parts) l.append(p);
          const all = Buffer.concat(parts);
          const from = all.length === 0 ? 0 : a % (all.length + 1);
          const to = from + (all.length === 0 ? 0 : b % (all.length - from + 1));
          const into = new Uint8Array(to - from + 3).fill(7);
          l.copy(from, to, into);
          expect(Buffer.from(into.subarray(0, to - from))).toEqual(all.subarray(from, to));
          expect([...into.subarray(to - from)]).toEqual([7, 7, 7]);
        },
      ),
    );
    const l = log(() => Number.POSITIVE_INFINITY);
    l.append(Buffer.from('abcdefghijklmnopqrstuvwxyz'));
    expect(() => l.copy(0, 5, new Uint8Array(5))).toThrow(RangeError); // dropped
    expect(() => l.copy(20, 27, new Uint8Array(7))).toThrow(RangeError); // past the end
    expect(() => l.copy(20, 26, new Uint8Array(5))).toThrow(RangeError); // does not fit
    expect(() => l.copy(22, 21, new Uint8Array(5))).toThrow(RangeError);
  });
});
