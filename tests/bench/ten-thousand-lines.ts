/** The 10,000-line session the attach benches use (DESIGN §9): coloured 120-column lines written to a file. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes `lines` lines of `cols` columns with 256-colour and truecolour SGR runs; returns path and size. */
export function tenThousandLines(lines: number, cols: number): { path: string; bytes: number } {
  if (!Number.isInteger(lines) || lines < 1) throw new RangeError('lines must be a positive integer');
  if (!Number.isInteger(cols) || cols < 20) throw new RangeError('cols must be an integer ≥ 20');
  let s = '';
  for (let i = 0; i < lines; i++) {
    const text = `${String(i).padStart(6, '0')} ${'lorem ipsum dolor sit amet '.repeat(8)}`.slice(
      0,
      cols - 12,
    );
    s += `\x1b[38;5;${i % 256}m${text.slice(0, 40)}\x1b[1;48;2;10;${i % 200};90m${text.slice(40)}\x1b[0m\r\n`;
  }
  const path = join(mkdtempSync(join(tmpdir(), 'burrow-bench-')), 'tenk.txt');
  writeFileSync(path, s);
  return { path, bytes: Buffer.byteLength(s) };
}
