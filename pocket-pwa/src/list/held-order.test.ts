import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { heldOrder } from './held-order.js';

const rows = (...ids: string[]) => ids.map((id) => ({ id }));
const ids = (r: readonly { id: string }[]) => r.map((e) => e.id);

describe('heldOrder', () => {
  it('keeps the places rows were shown in, whatever the sort says now', () => {
    expect(ids(heldOrder(['a', 'b', 'c'], rows('c', 'a', 'b')))).toEqual(['a', 'b', 'c']);
  });

  it('puts sessions that appeared after the shown ones, in sorted order', () => {
    expect(ids(heldOrder(['a', 'b'], rows('y', 'b', 'x', 'a')))).toEqual(['a', 'b', 'y', 'x']);
  });

  it('drops sessions that are gone', () => {
    expect(ids(heldOrder(['a', 'b', 'c'], rows('c', 'a')))).toEqual(['a', 'c']);
  });

  it('returns the entries of the sort (their contents update while held)', () => {
    const fresh = [{ id: 'a', ringing: true }];
    expect(heldOrder(['a'], fresh)[0]).toBe(fresh[0]);
  });

  it('shows every sorted entry exactly once, and held ones in their shown order (property)', () => {
    const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
    fc.assert(
      fc.property(fc.uniqueArray(id), fc.uniqueArray(id), (shown, now) => {
        const out = ids(heldOrder(shown, rows(...now)));
        expect([...out].sort()).toEqual([...now].sort());
        const kept = shown.filter((s) => now.includes(s));
        expect(out.slice(0, kept.length)).toEqual(kept);
      }),
    );
  });
});
