import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyInput, MAX_CLASSIFIED_INPUT_BYTES } from './input-kind.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('classifyInput', () => {
  it.each([
    ['a', 'user'],
    ['ls\r', 'user'],
    ['\x1b', 'user'],
    ['\x1b[A', 'user'], // an arrow key
    ['\x1b[97u', 'user'], // a kitty-protocol key press
    ['\x1bOP', 'user'], // F1
    ['\x1b[I', 'terminal-reply'],
    ['\x1b[O\x1b[I', 'terminal-reply'],
    ['\x1b[12;40R', 'terminal-reply'],
    ['\x1b[?62;22c', 'terminal-reply'],
    ['\x1b[>0;276;0c', 'terminal-reply'],
    ['\x1b[0n', 'terminal-reply'],
    ['\x1b[?1004;1$y', 'terminal-reply'],
    ['\x1b[?1u', 'terminal-reply'],
    ['\x1b]11;rgb:0000/0000/0000\x07', 'terminal-reply'],
    ['\x1b]10;rgb:ffff/ffff/ffff\x1b\\', 'terminal-reply'],
    ['\x1bP1$r0m\x1b\\', 'terminal-reply'],
    ['\x1b[<0;10;5M\x1b[<0;10;5m', 'mouse'],
    ['\x1b[M !!', 'mouse'],
    ['\x1b[<0;10;5M\x1b[I', 'terminal-reply'],
    ['\x1b[Ix', 'user'], // a reply followed by a keystroke is the owner's
    ['\x1b]11;rgb:0000', 'user'], // unterminated
  ] as const)('%j is %s', (input, kind) => {
    expect(classifyInput(bytes(input))).toBe(kind);
  });

  it('treats an empty or oversized chunk as the owner’s', () => {
    expect(classifyInput(new Uint8Array(0))).toBe('user');
    expect(classifyInput(new Uint8Array(MAX_CLASSIFIED_INPUT_BYTES + 1).fill(0x1b))).toBe('user');
  });

  it('rejects a non-Uint8Array with TypeError', () => {
    expect(() => classifyInput('x' as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('never throws and always answers one of the three kinds on random and mutated input', () => {
    const seeds = ['\x1b[I', '\x1b[<0;1;1M', '\x1b]11;rgb:1/2/3\x07', '\x1bP$r\x1b\\', 'abc'].map(bytes);
    const mutated = fc
      .tuple(fc.constantFrom(...seeds), fc.nat(8), fc.integer({ min: 0, max: 255 }))
      .map(([seed, at, b]) => {
        const copy = Uint8Array.from(seed);
        copy[at % copy.length] = b;
        return copy.subarray(0, 1 + (at % copy.length));
      });
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), mutated), (data) => {
        expect(['user', 'terminal-reply', 'mouse']).toContain(classifyInput(data));
      }),
      { seed: 0x6b32, numRuns: 2000 },
    );
  });
});
