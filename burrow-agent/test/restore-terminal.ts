/** Test terminals set up like the screen model's, and the round trip through a restore string. */
import type { Terminal as XTerminal } from '@xterm/headless';
import xtermHeadless from '@xterm/headless';
import {
  emptyKittyState,
  type KittyKeyboardState,
  trackKittyKeyboard,
} from '../src/screen/kitty-keyboard.js';
import { restoreString } from '../src/screen/restore-string.js';
import { applySessionWidths } from '../src/screen/terminal-widths.js';
import { dumpTerminal, type TerminalDump } from './terminal-dump.js';

const { Terminal } = xtermHeadless;

export interface TestTerminal {
  readonly term: XTerminal;
  readonly kitty: KittyKeyboardState;
  write(data: string | Uint8Array): Promise<void>;
  dispose(): void;
}

export function testTerminal(cols = 80, rows = 24, scrollback = 1000): TestTerminal {
  const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
  applySessionWidths(term);
  const kitty = emptyKittyState();
  const hooks = trackKittyKeyboard(term, kitty);
  return {
    term,
    kitty,
    write: (data) => new Promise((resolve) => term.write(data, resolve)),
    dispose: () => {
      hooks.dispose();
      term.dispose();
    },
  };
}

/** Writes `stream` into a terminal, restores its restore string into a fresh one, dumps both. */
export async function roundTrip(
  stream: string | Uint8Array | readonly (string | Uint8Array)[],
  opts: { cols?: number; rows?: number; scrollback?: number } = {},
): Promise<{ original: TerminalDump; restored: TerminalDump; data: string }> {
  const cols = opts.cols ?? 80;
  const rows = opts.rows ?? 24;
  const scrollback = opts.scrollback ?? 300;
  const a = testTerminal(cols, rows);
  const b = testTerminal(cols, rows);
  try {
    for (const part of Array.isArray(stream) ? stream : [stream]) await a.write(part as string | Uint8Array);
    const data = restoreString(a.term, { scrollback, kitty: a.kitty });
    await b.write(data);
    return {
      original: dumpTerminal(a.term, scrollback, a.kitty),
      restored: dumpTerminal(b.term, scrollback, b.kitty),
      data,
    };
  } finally {
    a.dispose();
    b.dispose();
  }
}
