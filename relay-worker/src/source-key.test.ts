import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sourceKey } from './source-key.js';

describe('sourceKey [RL-LIM-4]', () => {
  it('keys IPv4 by address and IPv6 by its /64, however it is written', () => {
    expect(sourceKey('203.0.113.7')).toBe('src4:203.0.113.7');
    const a = sourceKey('2001:db8:0:1::5');
    expect(a).toBe('src6:2001:db8:0:1');
    expect(sourceKey('2001:0db8:0000:0001:ffff:0:0:1')).toBe(a);
    expect(sourceKey('2001:DB8:0:1:1:2:3:4')).toBe(a);
    expect(sourceKey('2001:db8::')).toBe('src6:2001:db8:0:0');
    expect(sourceKey('::ffff:192.0.2.1')).toBe('src6:0:0:0:0');
  });

  it('puts missing, oversize and unparsable addresses in one bucket', () => {
    for (const bad of [null, '', 'x'.repeat(46), '1::2::3', 'zz::1', '1:2:3:4:5:6:7:8:9']) {
      expect(sourceKey(bad)).toBe('src:unknown');
    }
  });

  it('never throws and stays short (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.ipV4(), fc.ipV6()), (s) => {
        expect(sourceKey(s).length).toBeLessThanOrEqual(64);
      }),
      { seed: 7, numRuns: 500 },
    );
  });
});
