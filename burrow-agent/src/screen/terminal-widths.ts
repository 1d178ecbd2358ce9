/**
 * The character-width table every xterm in Burrow uses, so one cell count holds from the program to each
 * viewer (issue 22 "one width table everywhere"): Unicode 11 widths (xterm's unicode11 addon), which is what
 * glibc `wcwidth`, tmux and the programs themselves compute for emoji — xterm's default, Unicode 6, makes them
 * one cell wide and shifts every border after them.
 *
 * Minimal version written for `burrow attach`'s clipped view (cli/attach-view.ts); the fuller one from the
 * widths work (issue 22 items 1–8) replaces it.
 */
import xtermUnicode11 from '@xterm/addon-unicode11';
import type { Terminal } from '@xterm/headless';

const { Unicode11Addon } = xtermUnicode11;

/** Makes `term` measure characters with Unicode 11 widths (needs `allowProposedApi`). */
export function configureWidths(term: Pick<Terminal, 'loadAddon' | 'unicode'>): void {
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
}
