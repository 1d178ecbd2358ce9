/**
 * The one place a Burrow terminal gets its character widths (protocol SCREEN_UNICODE_VERSION: Unicode 11, the
 * table that agrees with glibc `wcwidth`, tmux and so with what programs compute). Used by the daemon's screen
 * model and by anything in burrow-agent that renders a session (a viewer that clips or pans must count columns
 * exactly as the model does). Pocket does the same with the same addon version (pocket-pwa/src/terminal/).
 */
import { SCREEN_UNICODE_VERSION } from '@burrow/protocol';
import unicode11 from '@xterm/addon-unicode11';

const { Unicode11Addon } = unicode11;

/**
 * What this needs of a Terminal, headless (`@xterm/headless`) or browser (`@xterm/xterm`): their addon types
 * differ only in the Terminal they name, so both fit this shape. The terminal must be made with
 * `allowProposedApi: true` (xterm guards `unicode` behind it).
 */
export interface WidthConfigurableTerminal {
  loadAddon(addon: { activate(terminal: never): void; dispose(): void }): void;
  readonly unicode: { activeVersion: string; readonly versions: readonly string[] };
}

/** Gives `term` the session width table; throws if the table did not take (an addon version mismatch). */
export function applySessionWidths(term: WidthConfigurableTerminal): void {
  term.loadAddon(new Unicode11Addon() as unknown as { activate(terminal: never): void; dispose(): void });
  term.unicode.activeVersion = SCREEN_UNICODE_VERSION;
  if (term.unicode.activeVersion !== SCREEN_UNICODE_VERSION) {
    throw new Error(`terminal widths: Unicode ${SCREEN_UNICODE_VERSION} is not available`);
  }
}
