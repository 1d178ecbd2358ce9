/**
 * The screen model's own CPU per MB of a plain flood (issue 26): a ScreenModel on this thread handed the flood
 * in CHECKPOINT_BYTES pieces, each a fresh buffer cut wherever the MiB ends (as LazyScreen hands the worker the
 * log), for `seq`-like lines (54 bytes, the marked stream of the output-path bench) and base64 (77 bytes, the
 * writer test). CPU is this process's, every thread (zlib's pool included), per MB. Baseline in the same run: the
 * same pieces through a model that parses every byte (no plain-text skip), on a smaller part of the flood. No
 * PTY, no daemon: what `tests/bench/daemon-profile.ts` calls "screen model" (scan, history, xterm parse), alone.
 */
import { loadavg } from 'node:os';
import { CHECKPOINT_BYTES } from '../src/screen/lazy-screen.js';
import { ScreenModel } from '../src/screen/screen-model.js';

const MB = Number(process.env.BENCH_FLOOD_MB ?? 64);
if (!Number.isInteger(MB) || MB < 2 || MB > 1000) throw new RangeError('BENCH_FLOOD_MB must be 2..1000');
const BASELINE_MB = Math.min(8, MB);

/** `bytes` of CR LF lines made by `line(i)`. */
function flood(bytes: number, line: (i: number) => string): Buffer {
  const out = Buffer.alloc(bytes + 256);
  let at = 0;
  for (let i = 1; at < bytes; i++) at += out.write(`${line(i)}\r\n`, at, 'latin1');
  return out.subarray(0, at);
}

const seqLine = (i: number) => `line ${String(i).padStart(10, '0')} abcdefghijklmnopqrstuvwxyz0123456789`;
// `head -c N /dev/zero | base64`: 76 columns.
const base64Line = () => 'A'.repeat(76);

/** CPU ms per MB of feeding `data` to a fresh model, in CHECKPOINT_BYTES hand-overs. */
async function cpuPerMb(data: Buffer, skip: boolean): Promise<number> {
  const m = new ScreenModel(120, 40, 0, { skipPlainFloods: skip });
  const c0 = process.cpuUsage();
  for (let at = 0; at < data.length; at += CHECKPOINT_BYTES) {
    const piece = new Uint8Array(Math.min(CHECKPOINT_BYTES, data.length - at));
    piece.set(data.subarray(at, at + piece.length));
    m.write(piece);
    await m.whenParsed(() => 0);
  }
  const c = process.cpuUsage(c0);
  m.dispose();
  return (c.user + c.system) / 1000 / (data.length / 1e6);
}

console.log(
  `machine load average: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (compare within a run)`,
);
for (const [name, line] of [
  ['seq lines (54 B)', seqLine],
  ['base64 lines (77 B)', base64Line],
] as const) {
  const data = flood(MB * 1024 * 1024, line);
  const base = await cpuPerMb(data.subarray(0, BASELINE_MB * 1024 * 1024), false);
  const skip = await cpuPerMb(data, true);
  console.log(
    `${`${name}: every byte through xterm (baseline)`.padEnd(52)} ${base.toFixed(2).padStart(8)} ms/MB`,
  );
  console.log(
    `${`${name}: plain-text skip, history taken whole`.padEnd(52)} ${skip.toFixed(2).padStart(8)} ms/MB`,
  );
  console.log(`  skip / baseline = ${(skip / base).toFixed(3)}`);
}
