/**
 * The column width table every terminal of a session uses: the daemon's screen model, Pocket's xterm.js and
 * whatever `burrow attach` draws. Part of the protocol because a snapshot and the output after it only mean the
 * same screen to a viewer that gives every character the width the daemon's model gave it (a one-cell emoji in
 * one and a two-cell one in the other shifts every column after it).
 *
 * Unicode 11 widths (xterm.js's `@xterm/addon-unicode11`, version `'11'`): they match what programs compute
 * with glibc `wcwidth` (and tmux, which uses it) for emoji with Emoji_Presentation, CJK, combining marks, ZWJ
 * sequences (each emoji of the sequence is its own two cells) and VS16 (adds no width). Measured against glibc
 * 2.36 over every assigned printable code point (docs/DESIGN.md §6 "Character widths"): 892 of ~290,000
 * disagree, all characters added in Unicode 12–14 (e.g. 🥲 U+1F972), which glibc knows and the table does not.
 * xterm's `@xterm/addon-unicode-graphemes` (0.4.0) disagreed on ~76,000, all astral emoji among them.
 */
export const SCREEN_UNICODE_VERSION = '11';
