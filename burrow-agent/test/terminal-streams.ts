/**
 * Random terminal output for property tests: text of every width, SGR of every kind, cursor movement, erases,
 * scroll regions, tab stops, modes, the alternate screen, saved cursors, charsets, links, titles and kitty
 * keyboard flags — the state restore-string.ts must carry — mixed so that wrapping and scrolling happen often.
 */
import fc from 'fast-check';

const text = fc.oneof(
  fc.stringMatching(/^[a-z0-9 .,:;!?-]{1,30}$/),
  fc.constantFrom('中文', '✅', '👨‍👩‍👧', '❤️', 'e\u0301', 'ｱｲｳ', '│─┼', '\u4e00'.repeat(7), '🥲', 'x\u200by'),
);
const n = (max: number) => fc.integer({ min: 0, max });
const colour = fc.oneof(
  fc.integer({ min: 30, max: 37 }).map(String),
  fc.integer({ min: 90, max: 97 }).map(String),
  n(255).map((c) => `38;5;${c}`),
  fc.tuple(n(255), n(255), n(255)).map(([r, g, b]) => `38;2;${r};${g};${b}`),
  fc.integer({ min: 40, max: 47 }).map(String),
  n(255).map((c) => `48;5;${c}`),
  fc.tuple(n(255), n(255), n(255)).map(([r, g, b]) => `48;2;${r};${g};${b}`),
  fc.constantFrom('39', '49', '59'),
  n(255).map((c) => `58:5:${c}`),
  fc.tuple(n(255), n(255), n(255)).map(([r, g, b]) => `58:2::${r}:${g}:${b}`),
);
const sgr = fc
  .array(
    fc.oneof(
      colour,
      fc.constantFrom(
        '0',
        '1',
        '2',
        '3',
        '4',
        '4:2',
        '4:3',
        '4:0',
        '5',
        '7',
        '8',
        '9',
        '53',
        '22',
        '24',
        '27',
      ),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((ps) => `\x1b[${ps.join(';')}m`);
const privateModes = [1, 6, 7, 9, 12, 25, 45, 1000, 1002, 1003, 1004, 1006, 1016, 2004];
const control = fc.oneof(
  fc.constantFrom(
    '\r',
    '\n',
    '\r\n',
    '\t',
    '\b',
    '\x1bD',
    '\x1bM',
    '\x1bE',
    '\x1b7',
    '\x1b8',
    '\x1b=',
    '\x1b>',
  ),
  fc.tuple(n(30), n(30)).map(([r, c]) => `\x1b[${r};${c}H`),
  fc
    .tuple(fc.constantFrom('A', 'B', 'C', 'D', 'G', 'X', '@', 'P', 'L', 'M', 'S', 'T', 'J', 'K'), n(12))
    .map(([f, k]) => `\x1b[${k}${f}`),
  fc.constantFrom(
    '\x1b[1J',
    '\x1b[2J',
    '\x1b[1K',
    '\x1b[2K',
    '\x1b[3g',
    '\x1b[g',
    '\x1bH',
    '\x1b[4h',
    '\x1b[4l',
  ),
  fc.tuple(n(12), n(12)).map(([t, b]) => `\x1b[${t};${b}r`),
  fc.tuple(fc.constantFrom(...privateModes), fc.boolean()).map(([m, on]) => `\x1b[?${m}${on ? 'h' : 'l'}`),
  fc.constantFrom('\x1b[?1049h', '\x1b[?1049l', '\x1b[?1047h', '\x1b[?1047l', '\x1b[?47h', '\x1b[?47l'),
  fc.constantFrom('\x1b(0', '\x1b(B', '\x1b)0', '\x0e', '\x0f', '\x1b[20h', '\x1b[20l'),
  n(6).map((s) => `\x1b[${s} q`),
  fc.constantFrom('\x1b[1"q', '\x1b[0"q'),
  fc.constantFrom('\x1b[>1u', '\x1b[>5u', '\x1b[<u', '\x1b[=3;2u', '\x1b[=1;3u'),
  fc.stringMatching(/^[a-z ]{0,8}$/).map((t) => `\x1b]2;${t}\x07`),
  fc.constantFrom('\x1b]8;;https://a.example/\x1b\\', '\x1b]8;id=1;file:///b\x1b\\', '\x1b]8;;\x1b\\'),
);

/** One piece of terminal output. */
export const terminalPiece = fc.oneof(
  { weight: 4, arbitrary: text },
  { weight: 2, arbitrary: sgr },
  { weight: 4, arbitrary: control },
);

/** A stream of pieces, as separate writes. */
export const terminalStream = fc.array(terminalPiece, { minLength: 1, maxLength: 60 });

/** Small sizes, so wrapping and scrolling happen within a short stream. */
export const smallSize = fc.record({
  cols: fc.integer({ min: 8, max: 30 }),
  rows: fc.integer({ min: 3, max: 10 }),
});
