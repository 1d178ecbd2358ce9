/**
 * One width table everywhere (issue 22 item 4): the screen model's terminal gives emoji, CJK, combining marks,
 * ZWJ sequences and VS16 the columns glibc `wcwidth` gives them — what programs compute — and Pocket loads the
 * same table at the same version.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SCREEN_UNICODE_VERSION } from '@burrow/protocol';
import { describe, expect, it } from 'vitest';
import { testTerminal } from './restore-terminal.js';

/** Columns glibc's wcswidth-by-wcwidth sum gives each string (python3's ctypes, C.UTF-8). */
function glibcColumns(samples: readonly string[]): number[] {
  const script = `
import ctypes, json, locale, sys
locale.setlocale(locale.LC_ALL, 'C.UTF-8')
libc = ctypes.CDLL('libc.so.6')
out = []
for s in json.loads(sys.stdin.read()):
    out.append(sum(max(0, libc.wcwidth(ctypes.c_wchar(c))) for c in s))
print(json.dumps(out))
`;
  try {
    return JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify(samples) }).toString());
  } catch (err) {
    throw new Error(
      `glibc widths need python3 (Debian package python3, see .ci/run): ${(err as Error).message}`,
    );
  }
}

const SAMPLES = [
  '✅', // U+2705, Emoji_Presentation: 2
  '│ ✅ ok', // the reproduction
  '👍', // astral emoji
  '中文字', // CJK
  'ｱｲｳ', // halfwidth katakana: 1 each
  '한국어', // Hangul
  'e\u0301', // combining acute: 1
  'a\u0308\u0323', // two combining marks
  '👨‍👩‍👧', // ZWJ sequence: each emoji its own 2 cells, ZWJ 0
  '❤️', // U+2764 + VS16: 1 (VS16 adds nothing)
  '☀️', // U+2600 + VS16
  '🇫🇷', // regional indicators: 1 + 1 in glibc
  'x\u200by', // zero-width space
  '⚡', // U+26A1
  '🏳️‍🌈',
];

describe('terminal widths', () => {
  it('match glibc wcwidth for emoji, CJK, combining marks, ZWJ sequences and VS16', async () => {
    const glibc = glibcColumns(SAMPLES);
    const t = testTerminal(40, 4);
    const ours: number[] = [];
    for (const s of SAMPLES) {
      await t.write(`\x1b[H\x1b[2K${s}`);
      ours.push(t.term.buffer.active.cursorX);
    }
    t.dispose();
    expect(ours).toEqual(glibc);
  });

  it('Pocket uses the same table at the same addon version', () => {
    const agent = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const pocket = JSON.parse(
      readFileSync(new URL('../../pocket-pwa/package.json', import.meta.url), 'utf8'),
    );
    expect(pocket.dependencies['@xterm/addon-unicode11']).toBe(agent.dependencies['@xterm/addon-unicode11']);
    expect(pocket.dependencies['@xterm/xterm']).toBe(agent.dependencies['@xterm/headless']);
    const src = readFileSync(
      new URL('../../pocket-pwa/src/terminal/TerminalScreen.tsx', import.meta.url),
      'utf8',
    );
    expect(src).toContain('applySessionWidths(term)');
    expect(SCREEN_UNICODE_VERSION).toBe('11');
  });
});
