import { describe, expect, it } from 'vitest';
import { RANDOM_BYTES_MAX, randomBytes } from '../src/random.js';

describe('randomBytes', () => {
  it('fills requests larger than one getRandomValues call', () => {
    const bytes = randomBytes(65536 * 2 + 5);
    expect(bytes.length).toBe(131077);
    // Each 64 KiB chunk was filled: a zero tail would mean a chunk was skipped.
    expect(
      bytes.subarray(131072).some((b) => b !== 0) || bytes.subarray(65536, 65600).some((b) => b !== 0),
    ).toBe(true);
    expect(randomBytes(0).length).toBe(0);
  });

  it('refuses sizes out of bounds', () => {
    expect(() => randomBytes(-1)).toThrow(RangeError);
    expect(() => randomBytes(1.5)).toThrow(RangeError);
    expect(() => randomBytes(RANDOM_BYTES_MAX + 1)).toThrow(RangeError);
  });
});
