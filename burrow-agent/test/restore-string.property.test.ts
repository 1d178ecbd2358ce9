/**
 * Property: for any stream of output, a fresh terminal fed the restore string equals the original, cell for
 * cell and mode for mode (terminal-dump.ts), and stays equal after the same further output.
 */
import type { Terminal } from '@xterm/headless';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { restoreString } from '../src/screen/restore-string.js';
import { testTerminal } from './restore-terminal.js';
import { dumpTerminal } from './terminal-dump.js';
import { smallSize, terminalStream } from './terminal-streams.js';

const SCROLLBACK = 20;

/** A wide character's right half without its left (ICH / DCH inside it): xterm.js-only, written as a blank. */
function hasOrphanHalf(term: Terminal): boolean {
  for (const buffer of [term.buffer.normal, term.buffer.active]) {
    for (let y = 0; y < buffer.length; y++) {
      const line = buffer.getLine(y)!;
      for (let x = 0; x < term.cols; x++) {
        if (line.getCell(x)?.getWidth() === 0 && (x === 0 || line.getCell(x - 1)?.getWidth() !== 2))
          return true;
      }
    }
  }
  return false;
}

/** DECRC put a charset into GL that is not the designated one (restore-string.ts cannot rebuild that). */
function glOutOfStep(term: Terminal): boolean {
  const cs = (
    term as unknown as {
      _core: { _charsetService: { charset: unknown; glevel: number; _charsets: unknown[] } };
    }
  )._core._charsetService;
  return cs.charset !== cs._charsets[cs.glevel];
}

function altPendingWrapOverBlank(term: Terminal): boolean {
  const buf = term.buffer.active;
  if (buf.type !== 'alternate' || buf.cursorX < term.cols) return false;
  return (
    buf
      .getLine(buf.baseY + buf.cursorY)
      ?.getCell(term.cols - 1)
      ?.getChars() === ''
  );
}

describe('restore string (property)', () => {
  it('restores every state a random stream leaves, and later output lands the same', async () => {
    await fc.assert(
      fc.asyncProperty(smallSize, terminalStream, terminalStream, async ({ cols, rows }, before, after) => {
        const a = testTerminal(cols, rows, 100);
        const b = testTerminal(cols, rows, 100);
        try {
          for (const p of before) await a.write(p);
          await b.write(restoreString(a.term, { scrollback: SCROLLBACK, kitty: a.kitty }));
          expect(dumpTerminal(b.term, SCROLLBACK, b.kitty)).toEqual(
            dumpTerminal(a.term, SCROLLBACK, a.kitty),
          );
          // The one state a restore cannot rebuild (restore-string.ts): later output would differ.
          if (altPendingWrapOverBlank(a.term) || glOutOfStep(a.term) || hasOrphanHalf(a.term)) return;
          // An open OSC 8 link lives in xterm.js as long as the line it was opened on (restore-string.ts):
          // it is closed before further output, and links are not compared after it.
          for (const p of ['\x1b]8;;\x1b\\', ...after.filter((q) => !q.startsWith('\x1b]8;'))]) {
            await a.write(p);
            await b.write(p);
          }
          // Only the lines both hold: `b` started with SCROLLBACK lines above its screen.
          const noLinks = { links: false };
          expect(dumpTerminal(b.term, 0, b.kitty, noLinks)).toEqual(
            dumpTerminal(a.term, 0, a.kitty, noLinks),
          );
        } finally {
          a.dispose();
          b.dispose();
        }
      }),
      // A fixed seed, like the other property tests here, so `npm test` is the same run each time; other seeds
      // have found the differences restore-string.ts lists as known (its file comment): look for more by
      // running with another seed by hand.
      { seed: 22, numRuns: 200 },
    );
  }, 300_000);
});
