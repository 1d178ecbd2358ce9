/**
 * Where should the screen model parse (issue 14)? The writer test — `head -c N /dev/zero | base64` in the session,
 * timed by the program itself — through raw node-pty and through a session whose model runs
 *  - on the screen worker thread (WorkerScreenHost, the default), or
 *  - on the daemon's thread in slices between reads (LocalScreenHost, "batched / idle-time parsing"),
 * with no viewer and with one (a sink that takes everything at once). All in this process, one after another,
 * so the ratios compare like with like; CPU is this process's (every thread) per MB of output.
 * Targets (issue 14): no viewer ≤ 1.2× raw node-pty; with a viewer ≤ 1.5×.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { LocalScreenHost } from '../src/screen/local-screen-host.js';
import type { ScreenHostFactory } from '../src/screen/screen-host.js';
import { SessionRegistry } from '../src/session/session-registry.js';
import type { ViewerSink } from '../src/viewer/viewer.js';

const MB = Number(process.env.BENCH_WRITER_MB ?? 40);
if (!Number.isInteger(MB) || MB < 1 || MB > 1000) throw new RangeError('BENCH_WRITER_MB must be 1..1000');
const ROUNDS = 2;
const TIMEOUT_MS = 300_000;
const dir = mkdtempSync(join(tmpdir(), 'burrow-screen-bench-'));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** The program times itself (ms) into `file`, so every path is measured the same way. */
const writer = (file: string) => [
  '/bin/sh',
  '-c',
  `s=$(date +%s%N); head -c ${MB}000000 /dev/zero | base64; e=$(date +%s%N); echo $(( (e - s) / 1000000 )) > ${file}`,
];

interface Run {
  readonly programMs: number;
  readonly cpuMsPerMb: number;
  /** After the program finished: until the model had parsed everything (snapshot answered), ms. */
  readonly modelLagMs: number;
}

async function waitFile(file: string): Promise<number> {
  const end = Date.now() + TIMEOUT_MS;
  for (;;) {
    try {
      const text = readFileSync(file, 'utf8');
      if (text.endsWith('\n')) return Number(text.trim());
    } catch {
      // not written yet
    }
    if (Date.now() > end) throw new Error('the writer did not finish');
    await new Promise((r) => setTimeout(r, 20));
  }
}

let runNo = 0;
async function rawRun(): Promise<Run> {
  const file = join(dir, `raw-${runNo++}`);
  const cmd = writer(file);
  const cpu0 = process.cpuUsage();
  let bytes = 0;
  const p = pty.spawn(cmd[0]!, cmd.slice(1), { cols: 80, rows: 24, encoding: null });
  p.onData((d: string | Buffer) => {
    bytes += d.length;
  });
  const programMs = await waitFile(file);
  const cpu = process.cpuUsage(cpu0);
  p.kill();
  return { programMs, cpuMsPerMb: (cpu.user + cpu.system) / 1000 / (bytes / 1e6), modelLagMs: 0 };
}

async function sessionRun(screen: ScreenHostFactory | undefined, withViewer: boolean): Promise<Run> {
  const file = join(dir, `s-${runNo++}`);
  const reg = new SessionRegistry({
    now: Date.now,
    env: { PATH: process.env.PATH },
    defaultShell: '/bin/sh',
    log: () => {},
    integrationDir: null,
    ...(screen ? { screen } : {}),
  });
  // Warm the host (the worker starts on first use) before the clock runs.
  const warm = reg.create({ cwd: '/tmp', command: ['/bin/true'] });
  await warm.snapshot();
  const cpu0 = process.cpuUsage();
  const s = reg.create({ cwd: '/tmp', command: writer(file) });
  if (withViewer) {
    const sink: ViewerSink = {
      id: 'bench',
      kind: 'remote',
      maxOutputBytes: 65_000,
      backlog: () => 0,
      deliver: () => {},
      close: () => {},
    };
    s.attach(sink);
  }
  const programMs = await waitFile(file);
  const t = performance.now();
  await s.snapshot();
  const modelLagMs = performance.now() - t;
  const cpu = process.cpuUsage(cpu0);
  const bytes = s.info().offset;
  await reg.killAll();
  return { programMs, cpuMsPerMb: (cpu.user + cpu.system) / 1000 / (bytes / 1e6), modelLagMs };
}

const best = (runs: Run[]) => runs.reduce((a, b) => (b.programMs < a.programMs ? b : a));

console.log(
  `screen-host bench — writer: head -c ${MB}000000 /dev/zero | base64 (${((MB * 4) / 3).toFixed(0)} MB of output)`,
);
console.log(`load average at start: ${load()}`);
const local: ScreenHostFactory = (o) => new LocalScreenHost(o);
const paths: Array<[string, () => Promise<Run>, number | null]> = [
  ['raw node-pty (baseline)', rawRun, null],
  ['session, worker thread, no viewer', () => sessionRun(undefined, false), 1.2],
  ['session, batched on the reading thread, no viewer', () => sessionRun(local, false), 1.2],
  ['session, worker thread, one viewer', () => sessionRun(undefined, true), 1.5],
  ['session, batched on the reading thread, one viewer', () => sessionRun(local, true), 1.5],
];
const results: Array<[string, Run, number | null]> = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run, target] of paths) {
    const r = await run();
    const prev = results.find(([n]) => n === name);
    if (prev === undefined) results.push([name, r, target]);
    else prev[1] = best([prev[1], r]);
  }
}
const raw = results[0]![1];
console.log(
  `${'path'.padEnd(52)} ${'program'.padStart(9)} ${'ratio'.padStart(6)} ${'target'.padStart(7)} ${'CPU/MB'.padStart(9)} ${'model lag'.padStart(10)}`,
);
for (const [name, r, target] of results) {
  const ratio = r.programMs / raw.programMs;
  const verdict = target === null ? '' : ratio <= target ? 'met' : 'MISSED';
  console.log(
    `${name.padEnd(52)} ${`${r.programMs} ms`.padStart(9)} ${ratio.toFixed(2).padStart(6)} ${(target === null ? '—' : `≤ ${target}`).padStart(7)} ${`${r.cpuMsPerMb.toFixed(1)} ms`.padStart(9)} ${`${r.modelLagMs.toFixed(0)} ms`.padStart(10)}  ${verdict}`,
  );
}
console.log(`(best of ${ROUNDS} rounds each; load average at end: ${load()})`);
rmSync(dir, { recursive: true, force: true });
process.exit(0);
