/**
 * Where each microsecond of the local attach echo goes (issue 26): one keystroke from a terminal (this process,
 * through `burrow attach`'s pty) → `burrow attach` → control socket → daemon → the session's PTY → `cat` →
 * back the same way. Runs ECHO_COMMAND's keystroke echo back to back (each keystroke waits for the previous
 * echo, as the output-path bench's p50 does) once untraced and once under `perf record` (the read and write syscall tracepoints) on the four processes,
 * finds each keystroke's syscalls (the reads and writes of each hop, told apart by their sizes) and prints the
 * median time of every hop: the time inside a process between its read and its write, and the kernel's time
 * (pty or socket, and the wake-up of the reader) between a write and the read it wakes.
 *
 * perf costs each traced syscall a few µs, so the traced round trip is longer than the untraced one (both
 * are printed); the per-hop split is what to read. Not part of `npm run bench` (needs root and perf): run it
 * by hand under /work/bin/exclusive, e.g. `npx tsx --conditions=source bench/echo-trace.ts` from tests/.
 * ECHO_TRACE_KEYS sets the number of keystrokes (default 300), ECHO_TRACE_GAP_MS a pause between them.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BurrowDaemon } from '../helpers/burrow-daemon.js';
import { descendantsNamed } from '../helpers/load-proc.js';
import { printTable, quantiles, sleep, until } from './bench-stats.js';
import { byteCounter, ECHO_COMMAND } from './echo-paths.js';
import { attachCli, newSession, SETUP_TIMEOUT_MS } from './output-paths.js';

const KEYS = Number(process.env.ECHO_TRACE_KEYS ?? 300);
/** ms between keystrokes; 0 (default) is back to back, as the echo figures are. */
const GAP = Number(process.env.ECHO_TRACE_GAP_MS ?? 0);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** One syscall from the trace: start and end in µs (perf's clock). */
interface Call {
  readonly startUs: number;
  readonly endUs: number;
  readonly pid: number;
  readonly name: string;
  readonly fd: number;
  readonly count: number;
  readonly ret: number;
}

// perf script's lines for the syscall tracepoints:
//   `node 1234 [001] 51483.506787: syscalls:sys_enter_write: fd: 0x00000005, buf: 0x…, count: 0x00000001`
//   `node 1234 [001] 51483.506796: syscalls:sys_exit_write: 0x1`
const ENTER =
  /^\s*\S.*?\s(\d+) \[\d+\] ([\d.]+):\s+syscalls:sys_enter_(\w+): fd: (0x[\da-f]+).*count: (0x[\da-f]+)/;
const EXIT = /^\s*\S.*?\s(\d+) \[\d+\] ([\d.]+):\s+syscalls:sys_exit_(\w+): (-?(?:0x)?[\da-f]+)/;

/** Pairs each thread's syscall entries and exits into calls (times in µs). */
function parseTrace(text: string): Call[] {
  const open = new Map<number, { name: string; fd: number; count: number; startUs: number }>();
  const calls: Call[] = [];
  for (const line of text.split('\n')) {
    const e = ENTER.exec(line);
    if (e !== null) {
      open.set(Number(e[1]), {
        name: e[3]!,
        fd: Number.parseInt(e[4]!, 16),
        count: Number.parseInt(e[5]!, 16),
        startUs: Number(e[2]) * 1e6,
      });
      continue;
    }
    const x = EXIT.exec(line);
    if (x === null) continue;
    const tid = Number(x[1]);
    const entry = open.get(tid);
    if (entry === undefined || entry.name !== x[3]) continue;
    open.delete(tid);
    const ret = x[4]!.startsWith('-') ? Number(x[4]) : Number.parseInt(x[4]!.replace(/^0x/, ''), 16);
    calls.push({ ...entry, endUs: Number(x[2]) * 1e6, pid: tid, ret });
  }
  return calls;
}

/** When a call is seen to happen on its hop: a read when it returns (the bytes arrived), a write when it starts. */
const at = (c: Call) => (c.name === 'read' || c.name === 'readv' ? c.endUs : c.startUs);

/** The threads of a process (perf names a thread's tid, not its process). */
function threads(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
}

async function echoOnce(write: (b: string) => void, counter: ReturnType<typeof byteCounter>) {
  const t = performance.now();
  const back = counter.want(1);
  write('x');
  await back;
  return performance.now() - t;
}

async function main(): Promise<void> {
  console.log(`echo trace — load average at start: ${load()}`);
  const daemon = await BurrowDaemon.start();
  const id = await newSession(daemon, ECHO_COMMAND);
  const counter = byteCounter();
  let text = '';
  const a = attachCli(daemon, id, (d) => {
    if (text.length < 4096) text += d.toString('latin1');
    counter.add(d.byteLength);
  });
  let perf: ChildProcess | null = null;
  try {
    await until(() => text.includes('ready'), 'the echo session', SETUP_TIMEOUT_MS, 10);
    await sleep(300);
    counter.settle();
    const write = (b: string) => a.cli.write(b);
    for (let i = 0; i < 50; i++) await echoOnce(write, counter);
    const untraced: number[] = [];
    for (let i = 0; i < KEYS; i++) {
      untraced.push(await echoOnce(write, counter));
      if (GAP > 0) await sleep(GAP);
    }

    const cat = descendantsNamed(daemon.pid, 'cat')[0];
    if (cat === undefined) throw new Error('no cat under the daemon');
    const pids = { bench: process.pid, cli: a.cli.pid, daemon: daemon.pid, cat };
    const out = join(mkdtempSync(join(tmpdir(), 'burrow-echo-trace-')), 'perf.data');
    // perf record, not perf trace: the tracepoints go to a buffer and are formatted after the run, so a traced
    // syscall costs a few µs instead of tens.
    const events = ['read', 'write', 'writev']
      .flatMap((n) => [`syscalls:sys_enter_${n}`, `syscalls:sys_exit_${n}`])
      .join(',');
    perf = spawn('perf', ['record', '-q', '-o', out, '-e', events, '-p', Object.values(pids).join(',')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let perfErr = '';
    perf.stderr!.on('data', (d: Buffer) => {
      perfErr += d.toString();
    });
    await sleep(1500); // perf attaches
    if (perf.exitCode !== null) throw new Error(`perf record failed: ${perfErr}`);
    const traced: number[] = [];
    for (let i = 0; i < KEYS; i++) {
      traced.push(await echoOnce(write, counter));
      if (GAP > 0) await sleep(GAP);
    }
    await sleep(200);
    perf.kill('SIGINT');
    await new Promise((r) => perf!.once('exit', r));
    perf = null;
    const script = spawnSync('perf', ['script', '-i', out], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr}`);
    const calls = parseTrace(script.stdout);
    report(calls, pids, quantiles(untraced).p50, quantiles(traced).p50);
  } finally {
    perf?.kill('SIGKILL');
    a.cli.kill();
    await daemon.stop();
  }
}

type Pids = Record<'bench' | 'cli' | 'daemon' | 'cat', number>;

/**
 * Walks the calls in time order, one keystroke at a time: the bench's 1-byte write to the CLI's pty starts
 * one; then each next hop is the first matching call after the previous one. A keystroke whose chain breaks
 * (a syscall perf lost, a `typing` report in between) is skipped and counted.
 */
function report(all: Call[], pids: Pids, untracedMs: number, tracedMs: number): void {
  // perf names threads: map every tid to its process by /proc (main threads have tid = pid).
  const owner = new Map<number, keyof Pids>();
  for (const [k, pid] of Object.entries(pids) as [keyof Pids, number][]) {
    owner.set(pid, k);
    for (const t of threads(pid)) owner.set(t, k);
  }
  const calls = all.filter((c) => owner.has(c.pid)).sort((x, y) => at(x) - at(y));
  const who = (c: Call) => owner.get(c.pid);
  // Sizes: a keystroke is 1 byte; an input frame 6 (4 length + 1 type + 1); an output frame 14 (5 + an 8-byte
  // offset + 1); 8-byte reads are libuv's eventfd wake-ups, never a hop. libuv reopens a tty, so fds say little.
  const writes = (c: Call) => c.name === 'write' || c.name === 'writev';
  const steps: Array<[string, (c: Call) => boolean]> = [
    ['bench writes the key', (c) => who(c) === 'bench' && writes(c) && c.ret === 1],
    ['CLI reads it (tty → burrow attach)', (c) => who(c) === 'cli' && c.name === 'read' && c.ret === 1],
    ['CLI writes the input frame', (c) => who(c) === 'cli' && writes(c) && c.ret === 6],
    [
      'daemon reads it (socket)',
      (c) => who(c) === 'daemon' && c.name === 'read' && c.ret >= 6 && c.ret !== 8,
    ],
    ['daemon writes the PTY', (c) => who(c) === 'daemon' && writes(c) && c.ret === 1],
    ['cat reads it (pty)', (c) => who(c) === 'cat' && c.name === 'read' && c.ret === 1],
    ['cat writes the echo', (c) => who(c) === 'cat' && writes(c) && c.ret === 1],
    ['daemon reads the PTY (pty)', (c) => who(c) === 'daemon' && c.name === 'read' && c.ret === 1],
    ['daemon writes the output frame', (c) => who(c) === 'daemon' && writes(c) && c.ret >= 14],
    ['CLI reads it (socket)', (c) => who(c) === 'cli' && c.name === 'read' && c.ret >= 14],
    ['CLI writes the terminal', (c) => who(c) === 'cli' && writes(c)],
    [
      'bench reads the echo (tty)',
      (c) => who(c) === 'bench' && c.name === 'read' && c.ret >= 1 && c.ret !== 8,
    ],
  ];
  const gaps: number[][] = steps.slice(1).map(() => []);
  let done = 0;
  let broken = 0;
  for (let i = 0; i < calls.length; i++) {
    if (!steps[0]![1](calls[i]!)) continue;
    let prev = at(calls[i]!);
    let index = i;
    const keystroke: number[] = [];
    for (const [, match] of steps.slice(1)) {
      let j = index + 1;
      while (j < calls.length && !match(calls[j]!)) j++;
      if (j >= calls.length) break;
      keystroke.push(at(calls[j]!) - prev);
      prev = at(calls[j]!);
      index = j;
    }
    if (keystroke.length !== gaps.length || keystroke.some((g) => g < 0 || g > 5000)) {
      broken++;
      continue;
    }
    for (const [k, g] of keystroke.entries()) gaps[k]!.push(g);
    done++;
    i = index;
  }
  if (done === 0) throw new Error(`no keystroke's chain was found (${broken} broken)`);
  const rows = [['hop (to this step, from the one before)', 'p50 µs', 'p99 µs']];
  let total = 0;
  steps.slice(1).forEach(([name], k) => {
    const q = quantiles(gaps[k]!);
    total += q.p50;
    rows.push([name, q.p50.toFixed(0), q.p99.toFixed(0)]);
  });
  rows.push(['sum of the hop medians', total.toFixed(0), '']);
  console.log(
    `\n${done} keystrokes traced (${broken} skipped); round trip p50 untraced ${(untracedMs * 1000).toFixed(0)} µs, traced ${(tracedMs * 1000).toFixed(0)} µs; load ${load()}`,
  );
  printTable(rows);
}

await main();
process.exit(0);
