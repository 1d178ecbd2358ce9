/**
 * The restore string carries the whole terminal state (issue 22 items 1, 2, 5, 6, 7, 8 and the rest of what
 * xterm tracks): each case writes a stream into a terminal, replays the restore string into a fresh one and
 * compares the two cell by cell and mode by mode (terminal-dump.ts). The same reproductions against tmux, an
 * independent terminal, are in tests/integration/screen-conformance.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { restoreString } from '../src/screen/restore-string.js';
import { roundTrip, testTerminal } from './restore-terminal.js';

async function expectExact(stream: string | string[], opts?: { cols?: number; rows?: number }) {
  const r = await roundTrip(stream, opts);
  expect(r.restored).toEqual(r.original);
  return r;
}

describe('restore string', () => {
  it('item 1: keeps the scroll region, so later output scrolls only inside it', async () => {
    const r = await expectExact('\x1b[H\x1b[2JHEADER\x1b[3;20r\x1b[20;1H');
    expect(r.original.normal.region).toEqual([2, 19]);
    // And what follows lands the same: HEADER stays.
    const a = testTerminal();
    const b = testTerminal();
    await a.write('\x1b[H\x1b[2JHEADER\x1b[3;20r\x1b[20;1H');
    await b.write(restoreString(a.term, { scrollback: 300 }));
    const seq = Array.from({ length: 30 }, (_, i) => `${i + 1}\r\n`).join('');
    await a.write(seq);
    await b.write(seq);
    expect(b.term.buffer.active.getLine(0)!.translateToString(true)).toBe('HEADER');
    expect(a.term.buffer.active.getLine(0)!.translateToString(true)).toBe('HEADER');
    a.dispose();
    b.dispose();
  });

  it('item 2: keeps tab stops', async () => {
    const r = await expectExact('\x1b[3g\x1b[1;5H\x1bH\x1b[1;12H\x1bH\x1b[H\x1b[2J');
    expect(r.original.normal.tabs).toEqual([4, 11]);
    expect(r.data).toContain('\x1b[3g');
  });

  it('item 5: keeps a hidden cursor hidden', async () => {
    const r = await expectExact('\x1b[?25lhidden');
    expect(r.restored.cursor).toContain('hidden=true');
  });

  it('item 6: keeps underline styles and underline colour', async () => {
    const r = await expectExact(
      '\x1b[4:3;58:2::255:0:0mcurly\x1b[0m \x1b[4:2mdouble\x1b[0m \x1b[4:4mdot\x1b[4:5mdash\x1b[0m \x1b[58;5;196;4mred\x1b[0m',
    );
    expect(r.data).toContain('4:3');
    expect(r.data).toContain('58:2::255:0:0');
    expect(r.data).toContain('58:5:196');
  });

  it('item 7: keeps mouse modes and encodings, and re-sends keypad mode as DECKPAM', async () => {
    for (const [set, mode] of [
      ['\x1b[?1000h\x1b[?1006h', 'vt200'],
      ['\x1b[?1002h\x1b[?1006h', 'drag'],
      ['\x1b[?1003h\x1b[?1016h', 'any'],
      ['\x1b[?9h', 'x10'],
    ] as const) {
      const r = await expectExact(`${set}text`);
      expect(r.restored.modes.mouseTracking).toBe(mode);
    }
    const r = await expectExact('\x1b=\x1b[?1hkeys');
    expect(r.data).toContain('\x1b=');
    expect(r.data).not.toContain('\x1b[?66h');
    expect(r.restored.modes.applicationKeypad).toBe(true);
  });

  it('item 8: a wrapped line at the top of a scroll region comes back without a stray character', async () => {
    const long = 'x'.repeat(100);
    const r = await expectExact(`\x1b[H\x1b[2JHEADER\x1b[3;20r\x1b[20;1H${long}\r\n${long}\r\n`.repeat(12));
    expect(r.restored.normal.lines.join('\n')).not.toContain('-');
  });

  it('keeps wrapped lines wrapped (reflow on a later resize agrees)', async () => {
    const r = await expectExact([
      'a'.repeat(170),
      '\r\n',
      `${'b'.repeat(79)}\u4e00c`,
      '\r\n',
      ' '.repeat(85),
    ]);
    expect(r.original.normal.lines.some((l) => l.startsWith('↩'))).toBe(true);
  });

  it('keeps the cursor style, blink, origin, insert, wraparound, LNM, reverse wrap, focus and paste modes', async () => {
    await expectExact(
      '\x1b[5 q\x1b[?12h\x1b[5;10r\x1b[?6h\x1b[3;4H\x1b[4h\x1b[?7l\x1b[20h\x1b[?45h\x1b[?1004h\x1b[?2004h',
    );
  });

  it('keeps every SGR attribute and colour mode, and the pen', async () => {
    await expectExact(
      '\x1b[1mb\x1b[2md\x1b[0;3mi\x1b[0;5mk\x1b[0;7mv\x1b[0;8mh\x1b[0;9ms\x1b[0;53mo\x1b[0m' +
        '\x1b[31ma\x1b[91mb\x1b[38;5;1mc\x1b[38;5;200md\x1b[38;2;1;2;3me\x1b[41mf\x1b[101mg\x1b[48;5;17mh\x1b[48;2;9;8;7mi' +
        '\x1b[0m\x1b[1;4:3;58:5:9;38;5;40m',
    );
  });

  it('keeps coloured blanks (BCE) and blanks between text', async () => {
    await expectExact('\x1b[44m\x1b[2J\x1b[H\x1b[0mtext\x1b[10G\x1b[42m\x1b[5X\x1b[20Gend\x1b[43m\x1b[K');
  });

  it('keeps wide, combining, emoji, ZWJ and VS16 characters at the widths programs use', async () => {
    const r = await expectExact('│ ✅ ok\x1b[20G│\r\nF👨‍👩‍👧|\r\nH❤️|\r\ne\u0301|\r\n中文字\r\n');
    expect(r.original.normal.lines[0]).toContain('✅²');
  });

  it('keeps the alternate screen, the normal screen under it and the cursor saved by DECSET 1049', async () => {
    await expectExact([
      'normal text\r\nmore\x1b[31m',
      '\x1b[?1049h\x1b[H\x1b[0malt screen\x1b[5;6r\x1b[2;3H',
    ]);
  });

  it('keeps DECSC state in each buffer, charsets and SO', async () => {
    await expectExact('\x1b[5;7H\x1b[1;32m\x1b(0\x1b7\x1b(B\x1b[0m\x1b[H\x1b)0\x0eqqq');
  });

  it('keeps the title and icon name', async () => {
    const r = await expectExact('\x1b]2;my title\x07\x1b]1;icon\x07');
    expect(r.restored.title).toBe('my title / icon');
  });

  it('keeps OSC 8 links on cells and on the pen', async () => {
    await expectExact(
      '\x1b]8;id=a;https://example.com/\x1b\\link\x1b]8;;\x1b\\ plain \x1b]8;;file:///x\x1b\\',
    );
  });

  it('keeps the kitty keyboard flags a program pushed, per screen', async () => {
    const r = await expectExact('\x1b[>1u\x1b[>3u\x1b[?1049h\x1b[>31u');
    expect(r.restored.kitty).toBe('main 0[1,3] now 3; alt 0[31]');
  });

  it('keeps a pending wrap (the cursor past the last column)', async () => {
    await expectExact('x'.repeat(80));
    await expectExact(`${'y'.repeat(78)}中`);
  });

  it('keeps a pending wrap over a blank last cell, on either screen (top ends its rows so)', async () => {
    // Printed to the last column, then the screen switched (the alternate one starts blank under the cursor).
    await expectExact(`\x1b[44m${'z'.repeat(80)}\x1b[0m\x1b[?1047h\x1b[?1047l`);
    const alt = `\x1b[44m${'z'.repeat(80)}\x1b[?1049h`;
    const r = await expectExact(alt);
    // On the alternate screen the last cell comes back as a space in the blank's pen (terminal-dump.ts reads
    // it as blank): the same on screen, and the program's next character wraps to the next row, as it would.
    const a = testTerminal();
    const b = testTerminal();
    try {
      await a.write(`${alt}next`);
      await b.write(`${r.data}next`);
      const row1 = (t: typeof a) => t.term.buffer.active.getLine(1)?.translateToString(true);
      expect(row1(b)).toBe('next');
      expect(row1(a)).toBe('next');
      expect(b.term.buffer.active.cursorX).toBe(a.term.buffer.active.cursorX);
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it('keeps the blank a wide character that did not fit left, in its whole pen, after it was overwritten', async () => {
    // Bold (and protected) blanks in the last column, the wide characters that made them since moved or gone.
    await expectExact('\x1b[1m\x1b[0;8H中文\r\x1b[0@', { cols: 8, rows: 3 });
    await expectExact('\x1b[1"q一一一一一一一\x1b[1K中文', { cols: 11, rows: 3 });
  });

  it('keeps scrollback up to the asked number of lines', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => `\x1b[3${i % 8}mline ${i}\x1b[0m`).join('\r\n');
    await expectExact(lines);
  });
});
