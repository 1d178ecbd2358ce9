/**
 * Output-path bench (issue 14; `npm run bench -w tests`). A real daemon (the built CLI, its own process), the
 * relay under `wrangler dev`, a phone (Pocket's client core in this process, a socket without
 * permessage-deflate as the relay now answers), and `burrow attach` (the built CLI in a pty), each beside
 * baselines run in this same process and run: raw node-pty and a bare relay echo. Every issue target is
 * printed as a ratio with met / MISSED, with the load average.
 *  1. keystroke echo (`stty raw -echo; exec cat`): bare node-pty, two ptys and a bare forwarder, local attach,
 *     bare relay, full chain;
 *  2. throughput of a marked 100 MB stream (tests/helpers/marked-stream.ts), checked byte for byte (count and
 *     SHA-256), with the daemon's CPU per MB; beside raw node-pty, the same stream through a second pty and a
 *     bare forwarder, the floor of any local attach;
 *  3. the writer test: `head -c 60000000 /dev/zero | base64`, timed by the program itself, with no viewer,
 *     with `burrow attach`, with the phone.
 * BENCH_STREAM_LINES and BENCH_WRITER_MB shrink parts 2 and 3 on a slow machine.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Snapshot, TerminalHandle } from '@burrow/pocket/core';
import * as pty from 'node-pty';
import { REPO_ROOT, type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon } from '../helpers/burrow-daemon.js';
import { LoadPhone } from '../helpers/load-phone.js';
import { cpuSeconds, descendantsNamed } from '../helpers/load-proc.js';
import {
  expectedStream,
  MarkedStreamReader,
  markedStreamCommand,
  type StreamDigest,
  undoOnlcr,
} from '../helpers/marked-stream.js';
import { ms, printTable, sleep, until, us } from './bench-stats.js';
import {
  barePtyEcho,
  bareRelayEcho,
  byteCounter,
  counterEcho,
  ECHO_COMMAND,
  type Echo,
  type EchoResult,
  GAP_MS,
  KEYSTROKES,
  measureEcho,
  paintedEcho,
} from './echo-paths.js';

const BIN = join(REPO_ROOT, 'burrow-agent', 'bin', 'burrow.js');
const NODE_PTY = createRequire(import.meta.url).resolve('node-pty');
const envInt = (name: string, dflt: number, max: number) => {
  const n = Number(process.env[name] ?? dflt);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new RangeError(`${name} must be an integer 1..${max}`);
  return n;
};
/** 1.85 M lines × 54 bytes ≈ 100 MB. */
const STREAM_LINES = envInt('BENCH_STREAM_LINES', 1_850_000, 20_000_000);
const WRITER_MB = envInt('BENCH_WRITER_MB', 60, 1000);
const STREAM_TIMEOUT_MS = 300_000;
/** BENCH_PARTS=1,3 runs only those parts (targets of the others are left out). */
const PARTS = new Set((process.env.BENCH_PARTS ?? '1,2,3').split(',').map(Number));
const SETUP_TIMEOUT_MS = 60_000;

const TARGET = {
  attachEchoRatio: 2,
  agentShareMs: 0.15,
  fullChainThroughput: 0.75,
  attachThroughput: 0.8,
  daemonCpuMsPerMb: 25,
  writerNoViewer: 1.2,
  writerViewer: 1.5,
};

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const work = mkdtempSync(join(tmpdir(), 'burrow-output-bench-'));

type Daemon = BurrowDaemon;

async function newSession(daemon: Daemon, command: string[]): Promise<string> {
  return (await daemon.json<{ id: string }>('new', '--json', '--', ...command)).id;
}

/** `burrow attach <id>` in a pty of its own; `data` gets what it paints. */
function attachCli(daemon: Daemon, id: string, data: (b: Buffer) => void) {
  const cli = pty.spawn(process.execPath, [BIN, 'attach', id], {
    cols: 80,
    rows: 24,
    env: daemon.env as Record<string, string>,
    encoding: null,
  });
  let painted = false;
  cli.onData((d: string | Buffer) => {
    painted = true;
    data(typeof d === 'string' ? Buffer.from(d) : d);
  });
  return { cli, painted: () => painted };
}

/**
 * A bare Node process in a pty of its own that runs `command` in a second pty and copies its output to stdout
 * (raw mode, backpressure), as `burrow attach` does, with nothing else: no daemon, no socket, no screen model.
 */
