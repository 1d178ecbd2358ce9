import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyTerminalData } from './reply-classifier.js';

describe('classifyTerminalData', () => {
  it('recognises query answers', () => {
    for (const r of [
      '\x1b[?1;2c',
      '\x1b[>0;276;0c',
      '\x1b[12;40R',
      '\x1b[0n',
      '\x1b[?2004;1$y',
      '\x1bP1$r0m\x1b\\',
      '\x1b]11;rgb:0000/0000/0000\x1b\\',
    ]) {
      expect(classifyTerminalData(r)).toBe('reply');
    }
  });
  it('treats keys and text as user input, and drops focus reports', () => {
    for (const u of [
      'a',
      'echo hi\r',
      '\x1b[A',
      '\x1bOA',
      '\x1b[1;5D',
      '\x03',
      '\x1b',
      '\x1b[200~paste\x1b[201~',
    ]) {
      expect(classifyTerminalData(u)).toBe('user');
    }
    expect(classifyTerminalData('\x1b[I')).toBe('drop');
    expect(classifyTerminalData('\x1b[O')).toBe('drop');
  });
  it('never throws', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        expect(['user', 'reply', 'drop']).toContain(classifyTerminalData(s));
      }),
      { seed: 4, numRuns: 300 },
    );
  });
});
