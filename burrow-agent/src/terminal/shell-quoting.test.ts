import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unquoteShellWords } from './shell-quoting.js';

describe('unquoteShellWords', () => {
  it('undoes bash printf %q and zsh (q) quoting', () => {
    expect(unquoteShellWords('git\\ commit\\ -m\\ \\"a\\;b\\"')).toBe('git commit -m "a;b"');
    expect(unquoteShellWords("echo 'it''s' \"a \\$HOME b\"")).toBe('echo its a $HOME b');
    expect(unquoteShellWords("printf $'a\\nb\\tc\\x41\\101\\'\\q'")).toBe("printf a\nb\tcAA'\\q");
  });

  it('runs an unterminated quote to the end and drops a trailing backslash', () => {
    expect(unquoteShellWords("echo 'open")).toBe('echo open');
    expect(unquoteShellWords('echo "open')).toBe('echo open');
    expect(unquoteShellWords("echo $'open")).toBe('echo open');
    expect(unquoteShellWords('echo \\')).toBe('echo ');
  });

  it('property: never throws and never grows the input', () => {
    const shellish = fc
      .array(fc.constantFrom('\\', "'", '"', '$', 'x', '4', '1', '7', 'n', ' ', ';', 'é', '😀'), {
        maxLength: 60,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(shellish, fc.string({ maxLength: 60 })), (s) => {
        expect(unquoteShellWords(s).length).toBeLessThanOrEqual(s.length);
      }),
      { seed: 0x9e11, numRuns: 500 },
    );
  });
});