function bareForwarder(command: readonly string[], data: (b: Buffer) => void): pty.IPty {
  const script = `
    const pty = require(${JSON.stringify(NODE_PTY)});
    process.stdin.setRawMode(true);
    const p = pty.spawn(${JSON.stringify(command[0])}, ${JSON.stringify(command.slice(1))}, { cols: 80, rows: 24, encoding: null });
    p.onData((d) => { if (!process.stdout.write(d)) { p.pause(); process.stdout.once('drain', () => p.resume()); } });
    process.stdin.on('data', (d) => p.write(d));
    p.onExit(() => process.exit(0));`;
  const fwd = pty.spawn(process.execPath, ['-e', script], { cols: 80, rows: 24, encoding: null });
  fwd.onData((d: string | Buffer) => data(typeof d === 'string' ? Buffer.from(d) : d));
  return fwd;
}

/** The phone's terminal on `id`; resolves after its first snapshot. */
async function phoneAttach(phone: LoadPhone, id: string, onOutput: (d: Uint8Array) => void) {
  await until(() => phone.conn.sessions.has(id), 'the directory entry', SETUP_TIMEOUT_MS, 10);
  const seen = { snapshots: 0, resyncs: 0, screen: '' };
  const term: TerminalHandle = phone.conn.attach(
    id,
    { cols: 80, rows: 24 },
    {
      onSnapshot: (s: Snapshot) => {
        seen.snapshots++;
        seen.screen = s.data;
        if (s.kind === 'resync') seen.resyncs++;
      },
      onOutput,
    },
  );
  await until(() => seen.snapshots > 0, 'the attach snapshot', SETUP_TIMEOUT_MS, 5);
  return { term, seen };
}

// ---- 2. throughput --------------------------------------------------------------------------------------

interface Throughput {
  readonly bytes: number;
  readonly seconds: number;
  readonly ok: boolean;
  readonly daemonCpuMsPerMb: number | null;
  readonly workerdCpuMsPerMb: number | null;
  readonly resyncs: number;
}

async function measureStream(
  start: () => void,
  reader: MarkedStreamReader,
  expected: StreamDigest,
  cpu: { daemon?: number; workerd?: number[] },
  resyncs: () => number = () => 0,
): Promise<Throughput> {
  const cpuOf = (pids: number[]) => pids.reduce((s, p) => s + (cpuSeconds(p) ?? 0), 0);
  const d0 = cpu.daemon === undefined ? 0 : cpuOf([cpu.daemon]);
  const w0 = cpuOf(cpu.workerd ?? []);
  start();
  await until(() => reader.started, 'the stream to start', SETUP_TIMEOUT_MS, 1);
  const t0 = performance.now();
  await until(() => reader.done || resyncs() > 0, 'the end of the stream', STREAM_TIMEOUT_MS, 2);
  const seconds = (performance.now() - t0) / 1000;
  const mb = reader.bytes / 1e6;
  const d = reader.done ? reader.digest() : { bytes: reader.bytes, sha256: '' };
  return {
    bytes: reader.bytes,
    seconds,
    ok: d.bytes === expected.bytes && d.sha256 === expected.sha256,
    daemonCpuMsPerMb: cpu.daemon === undefined ? null : ((cpuOf([cpu.daemon]) - d0) * 1000) / mb,
    workerdCpuMsPerMb: cpu.workerd === undefined ? null : ((cpuOf(cpu.workerd) - w0) * 1000) / mb,
    resyncs: resyncs(),
  };
}

// ---- 3. writer test -------------------------------------------------------------------------------------

/** The program times itself (ms) into `file`; with `wait`, it first waits for a newline (viewer attached). */
const writerCommand = (file: string, wait: boolean) => [
  '/bin/sh',
  '-c',
  `${wait ? 'read _; ' : ''}s=$(date +%s%N); head -c ${WRITER_MB}000000 /dev/zero | base64; e=$(date +%s%N); ` +
    `echo $(( (e - s) / 1000000 )) > ${file}; exec sleep 3600`,
];

let writerNo = 0;
const writerFile = () => join(work, `writer-${writerNo++}`);

async function programMs(file: string): Promise<number> {
  let text = '';
  await until(
    () => {
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return false;
      }
      return text.endsWith('\n');
    },
    'the writer to finish',
    STREAM_TIMEOUT_MS,
    20,
  );
  return Number(text.trim());
}

