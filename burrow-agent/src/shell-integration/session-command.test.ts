import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandWatchKey } from '../attention/watch-key.js';
import { unquoteShellWords } from '../terminal/shell-quoting.js';
import { MAX_SESSION_COMMAND_CHARS, quoteShellWord, sessionCommandLine } from './session-command.js';
import { isInteractiveShell } from './shell-kind.js';

describe('isInteractiveShell', () => {
  it('is a known shell given only options that are not a command string', () => {
    for (const argv of [['/bin/sh'], ['bash', '-l'], ['-zsh'], ['/usr/bin/fish', '--login'], ['dash', '-i']])
      expect(isInteractiveShell(argv), argv.join(' ')).toBe(true);
    for (const argv of [
      ['sh', '-c', 'make'],
      ['bash', '-lc', 'make'],
      ['fish', '--command=ls'],
      ['pwsh', '-Command', 'ls'],
      ['sh', 'script.sh'],
      ['bash', '-'],
      ['python3'],
      ['claude'],
      [],
    ])
      expect(isInteractiveShell(argv), argv.join(' ')).toBe(false);
  });
});

describe('sessionCommandLine', () => {
  it('is null for a shell, and the quoted argv for a command, keyed as if typed into a shell', () => {
    expect(sessionCommandLine(['/bin/bash'])).toBeNull();
    const cases: [string[], string, string][] = [
      [['claude'], 'claude', 'claude'],
      [['npx', 'claude', '--resume'], 'npx claude --resume', 'claude'],
      [['pnpm', 'run', 'dev'], 'pnpm run dev', 'pnpm dev'],
      [['/usr/local/bin/aider', '--model', 'x y'], "/usr/local/bin/aider --model 'x y'", 'aider'],
      [
        ['sh', '-c', 'for i in $(seq 25); do echo $i; done; exit 3'],
        "sh -c 'for i in $(seq 25); do echo $i; done; exit 3'",
        'exit', // the script's last command (issue 23: a -c script keys like the line it runs)
      ],
      [['sh', '-c', 'claude --resume'], "sh -c 'claude --resume'", 'claude'],
      [['bash', '-lc', 'FOO=1 codex'], "bash -lc 'FOO=1 codex'", 'codex'],
      [['env', 'GEMINI_API_KEY=x', 'gemini'], 'env GEMINI_API_KEY=x gemini', 'gemini'],
      [['printf', "it's\n"], "printf $'it\\'s\\n'", 'printf'],
      [['echo', ''], "echo ''", 'echo'],
    ];
    for (const [argv, line, key] of cases) {
      expect(sessionCommandLine(argv)).toBe(line);
      expect(commandWatchKey(line)).toBe(key);
    }
  });

  it('bounds the line and rejects what is not an argv', () => {
    const long = sessionCommandLine(['echo', ...Array.from({ length: 200 }, () => 'x'.repeat(100))]);
    expect(long?.length).toBe(MAX_SESSION_COMMAND_CHARS);
    expect(() => sessionCommandLine('ls' as unknown as string[])).toThrow(TypeError);
    expect(() => sessionCommandLine([1] as unknown as string[])).toThrow(TypeError);
  });

  it('quotes any word so the shell reads it back unchanged, on one printable line', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (word) => {
        const quoted = quoteShellWord(word);
        expect(quoted).not.toMatch(/[\u0000-\u001f\u007f]/);
        expect(unquoteShellWords(quoted)).toBe(word);
      }),
      { seed: 0x13, numRuns: 500 },
    );
  });
});
