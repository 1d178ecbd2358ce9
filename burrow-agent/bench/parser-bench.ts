/**
 * Parser throughput (DESIGN §9; brief budget: ≥ 500 MB/s plain text, ≥ 150 MB/s escape-dense output), beside
 * baselines measured in the same run on the same buffers: a bare `indexOf(0x1b)` scan (the floor any parser
 * that looks at every ESC pays) and @xterm/headless's own parse rate (what the screen model costs, for scale).
 * Run: `npm run bench -w @burrow/agent`.
 */
import xtermHeadless from '@xterm/headless';
import { TerminalParser } from '../src/terminal/parser.js';

const { Terminal } = xtermHeadless;

const MB = 1024 * 1024;
const CHUNK = 64 * 1024; // a large PTY read
const SIZE = 32 * MB;
const XTERM_SIZE = 4 * MB;
const PLAIN_BUDGET_MBPS = 500;
const DENSE_BUDGET_MBPS = 150;

function fill(pattern: string, size: number): Uint8Array {
  const unit = new TextEncoder().encode(pattern);
  const out = new Uint8Array(size);
  for (let o = 0; o < size; o += unit.length) out.set(unit.subarray(0, Math.min(unit.length, size - o)), o);
  return out;
}

const plain = fill(
  'src/terminal/parser.ts:42:7 - compiled 1,204 modules in 3.1 s; all tests passed (ok) — ünïcødé 漢字\r\n',
  SIZE,
);
const dense = fill(
  '\x1b[38;5;196mERR\x1b[0m \x1b[1;32m✓\x1b[22m ok \x1b[12;40H\x1b[K\x1b[2;3Hx\x1b]0;build: 42%\x07\x1b[?25l\x1b[48;2;10;20;30m \x1b[m\r\n',
  SIZE,
);

function chunks(buffer: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let o = 0; o < buffer.length; o += CHUNK) out.push(buffer.subarray(o, o + CHUNK));
  return out;
}

function best(run: () => void, repeats: number): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let r = 0; r < repeats; r++) {
    const start = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - start);
  }
  return fastest;
}

const mbps = (bytes: number, ms: number): number => bytes / MB / (ms / 1000);

function parserRate(buffer: Uint8Array): number {
  const parts = chunks(buffer);
  let sink = 0;
  const ms = best(() => {
    const parser = new TerminalParser({ nonce: 'bench', now: () => 0 });
    for (const part of parts) sink += parser.feed(part).length;
  }, 5);
  if (sink < 0) throw new Error('unreachable');
  return mbps(buffer.length, ms);
}

function indexOfRate(buffer: Uint8Array): number {
  const parts = chunks(buffer);
  let sink = 0;
  const ms = best(() => {
    for (const part of parts) {
      let i = part.indexOf(0x1b);
      while (i >= 0) {
        sink++;
        i = part.indexOf(0x1b, i + 1);
      }
    }
  }, 5);
  if (sink < 0) throw new Error('unreachable');
  return mbps(buffer.length, ms);
}

async function xtermRate(buffer: Uint8Array): Promise<number> {
  const parts = chunks(buffer.subarray(0, XTERM_SIZE));
  const term = new Terminal({ cols: 120, rows: 40, scrollback: 1000, allowProposedApi: true });
  const start = performance.now();
  for (const part of parts) await new Promise<void>((resolve) => term.write(part, resolve));
  const ms = performance.now() - start;
  term.dispose();
  return mbps(XTERM_SIZE, ms);
}

function row(name: string, rate: number, indexOf: number, xterm: number, budget: number): string {
  const verdict = rate >= budget ? 'MEETS' : 'MISSES';
  return (
    `${name.padEnd(14)} parser ${rate.toFixed(0).padStart(5)} MB/s | indexOf(ESC) ${indexOf.toFixed(0).padStart(5)} MB/s ` +
    `(parser/indexOf ${(rate / indexOf).toFixed(2)}) | xterm headless ${xterm.toFixed(0).padStart(4)} MB/s ` +
    `(parser/xterm ${(rate / xterm).toFixed(1)}x) | budget ${budget} MB/s: ${verdict}`
  );
}

const results = [
  row('plain text', parserRate(plain), indexOfRate(plain), await xtermRate(plain), PLAIN_BUDGET_MBPS),
  row('escape-dense', parserRate(dense), indexOfRate(dense), await xtermRate(dense), DENSE_BUDGET_MBPS),
];
console.log(`terminal parser, ${SIZE / MB} MiB per input in ${CHUNK / 1024} KiB chunks, best of 5`);
for (const line of results) console.log(line);