const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`output-path bench — load average at start: ${load()}`);
  const [relay, daemon, expected] = await Promise.all([
    startRelay(),
    BurrowDaemon.start(),
    expectedStream(STREAM_LINES),
  ]);
  const targets: string[][] = [['target', 'measured', 'baseline (same run)', 'ratio / value', 'goal', '']];
  let phone: LoadPhone | null = null;
  try {
    const enrolled = await daemon.cli('enroll', '--relay', relay.url, '--json');
    if (enrolled.code !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
    const paired = await daemon.pairPhone('bench phone');
    phone = new LoadPhone({ label: 'bench', pairing: paired.pairing, storage: paired.storage });
    phone.start();
    const ph = phone;
    await until(() => ph.connected, 'the phone connection', SETUP_TIMEOUT_MS, 10);

    // 1. Echo.
    if (PARTS.has(1)) await echoPart(daemon, relay, ph, targets);
    if (PARTS.has(2)) await throughputPart(daemon, ph, expected, targets);
    if (PARTS.has(3)) await writerPart(daemon, ph, targets);
  } finally {
    phone?.stop();
    await daemon.stop();
    await relay.stop();
  }
  console.log(`\nissue 14 targets (load average now ${load()}):`);
  printTable(targets);
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function echoPart(daemon: Daemon, relay: RelayHandle, ph: LoadPhone, targets: string[][]) {
  const echoes: Array<[string, () => Promise<Echo>]> = [
    ['bare node-pty', () => barePtyEcho()],
    [
      'two ptys, bare Node forwarder',
      () =>
        paintedEcho((onData) => {
          const fwd = bareForwarder(ECHO_COMMAND, onData);
          return { write: (b) => fwd.write(b), close: async () => fwd.kill() };
        }),
    ],
    [
      'local attach (burrow attach)',
      async () => {
        const id = await newSession(daemon, ECHO_COMMAND);
        return paintedEcho((onData) => {
          const { cli } = attachCli(daemon, id, onData);
          return {
            write: (b) => cli.write(b),
            close: async () => {
              cli.kill();
              await daemon.cli('kill', id);
            },
          };
        });
      },
    ],
    ['bare relay (ws echo)', () => bareRelayEcho(relay)],
    [
      'full chain (phone → relay → daemon)',
      async () => {
        const id = await newSession(daemon, ECHO_COMMAND);
        const counter = byteCounter();
        let text = '';
        const { term, seen } = await phoneAttach(ph, id, (d) => {
          if (text.length < 64) text += Buffer.from(d).toString('latin1');
          counter.add(d.byteLength);
        });
        // `ready` (after stty) is in the snapshot or comes as output.
        await until(
          () => text.includes('ready') || seen.screen.includes('ready'),
          'the echo session',
          SETUP_TIMEOUT_MS,
        );
        return counterEcho(
          (b) => term.input(b),
          () => true,
          counter,
          async () => {
            term.detach();
            await daemon.cli('kill', id);
          },
        );
      },
    ],
  ];
  const results: Array<[string, EchoResult]> = [];
  for (const [name, open] of echoes) {
    const echo = await open();
    results.push([name, await measureEcho(echo)]);
    await echo.close();
  }
  console.log(
    `\n1. keystroke echo (${KEYSTROKES} back-to-back, then with ${GAP_MS} ms gaps)   load ${load()}`,
  );
  printTable([
    ['path', 'p50 b2b', 'p99 b2b', `p50 ${GAP_MS}ms gaps`, `p99 ${GAP_MS}ms gaps`],
    ...results.map(([n, r]) => [
      n,
      ms(r.backToBack.p50),
      ms(r.backToBack.p99),
      ms(r.gapped.p50),
      ms(r.gapped.p99),
    ]),
  ]);
  const [ptyE, floorE, attachE, relayE, fullE] = results.map(([, r]) => r.backToBack.p50) as [
    number,
    number,
    number,
    number,
    number,
  ];
  targets.push([
    'local attach echo p50',
    ms(attachE),
    `bare node-pty ${ms(ptyE)}`,
    `${(attachE / ptyE).toFixed(2)}×`,
    `≤ ${TARGET.attachEchoRatio}×`,
    verdict(attachE / ptyE <= TARGET.attachEchoRatio),
  ]);
  // Not an issue target: what the daemon's hop adds over the second pty every local attach has.
  targets.push([
    '  (local attach echo vs two-pty floor)',
    ms(attachE),
    `bare forwarder ${ms(floorE)}`,
    `${(attachE / floorE).toFixed(2)}×`,
    '',
    '',
  ]);
  targets.push([
    'full-chain echo p50 − bare relay p50',
    ms(fullE),
    `bare relay ${ms(relayE)}`,
    us(fullE - relayE),
    `≤ ${us(TARGET.agentShareMs)}`,
    verdict(fullE - relayE <= TARGET.agentShareMs),
  ]);
}

async function throughputPart(daemon: Daemon, ph: LoadPhone, expected: StreamDigest, targets: string[][]) {
  const workerd = descendantsNamed(process.pid, 'workerd');
  const rawReader = new MarkedStreamReader();
  const cmd = markedStreamCommand(STREAM_LINES);
  const rawPty = pty.spawn(cmd[0]!, cmd.slice(1), { cols: 80, rows: 24, encoding: null });
  rawPty.onData((d: string | Buffer) => rawReader.push(typeof d === 'string' ? Buffer.from(d) : d));
  await sleep(200);
  const raw = await measureStream(() => rawPty.write('\r'), rawReader, expected, {});
  rawPty.kill();

  // The floor for any local attach: the same stream through a second pty, relayed by a bare Node forwarder.
  const fwdReader = new MarkedStreamReader();
  const fwd = bareForwarder(
    cmd,
    undoOnlcr((b) => fwdReader.push(b)),
  );
  await sleep(500);
  const forwarded = await measureStream(() => fwd.write('\r'), fwdReader, expected, {});
  fwd.kill();

  const attachId = await newSession(daemon, cmd);
  const attachReader = new MarkedStreamReader();
  const a = attachCli(
    daemon,
    attachId,
    undoOnlcr((b) => attachReader.push(b)),
  );
  await until(a.painted, 'burrow attach to paint', SETUP_TIMEOUT_MS, 10);
  await sleep(200);
  const attached = await measureStream(() => a.cli.write('\r'), attachReader, expected, {
    daemon: daemon.pid,
  });
  a.cli.kill();
  await daemon.cli('kill', attachId);

  const phoneId = await newSession(daemon, cmd);
  const phoneReader = new MarkedStreamReader();
  const p = await phoneAttach(ph, phoneId, (d) => phoneReader.push(d));
  const chain = await measureStream(
    () => p.term.input('\r'),
    phoneReader,
    expected,
    { daemon: daemon.pid, workerd },
    () => p.seen.resyncs,
  );
  p.term.detach();
  await daemon.cli('kill', phoneId);

  const mbps = (t: Throughput) => t.bytes / 1e6 / t.seconds;
  console.log(
    `\n2. throughput, ${(expected.bytes / 1e6).toFixed(0)} MB marked stream (seq)   load ${load()}`,
  );
  printTable([
    ['path', 'MB', 's', 'MB/s', 'ratio to raw', 'byte-exact', 'daemon CPU/MB', 'workerd CPU/MB'],
    ...(
      [
        ['raw node-pty', raw],
        ['two ptys, bare Node forwarder (floor of any attach)', forwarded],
        ['local attach (burrow attach in a pty)', attached],
        ['full chain (phone core)', chain],
      ] as const
    ).map(([n, t]) => [
      n,
      (t.bytes / 1e6).toFixed(1),
      t.seconds.toFixed(2),
      mbps(t).toFixed(1),
      (mbps(t) / mbps(raw)).toFixed(2),
      t.ok ? 'yes' : `NO (${t.resyncs} resyncs)`,
      t.daemonCpuMsPerMb === null ? '' : `${t.daemonCpuMsPerMb.toFixed(1)} ms`,
      t.workerdCpuMsPerMb === null ? '' : `${t.workerdCpuMsPerMb.toFixed(1)} ms`,
    ]),
  ]);
  console.log(`phone socket extensions: ${JSON.stringify(ph.socket.extensions)}`);
  targets.push([
    'full-chain throughput',
    `${mbps(chain).toFixed(1)} MB/s`,
    `raw node-pty ${mbps(raw).toFixed(1)} MB/s`,
    `${(mbps(chain) / mbps(raw)).toFixed(2)}×`,
    `≥ ${TARGET.fullChainThroughput}×`,
    verdict(chain.ok && mbps(chain) / mbps(raw) >= TARGET.fullChainThroughput),
  ]);
  targets.push([
    'local attach throughput',
    `${mbps(attached).toFixed(1)} MB/s`,
    `raw node-pty ${mbps(raw).toFixed(1)} MB/s`,
    `${(mbps(attached) / mbps(raw)).toFixed(2)}×`,
    `≥ ${TARGET.attachThroughput}×`,
    verdict(attached.ok && mbps(attached) / mbps(raw) >= TARGET.attachThroughput),
  ]);
  // Not an issue target: how much of the second pty's floor the attach path keeps.
  targets.push([
    '  (local attach vs two-pty floor)',
    `${mbps(attached).toFixed(1)} MB/s`,
    `bare forwarder ${mbps(forwarded).toFixed(1)} MB/s`,
    `${(mbps(attached) / mbps(forwarded)).toFixed(2)}×`,
    '',
    '',
  ]);
  targets.push([
    'daemon CPU per MB (full chain)',
    `${chain.daemonCpuMsPerMb!.toFixed(1)} ms`,
    `local attach ${attached.daemonCpuMsPerMb!.toFixed(1)} ms`,
    '',
    `≤ ${TARGET.daemonCpuMsPerMb} ms`,
    verdict(chain.daemonCpuMsPerMb! <= TARGET.daemonCpuMsPerMb),
  ]);
}

async function writerPart(daemon: Daemon, ph: LoadPhone, targets: string[][]) {
  const w: Array<[string, number, number | null, number | null]> = [];
  {
    const file = writerFile();
    const wc = writerCommand(file, false);
    const rp = pty.spawn(wc[0]!, wc.slice(1), { cols: 80, rows: 24, encoding: null });
    rp.onData(() => {});
    w.push(['raw node-pty', await programMs(file), null, null]);
    rp.kill();
  }
  {
    // The floor of any viewer that paints into a local terminal: a second pty and a bare forwarder.
    const file = writerFile();
    const fwd = bareForwarder(writerCommand(file, true), () => {});
    await sleep(500);
    fwd.write('\r');
    w.push(['two ptys, bare Node forwarder', await programMs(file), null, null]);
    fwd.kill();
  }
  {
    const file = writerFile();
    const d0 = cpuSeconds(daemon.pid) ?? 0;
    const id = await newSession(daemon, writerCommand(file, false));
    const t = await programMs(file);
    w.push(['daemon, no viewer', t, ((cpuSeconds(daemon.pid) ?? 0) - d0) * 1000, TARGET.writerNoViewer]);
    await daemon.cli('kill', id);
  }
  {
    const file = writerFile();
    const id = await newSession(daemon, writerCommand(file, true));
    const c = attachCli(daemon, id, () => {});
    await until(c.painted, 'burrow attach to paint', SETUP_TIMEOUT_MS, 10);
    await sleep(200);
    const d0 = cpuSeconds(daemon.pid) ?? 0;
    c.cli.write('\r');
    const t = await programMs(file);
    w.push(['daemon, burrow attach', t, ((cpuSeconds(daemon.pid) ?? 0) - d0) * 1000, TARGET.writerViewer]);
    c.cli.kill();
    await daemon.cli('kill', id);
  }
  {
    const file = writerFile();
    const id = await newSession(daemon, writerCommand(file, true));
    const pa = await phoneAttach(ph, id, () => {});
    const d0 = cpuSeconds(daemon.pid) ?? 0;
    pa.term.input('\r');
    const t = await programMs(file);
    w.push(['daemon, phone attached', t, ((cpuSeconds(daemon.pid) ?? 0) - d0) * 1000, TARGET.writerViewer]);
    pa.term.detach();
    await daemon.cli('kill', id);
  }
  const rawMs = w[0]![1];
  const outMb = (WRITER_MB * 4) / 3;
  console.log(
    `\n3. writer test: head -c ${WRITER_MB}000000 /dev/zero | base64 (program's own time)   load ${load()}`,
  );
  printTable([
    ['path', 'program', 'ratio to raw', 'daemon CPU/MB'],
    ...w.map(([n, t, cpu]) => [
      n,
      `${t} ms`,
      (t / rawMs).toFixed(2),
      cpu === null ? '' : `${(cpu / outMb).toFixed(1)} ms`,
    ]),
  ]);
  for (const [n, t, , target] of w.slice(1)) {
    if (target === null) continue;
    targets.push([
      `writer test, ${n}`,
      `${t} ms`,
      `raw node-pty ${rawMs} ms`,
      `${(t / rawMs).toFixed(2)}×`,
      `≤ ${target}×`,
      verdict(t / rawMs <= target),
    ]);
  }
}

await main();
process.exit(0);
