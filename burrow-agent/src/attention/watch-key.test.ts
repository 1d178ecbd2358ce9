import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandWatchKey, MAX_COMMAND_LINE_CHARS, MAX_WATCH_KEY_CHARS } from './watch-key.js';

describe('WATCHING key', () => {
  it.each([
    // plain programs, paths stripped to basenames, launcher suffixes dropped
    ['claude', 'claude'],
    ['claude --resume', 'claude'],
    ['/usr/local/bin/gemini -p hi', 'gemini'],
    ['./node_modules/.bin/codex', 'codex'],
    ['aider.exe --model x', 'aider'],
    // the last command of a list, the first stage of its pipeline
    ['cd web && pnpm run dev', 'pnpm dev'],
    ['make clean; make', 'make'],
    ['false || codex', 'codex'],
    ['sleep 1 & aider', 'aider'],
    ['nohup aider > log 2>&1 &', 'aider'],
    ['git log | less', 'git'],
    ['make 2>&1 | tee build.log', 'make'],
    ['echo one\nclaude', 'claude'],
    // grouping dropped
    ['(cd web && make)', 'make'],
    ['{ make; }', 'make'],
    // VAR=value prefixes and transparent wrappers
    ['FOO=1 BAR="a b" npm test', 'npm test'],
    ['sudo -u root make install', 'make'],
    ['sudo -uroot --user=me make', 'make'],
    ['sudo -E env PATH=/x claude', 'claude'],
    ['npx claude --resume', 'claude'],
    ['npx -y @google/gemini-cli', 'gemini-cli'],
    ['env -i X=1 codex', 'codex'],
    ['time cargo build', 'cargo'],
    ['time -p make', 'make'],
    ['nice -n 5 make', 'make'],
    ['timeout 10 make', 'make'],
    ['exec -a name make', 'make'],
    ['command make', 'make'],
    ['caffeinate -i claude', 'claude'],
    // an unknown wrapper flag stops the skip, keying the wrapper itself
    ['sudo -Z make', 'sudo'],
    ['env --frobnicate make', 'env'],
    // reserved words, fish's included
    ['for f in *; do make; done', 'make'],
    ['if true; then make; fi', 'make'],
    ['while :; do sleep 1; done | tee log', 'sleep'],
    ['until false; do claude; done > out', 'claude'],
    ['! make', 'make'],
    ['not make', 'make'],
    ['begin; make; end', 'make'],
    ['true; and codex', 'codex'],
    ['case $x in a) foo;; b) make;; esac', 'make'],
    ['switch $x; case foo; make; end', 'make'],
    // a shell's -c script keys like the script (issue 23)
    ["sh -c 'claude --resume'", 'claude'],
    ["bash -lc 'cd ~/src && FOO=1 codex'", 'codex'],
    ["bash -l -c 'gemini -y'", 'gemini'],
    ["bash -o pipefail -c 'make | tee log'", 'make'],
    ["/bin/zsh -ic 'opencode'", 'opencode'],
    ["fish -c 'claude'", 'claude'],
    ["fish --command='codex exec x'", 'codex'],
    ['sh -c "bash -c \'exec claude\'"', 'claude'],
    ["env ANTHROPIC_BASE_URL=http://x sh -c 'claude'", 'claude'],
    ["sh -ec 'npm run dev'", 'npm dev'],
    ['bash script.sh', 'bash'],
    ['sh', 'sh'],
    ["sh -c ''", 'sh'],
    ["bash -c 'cd /tmp'; make", 'make'],
    // runners key as <runner> <script>, a leading run dropped
    ['npm run dev', 'npm dev'],
    ['npm --silent run build', 'npm build'],
    ['yarn dev', 'yarn dev'],
    ['bun run test', 'bun test'],
    ['deno task start', 'deno start'],
    ['npm run', 'npm'],
    ['bun ./index.ts', 'bun'],
    ['pnpm run ../x', 'pnpm'],
    // redirections are never the program or a runner's script
    ['> out make', 'make'],
    ['2>/dev/null make', 'make'],
    ['npm run > log dev', 'npm dev'],
    // quotes
    ['\'claude\' "--foo"', 'claude'],
    ['"npm" run "dev"', 'npm dev'],
    ['cl\\aude', 'claude'],
  ])('%j keys as %j', (line, key) => {
    expect(commandWatchKey(line)).toBe(key);
  });

  it.each([
    [''],
    ['   '],
    ['$EDITOR file'],
    ['`which make`'],
    ['for f in *'],
    ['done'],
    ['FOO=1'],
    ['# just a comment'],
    [';;'],
  ])('%j has no key', (line) => {
    expect(commandWatchKey(line)).toBeNull();
  });

  it('throws a TypeError on a non-string', () => {
    expect(() => commandWatchKey(42 as unknown as string)).toThrow(TypeError);
  });

  it('never throws and keys within bounds on random strings', () => {
    const shellish = fc.stringMatching(/^[a-z =;&|()<>'"\\$`{}!#\n0-9./-]*$/);
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), shellish), (line) => {
        const key = commandWatchKey(line);
        if (key !== null) {
          expect(key.length).toBeLessThanOrEqual(MAX_WATCH_KEY_CHARS);
          expect(key).not.toMatch(/[\u0000-\u001f]/);
        }
      }),
      { seed: 0x5eed, numRuns: 2000 },
    );
  });

  it('handles a line far beyond the bound without throwing', () => {
    const long = `${'a && '.repeat(MAX_COMMAND_LINE_CHARS)}claude`;
    expect(() => commandWatchKey(long)).not.toThrow();
    expect(commandWatchKey(`${'x'.repeat(MAX_COMMAND_LINE_CHARS + 10)}`)).toBeNull();
  });

  it('mutations of real command lines never throw', () => {
    const base = ['cd web && pnpm run dev', 'for f in *; do make; done', "sudo -u me env A='1 2' claude"];
    fc.assert(
      fc.property(fc.constantFrom(...base), fc.nat(60), fc.string({ maxLength: 4 }), (line, at, ins) => {
        commandWatchKey(line.slice(0, at) + ins + line.slice(at));
      }),
      { seed: 42, numRuns: 2000 },
    );
  });
});
