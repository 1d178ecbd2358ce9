/**
 * Pocket's xterm.js counts columns with the session width table (protocol SCREEN_UNICODE_VERSION), the one the
 * Burrow's screen model uses (burrow-agent/src/screen/terminal-widths.ts, same addon at the same version): a
 * snapshot and the output after it put every character in the column the program meant.
 */
import { SCREEN_UNICODE_VERSION } from '@burrow/protocol';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import type { Terminal } from '@xterm/xterm';

/** `term` must be made with `allowProposedApi: true` (xterm guards `unicode` behind it). */
export function applySessionWidths(term: Terminal): void {
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = SCREEN_UNICODE_VERSION;
}
