/**
 * The screen-conformance cases (issue 22): real programs and synthetic streams, each run as a Burrow session at
 * 80×24. `keys` make the program draw more after a viewer attached (live output over a restored screen);
 * `freeze` stops a program that redraws on its own (a clock) once it has drawn.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const APPS = fileURLToPath(new URL('./screen-apps/', import.meta.url));

export interface ScreenCase {
  readonly name: string;
  readonly about: string;
  /** argv of the session's program; `work` is a scratch directory with a README to page through. */
  command(work: string): string[];
  readonly keys?: string;
  readonly freeze?: boolean;
}

/** A program that writes `phases[0]`, then the next phase for each key (the last one repeats). */
function phases(...p: string[]): (work: string) => string[] {
  return () => ['python3', join(APPS, 'phases.py'), JSON.stringify(p)];
}

const E = '\x1b';
const seq = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\r\n`).join('');

export const SCREEN_CASES: readonly ScreenCase[] = [
  {
    name: 'scroll-region',
    about: 'item 1: output after the snapshot scrolls inside the region, HEADER stays',
    command: phases(`${E}[H${E}[2JHEADER${E}[3;20r${E}[20;1H`, seq(1, 30)),
    keys: 'x',
  },
  {
    name: 'tab-stops',
    about: 'item 2: a tab after the snapshot goes to the program’s stops',
    command: phases(`${E}[3g${E}[1;5H${E}H${E}[1;12H${E}H${E}[H${E}[2J`, 'a\tb\tc\r\n'),
    keys: 'x',
  },
  {
    name: 'widths',
    // ZWJ sequences are left to terminal-widths.test.ts (against glibc): tmux 3.3a, the reference here, joins
    // one into a single two-column glyph where glibc, programs and the session table give each emoji two.
    about: 'item 4: emoji, CJK, combining marks and VS16 at the widths programs use',
    command: phases(
      `│ ✅ ok${E}[20G│\r\n中文字 ｱｲｳ 한국어 e\u0301 a\u0308\u0323${E}[40G│\r\n❤️ ☀️ ⚡ 👍 🚀${E}[40G│\r\n`,
      `✅✅✅ done${E}[20G│\r\n`,
    ),
    keys: 'x',
  },
  {
    name: 'hidden-cursor',
    about: 'item 5: a hidden cursor stays hidden',
    command: phases(`${E}[?25lhidden`, ' still'),
    keys: 'x',
  },
  {
    name: 'underline',
    about: 'item 6: underline styles and underline colour',
    command: phases(
      `${E}[4:3;58:2::255:0:0mcurly red${E}[0m ${E}[4:2mdouble${E}[0m ${E}[4:4mdotted${E}[0m ${E}[4:5mdashed${E}[0m ${E}[58;5;196;4mred256${E}[0m\r\n`,
      `${E}[4:3mmore curly${E}[0m\r\n`,
    ),
    keys: 'x',
  },
  {
    name: 'modes',
    about: 'item 7: mouse tracking and SGR encoding, DECKPAM, DECCKM, insert mode',
    command: phases(`${E}[?1002h${E}[?1006h${E}=${E}[?1h${E}[4hmodes on`, `${E}[1G+`),
    keys: 'x',
  },
  {
    name: 'wrap-at-region-top',
    about: 'item 8: a wrapped line at the top of a scroll region, no stray character',
    command: phases(`${E}[H${E}[2JHEADER${E}[3;20r${E}[20;1H${`${'w'.repeat(100)}\r\n`.repeat(12)}`, 'y\r\n'),
    keys: 'x',
  },
  {
    name: 'sgr',
    // Blanks coloured by an erase (BCE) mid-line: tmux's capture-pane leaves out the colour of blanks erased to
    // the end of a line, so that case is left to restore-string.test.ts (xterm.js against itself).
    about: 'every SGR attribute and colour form',
    command: phases(
      `${E}[1mbold${E}[0m ${E}[2mdim${E}[0m ${E}[3mitalic${E}[0m ${E}[4munder${E}[0m ${E}[5mblink${E}[0m ${E}[7minverse${E}[0m ${E}[8mhidden${E}[0m ${E}[9mstrike${E}[0m ${E}[53mover${E}[0m\r\n` +
        `${E}[31mred${E}[91mbright${E}[38;5;208morange${E}[38;2;10;200;30mrgb${E}[44mbg${E}[104mbbg${E}[48;5;17mbg256${E}[48;2;50;0;50mbgrgb${E}[0m\r\n` +
        `ab${E}[44m${E}[5X${E}[0m${E}[10GBCE\r\n`,
      `${E}[1;4;31mlive${E}[0m\r\n`,
    ),
    keys: 'x',
  },
  {
    name: 'alt-screen',
    about: 'the alternate screen over a normal one; leaving it restores the saved cursor',
    command: phases(
      `shell line 1\r\nshell line 2\r\n$ ${E}[?1049h${E}[H${E}[2J${E}[7m full screen ${E}[0m${E}[5;5Hbody`,
      `${E}[?1049lback`,
    ),
    keys: 'x',
  },
  {
    name: 'charset',
    about: 'DEC line drawing left designated across the snapshot',
    command: phases(`${E}(0lqqqk\r\nx   x\r\n`, 'mqqqj\r\n'),
    keys: 'x',
  },
  {
    name: 'vim',
    about: 'vim on a file with tabs and wide characters; keys move and insert',
    command: (work) => [
      'vim',
      '-u',
      'NONE',
      '-i',
      'NONE',
      '-N',
      '-c',
      'set mouse=a ttimeoutlen=10',
      join(work, 'README'),
    ],
    keys: '5jihello✅\x1b',
  },
  {
    name: 'less',
    about: 'less paging a file',
    command: (work) => ['less', join(work, 'README')],
    keys: ' ',
  },
  {
    name: 'man',
    about: 'man (through its pager)',
    command: () => ['man', 'ls'],
    keys: 'j',
  },
  {
    name: 'htop',
    about: 'htop, stopped once drawn (its clock and meters)',
    command: () => ['htop'],
    freeze: true,
  },
  {
    name: 'top',
    about: 'top, stopped once drawn (its clock and uptime)',
    command: () => ['top'],
    freeze: true,
  },
  {
    name: 'curses',
    about: 'a curses app (colour pairs, reverse, underline, box lines, hidden cursor)',
    command: () => ['python3', join(APPS, 'curses_app.py')],
    keys: 'j',
  },
  {
    name: 'inline-redraw',
    about: 'an Ink-style inline redraw under a prompt',
    command: () => ['python3', join(APPS, 'inline_app.py')],
    keys: 'x',
  },
];
