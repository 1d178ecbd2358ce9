/**
 * Remote API codec cost, as ratios against doing the unavoidable work alone in the same run:
 *   - a 10,000-line × 120-column coloured snapshot: encode → fragment → reassemble → decode, against UTF-8
 *     encode + decode of the same text (what any encoding must at least do);
 *   - live output: OUTPUT frame encode → reassembler → decode of 4 KiB chunks, against copying the chunk.
 * Run: npm run bench -w protocol
 */
import { performance } from 'node:perf_hooks';
import { decodeBurrowMessage, encodeBurrowMessage, Fragmenter, Reassembler } from '../src/remote/index.js';

function time(label: string, rounds: number, run: () => void): number {
  run(); // warm up
  const start = performance.now();
  for (let i = 0; i < rounds; i++) run();
  const ms = (performance.now() - start) / rounds;
  console.log(`${label.padEnd(44)} ${ms.toFixed(3).padStart(10)} ms/op`);
  return ms;
}

const line = Array.from(
  { length: 120 },
  (_, i) => `\x1b[38;5;${i % 256}m${String.fromCharCode(33 + (i % 90))}`,
).join('');
const data = Array.from({ length: 10_000 }, () => line).join('\r\n');
const snapshot = {
  type: 'attached',
  rid: 1,
  session: 'bench',
  offset: 1_000_000,
  cols: 120,
  rows: 50,
  firstLine: 0,
  hasOlder: false,
  data,
} as const;
console.log(`snapshot: ${(Buffer.byteLength(data) / 1e6).toFixed(1)} MB of serialized screen`);

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const base = time('baseline: UTF-8 encode + decode', 10, () => {
  decoder.decode(encoder.encode(data));
});
const full = time('snapshot: encode→fragment→reassemble→decode', 10, () => {
  const r = new Reassembler();
  let whole: Uint8Array | null = null;
  for (const p of new Fragmenter().split(encodeBurrowMessage(snapshot))) whole = r.push(p) ?? whole;
  decodeBurrowMessage(whole!);
});

const chunk = new Uint8Array(4096).fill(0x61);
const CHUNKS = 2000;
const copy = time(`baseline: copy ${CHUNKS} × 4 KiB`, 20, () => {
  for (let i = 0; i < CHUNKS; i++) chunk.slice();
});
const out = time(`output: ${CHUNKS} × 4 KiB frames encode→decode`, 20, () => {
  const r = new Reassembler();
  const f = new Fragmenter();
  for (let i = 0; i < CHUNKS; i++) {
    for (const p of f.split(
      encodeBurrowMessage({ type: 'output', session: 'bench', offset: i * 4096, data: chunk }),
    )) {
      const whole = r.push(p);
      if (whole) decodeBurrowMessage(whole);
    }
  }
});

console.log(`ratio snapshot / baseline: ${(full / base).toFixed(2)}`);
console.log(`ratio output / baseline:   ${(out / copy).toFixed(2)}`);
