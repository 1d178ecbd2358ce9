/**
 * The shipped escape functions, run by the real shells, against the parser's own decoder: for random text
 * (any Unicode, control characters, `;` and `\` favoured), decoding what the shell printed gives the text
 * back exactly. The function is taken from the script as shipped and run in a plain non-interactive shell.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeUtf8, unescapeVscodeValue } from '../terminal/text-decoding.js';
import { defaultIntegrationDir } from './integration-dir.js';

/** Samples per shell: one shell process escapes them all. */
const SAMPLES = 300;
/** Longest sample, in code points (below every script's own cut). */
const SAMPLE_MAX_CHARS = 80;

const work = mkdtempSync(join(tmpdir(), 'burrow-si-escape-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The text of one function definition in a shipped script, from its first line to its closing line. */
function shippedFunction(file: string, first: string, last: string): string {
  const text = readFileSync(join(defaultIntegrationDir(), file), 'utf8');
  const start = text.indexOf(first);
  const end = text.indexOf(last, start);
  if (start < 0 || end < 0) throw new Error(`${first} not found in ${file}`);
  return text.slice(start, end + last.length);
}

const piece = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom(
    ';',
    '\\',
    '\\x3b',
    '\n',
    '\t',
    '\x1b',
    '\x07',
    '\x7f',
    '\u0085',
    '\u009c',
    'é',
    '✓',
    '😀',
    ' ',
  ),
);
const sample = fc
  .array(piece, { maxLength: 12 })
  .map((parts) => [...parts.join('').replaceAll('\0', '')].slice(0, SAMPLE_MAX_CHARS).join(''))
  // Shells hold bytes: a lone surrogate has no UTF-8 form, so it cannot be typed at a prompt.
  .filter((s) => Buffer.from(s, 'utf8').toString('utf8') === s);

const samples = fc.sample(sample, { seed: 0x633e, numRuns: SAMPLES });
const input = join(work, 'samples');
writeFileSync(input, samples.map((s) => `${s}\0`).join(''));

const SCRIPTS = {
  bash: () =>
    `${shippedFunction('bash/burrow.bash', '__burrow_escape() {', '\n}')}
while IFS= read -r -d '' s; do __burrow_escape "$s"; printf '%s\\n' "$__burrow_escaped"; done < "$1"`,
  zsh: () =>
    `${shippedFunction('zsh/burrow-hooks.zsh', '__burrow_escape() {', '\n}')}
while IFS= read -r -d '' s; do __burrow_escape "$s"; printf '%s\\n' "$REPLY"; done < "$1"`,
  fish: () =>
    `set -g __burrow_escaped_max_chars 7600
${shippedFunction('fish-data/fish/vendor_conf.d/burrow.fish', 'function __burrow_escape', '\nend')}
for s in (string split0 < $argv[1]); printf '%s\\n' (__burrow_escape $s); end`,
} as const;

describe.each(Object.keys(SCRIPTS) as (keyof typeof SCRIPTS)[])('%s 633 escaping', (shell) => {
  it('round-trips through the parser’s decoder, printing one line of ASCII each', () => {
    const script = join(work, `escape.${shell}`);
    writeFileSync(script, SCRIPTS[shell]());
    const out = execFileSync(`/usr/bin/${shell}`, [script, input], {
      env: { PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: work },
      timeout: 20_000,
    });
    const lines = out.toString('latin1').split('\n').slice(0, -1);
    expect(lines).toHaveLength(samples.length);
    for (let i = 0; i < samples.length; i++) {
      const line = lines[i]!;
      expect(line).not.toMatch(/[\0-\x1f\x7f;]/);
      const decoded = decodeUtf8(unescapeVscodeValue(Buffer.from(line, 'latin1')));
      expect(decoded, `sample ${JSON.stringify(samples[i])}`).toBe(samples[i]);
    }
  }, 30_000);
});
