/**
 * Target: Burrow's one sanitizer for text it did not write, in the CLI and the daemon log
 * (burrow-agent/src/text/printable.ts; issue 16 item 2, issue 24.4: a hostile relay or a session's output must
 * not drive the owner's terminal).
 *
 * Feeds random strings of any code points (lone surrogates included), dense runs of escape-sequence fragments
 * (the parser corpus's: OSC 52/9/99/633, CSI, DCS, C1 as UTF-8), and long strings around the bound, with a
 * random bound. Expected rejection: none (every string is printable). Findings: a control, C1, DEL, bidi or
 * invisible character, or a lone surrogate, left in the output; output longer than the bound plus its note;
 * text already safe and short enough changed; `printableLines` output with such a character on any line;
 * `printableJson` output that does not parse back to the input, or holds such a character; and any terminal
 * event other than plain output when the output is fed to Burrow's own terminal parser (no OSC, title,
 * bell, notification, prompt mark …).
 */
import fc from 'fast-check';
import { TerminalParser } from '../../../burrow-agent/src/terminal/parser.js';
import {
  MAX_PRINTABLE_CHARS_LIMIT,
  printable,
  printableJson,
  printableLines,
} from '../../../burrow-agent/src/text/printable.js';
import { escapeFragmentInput } from '../../../burrow-agent/test/corpus/escape-fragments.js';
import { type FuzzTarget, invariant } from '../fuzz-target.js';

interface Case {
  readonly text: string;
  readonly max: number;
}

/** The longest "… (N more characters)" note `printable` appends. */
const NOTE_MAX_CHARS = '… (9007199254740991 more characters)'.length;
/** Longest generated string (UTF-16 units): past MAX_PRINTABLE_CHARS, short of slowing the run. */
const MAX_INPUT_CHARS = 20_000;

const decoder = new TextDecoder('utf-8', { fatal: false });
const encoder = new TextEncoder();

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 2_000 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0x2070 }).map((n) => String.fromCharCode(n)), maxLength: 400 }),
  escapeFragmentInput('fuzz-nonce', 60).map((bytes) => decoder.decode(bytes)),
  fc
    .tuple(fc.string({ maxLength: 8 }), fc.integer({ min: 500, max: MAX_INPUT_CHARS }))
    .map(([unit, n]) => (unit === '' ? '\u001b' : unit).repeat(Math.ceil(n / Math.max(1, unit.length)))),
);
const input: fc.Arbitrary<Case> = fc.record({
  text,
  max: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: MAX_PRINTABLE_CHARS_LIMIT })),
});

/**
 * What must never reach the terminal, written out here independently of printable.ts (so a mistake there is
 * not repeated in the check): C0, DEL, C1, Arabic letter mark, zero-width and bidi controls, line/paragraph
 * separators, word joiner and isolates, BOM, and lone surrogates.
 */
const FORBIDDEN =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function firstUnsafe(s: string): number | null {
  const m = FORBIDDEN.exec(s);
  return m === null ? null : m[0].charCodeAt(0);
}

/** Events other than plain output that Burrow's terminal parser sees in `s`. */
function terminalEffects(s: string): string[] {
  const parser = new TerminalParser({ nonce: 'fuzz-nonce', now: () => 0 });
  return parser
    .feed(encoder.encode(s))
    .filter((e) => e.type !== 'output')
    .map((e) => e.type);
}

export const cliPrintableTarget: FuzzTarget<Case> = {
  name: 'cli-printable',
  about: 'printable / printableLines / printableJson: hostile strings of any code points, escape fragments',
  async: false,
  testRuns: 500,
  async start() {
    return {
      input,
      isExpected: () => false,
      run({ text: s, max }) {
        const out = printable(s, max);
        const bad = firstUnsafe(out);
        invariant(bad === null, `printable left U+${bad?.toString(16).padStart(4, '0')} in its output`);
        invariant(out.length <= max + NOTE_MAX_CHARS, `printable output of ${out.length} over ${max}`);
        if (firstUnsafe(s) === null && s.length <= max) invariant(out === s, 'printable changed safe text');
        invariant(
          terminalEffects(out).length === 0,
          `printable output drives the terminal: ${terminalEffects(out)}`,
        );

        const lines = printableLines(s, max);
        for (const line of lines.split('\n'))
          invariant(firstUnsafe(line) === null, 'printableLines left an unsafe character on a line');
        invariant(terminalEffects(lines).length === 0, 'printableLines output drives the terminal');

        const json = printableJson({ s, n: [s.slice(0, 16)] });
        invariant(firstUnsafe(json) === null, 'printableJson left an unsafe character');
        invariant(
          JSON.stringify(JSON.parse(json)) === JSON.stringify({ s, n: [s.slice(0, 16)] }),
          'printableJson does not parse back to its input',
        );
        return 'accepted';
      },
    };
  },
};
