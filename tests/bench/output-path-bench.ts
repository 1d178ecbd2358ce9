/**
 * Output-path bench (issues 14 and 26; `npm run bench -w tests`). A real daemon (the built CLI, its own
 * process), the relay under `wrangler dev`, a phone (Pocket's client core in this process, a socket without
 * permessage-deflate as the relay now answers), and `burrow attach` (the built CLI in a pty), each beside
 * baselines run in this same process and run: raw node-pty, the two-pty floor (a bare Node forwarder), the
 * ttyd baseline (ttyd-baseline/: a ws + node-pty forwarder speaking ttyd's protocol, its own process) and a
 * bare relay echo. Every issue target is printed as a ratio with met / MISSED, with the load average.
 *  1. keystroke echo (`stty raw -echo; exec cat`): bare node-pty, two ptys and a bare forwarder, the ttyd
 *     baseline, local attach, bare relay, full chain;
 *  2. throughput of a marked 100 MB stream (tests/helpers/marked-stream.ts), checked byte for byte (count and
 *     SHA-256), with the daemon's (and the baseline's) CPU per MB;
 *  3. the writer test: `head -c 60000000 /dev/zero | base64`, timed by the program itself, with no viewer,
 *     with `burrow attach`, with the phone, and with a ttyd-baseline viewer.
 * BENCH_STREAM_LINES and BENCH_WRITER_MB shrink parts 2 and 3 on a slow machine; BENCH_PARTS=1,3 runs only
 * those parts.
 */
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as pty from 'node-pty';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
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
import {
  attachCli,
  bareForwarder,
  newSession,
  phoneAttach,
  programMs,
  SETUP_TIMEOUT_MS,
  STREAM_TIMEOUT_MS,
  writerCommand,
  writerOutputMb,
} from './output-paths.js';
import { connectBaseline, startBaseline } from './ttyd-baseline/client.js';

const envInt = (name: string, dflt: number, max: number) => {
  const n = Number(process.env[name] ?? dflt);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new RangeError(`${name} must be an integer 1..${max}`);
  return n;
};
/** 1.85 M lines × 54 bytes ≈ 100 MB. */
const STREAM_LINES = envInt('BENCH_STREAM_LINES', 1_850_000, 20_000_000);
const WRITER_MB = envInt('BENCH_WRITER_MB', 60, 1000);
const PARTS = new Set((process.env.BENCH_PARTS ?? '1,2,3').split(',').map(Number));

/** Issue 26's targets (the ttyd baseline and raw node-pty measured in the same run). */
const TARGET = {
  /** local attach echo p50 ≤ 1.5 × the ttyd baseline's */
  attachEchoVsBaseline: 1.5,
  /** local attach echo p50 − the two-pty floor's p50 */
  attachEchoOverFloorMs: 0.05,
  /** full-chain and local-attach throughput ≥ the baseline's */
  throughputVsBaseline: 1,
  daemonCpuMsPerMbNoViewer: 15,
  daemonCpuMsPerMbViewer: 20,
  writerNoViewer: 1.1,
  writerViewer: 1.3,
};

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const work = mkdtempSync(join(tmpdir(), 'burrow-output-bench-'));

type Daemon = BurrowDaemon;

// ---- measuring -----------------------------------------------------------------------------------------

interface Throughput {
  readonly bytes: number;
  readonly seconds: number;
  readonly ok: boolean;
  /** CPU ms per MB of the process that serves the viewer (the daemon, or the baseline's forwarder). */
  readonly serverCpuMsPerMb: number | null;
  readonly workerdCpuMsPerMb: number | null;
  readonly resyncs: number;
}

async function measureStream(
  start: () => void,
  reader: MarkedStreamReader,
  expected: StreamDigest,
  cpu: { server?: number; workerd?: number[] },
  resyncs: () => number = () => 0,
): Promise<Throughput> {
  const cpuOf = (pids: number[]) => pids.reduce((s, p) => s + (cpuSeconds(p) ?? 0), 0);
  const d0 = cpu.server === undefined ? 0 : cpuOf([cpu.server]);
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
    serverCpuMsPerMb: cpu.server === undefined ? null : ((cpuOf([cpu.server]) - d0) * 1000) / mb,
    workerdCpuMsPerMb: cpu.workerd === undefined ? null : ((cpuOf(cpu.workerd) - w0) * 1000) / mb,
    resyncs: resyncs(),
  };
}

let writerNo = 0;
const writerFile = () => join(work, `writer-${writerNo++}`);
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

    if (PARTS.has(1)) await echoPart(daemon, relay, ph, targets);
    if (PARTS.has(2)) await throughputPart(daemon, ph, expected, targets);
    if (PARTS.has(3)) await writerPart(daemon, ph, targets);
  } finally {
    phone?.stop();
    await daemon.stop();
    await relay.stop();
  }
  console.log(`\nissue 26 targets (load average now ${load()}):`);
  printTable(targets);
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

// ---- 1. echo --------------------------------------------------------------------------------------------

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
      'ttyd baseline (ws + node-pty)',
      async () => {
        const server = await startBaseline(ECHO_COMMAND);
        let term: Awaited<ReturnType<typeof connectBaseline>> | null = null;
        const counter = byteCounter();
        let text = '';
        term = await connectBaseline(server, { cols: 80, rows: 24 }, (d) => {
          if (text.length < 64) text += d.toString('latin1');
          counter.add(d.byteLength);
        });
        const t = term;
        return counterEcho(
          (b) => t.input(b),
          () => text.includes('ready'),
          counter,
          async () => {
            t.close();
            await server.stop();
          },
        );
      },
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
  const [ptyE, floorE, ttydE, attachE, relayE, fullE] = results.map(([, r]) => r.backToBack.p50) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  targets.push([
    'local attach echo p50',
    ms(attachE),
    `ttyd baseline ${ms(ttydE)}`,
    `${(attachE / ttydE).toFixed(2)}×`,
    `≤ ${TARGET.attachEchoVsBaseline}×`,
    verdict(attachE / ttydE <= TARGET.attachEchoVsBaseline),
  ]);
  targets.push([
    'local attach echo p50 − two-pty floor',
    ms(attachE),
    `bare forwarder ${ms(floorE)}`,
    us(attachE - floorE),
    `≤ ${us(TARGET.attachEchoOverFloorMs)}`,
    verdict(attachE - floorE <= TARGET.attachEchoOverFloorMs),
  ]);
  // Not issue 26 targets: the bare pty beside them, and what the full chain adds over a bare relay echo.
  targets.push(['  (bare node-pty echo)', ms(ptyE), '', '', '', '']);
  targets.push([
    '  (full-chain echo p50 − bare relay p50)',
    ms(fullE),
    `bare relay ${ms(relayE)}`,
    us(fullE - relayE),
    '',
    '',
  ]);
}

// ---- 2. throughput --------------------------------------------------------------------------------------

async function throughputPart(daemon: Daemon, ph: LoadPhone, expected: StreamDigest, targets: string[][]) {
  const workerd = descendantsNamed(process.pid, 'workerd');
  const cmd = markedStreamCommand(STREAM_LINES);

  const rawReader = new MarkedStreamReader();
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

  // ttyd's floor: the forwarder process reads the pty and sends each read as a ttyd OUTPUT message.
  const server = await startBaseline(cmd);
  const ttydReader = new MarkedStreamReader();
  const ttydTerm = await connectBaseline(server, { cols: 80, rows: 24 }, (d) => ttydReader.push(d));
  await sleep(200);
  const ttyd = await measureStream(() => ttydTerm.input('\r'), ttydReader, expected, { server: server.pid });
  ttydTerm.close();
  await server.stop();

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
    server: daemon.pid,
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
    { server: daemon.pid, workerd },
    () => p.seen.resyncs,
  );
  p.term.detach();
  await daemon.cli('kill', phoneId);

  const mbps = (t: Throughput) => t.bytes / 1e6 / t.seconds;
  console.log(
    `\n2. throughput, ${(expected.bytes / 1e6).toFixed(0)} MB marked stream (seq)   load ${load()}`,
  );
  printTable([
    ['path', 'MB', 's', 'MB/s', 'ratio to ttyd', 'byte-exact', 'server CPU/MB', 'workerd CPU/MB'],
    ...(
      [
        ['raw node-pty', raw],
        ['two ptys, bare Node forwarder (floor of any attach)', forwarded],
        ['ttyd baseline (ws + node-pty forwarder)', ttyd],
        ['local attach (burrow attach in a pty)', attached],
        ['full chain (phone core)', chain],
      ] as const
    ).map(([n, t]) => [
      n,
      (t.bytes / 1e6).toFixed(1),
      t.seconds.toFixed(2),
      mbps(t).toFixed(1),
      (mbps(t) / mbps(ttyd)).toFixed(2),
      t.ok ? 'yes' : `NO (${t.resyncs} resyncs)`,
      t.serverCpuMsPerMb === null ? '' : `${t.serverCpuMsPerMb.toFixed(1)} ms`,
      t.workerdCpuMsPerMb === null ? '' : `${t.workerdCpuMsPerMb.toFixed(1)} ms`,
    ]),
  ]);
  console.log(`phone socket extensions: ${JSON.stringify(ph.socket.extensions)}`);
  for (const [name, t] of [
    ['full-chain throughput', chain],
    ['local attach throughput', attached],
  ] as const) {
    targets.push([
      name,
      `${mbps(t).toFixed(1)} MB/s`,
      `ttyd baseline ${mbps(ttyd).toFixed(1)} MB/s`,
      `${(mbps(t) / mbps(ttyd)).toFixed(2)}×`,
      `≥ ${TARGET.throughputVsBaseline}×`,
      verdict(t.ok && mbps(t) / mbps(ttyd) >= TARGET.throughputVsBaseline),
    ]);
  }
  targets.push([
    '  (ttyd baseline vs raw node-pty)',
    `${mbps(ttyd).toFixed(1)} MB/s`,
    `raw node-pty ${mbps(raw).toFixed(1)} MB/s`,
    `${(mbps(ttyd) / mbps(raw)).toFixed(2)}×`,
    '',
    '',
  ]);
  for (const [name, t] of [
    ['daemon CPU per MB, phone attached (stream)', chain],
    ['daemon CPU per MB, burrow attach (stream)', attached],
  ] as const) {
    targets.push([
      name,
      `${t.serverCpuMsPerMb!.toFixed(1)} ms`,
      `ttyd baseline ${ttyd.serverCpuMsPerMb!.toFixed(1)} ms`,
      `${(t.serverCpuMsPerMb! / ttyd.serverCpuMsPerMb!).toFixed(2)}×`,
      `≤ ${TARGET.daemonCpuMsPerMbViewer} ms`,
      verdict(t.serverCpuMsPerMb! <= TARGET.daemonCpuMsPerMbViewer),
    ]);
  }
}

// ---- 3. writer test -------------------------------------------------------------------------------------

async function writerPart(daemon: Daemon, ph: LoadPhone, targets: string[][]) {
  const outMb = writerOutputMb(WRITER_MB);
  const cpuPerMb = (pid: number, before: number) => (((cpuSeconds(pid) ?? 0) - before) * 1000) / outMb;
  /** name, program ms, server CPU ms per MB, ratio target, CPU target */
  const w: Array<[string, number, number | null, number | null, number | null]> = [];
  {
    const file = writerFile();
    const wc = writerCommand(WRITER_MB, file, false);
    const rp = pty.spawn(wc[0]!, wc.slice(1), { cols: 80, rows: 24, encoding: null });
    rp.onData(() => {});
    w.push(['raw node-pty', await programMs(file), null, null, null]);
    rp.kill();
  }
  {
    // The floor of any viewer that paints into a local terminal: a second pty and a bare forwarder.
    const file = writerFile();
    const fwd = bareForwarder(writerCommand(WRITER_MB, file, true), () => {});
    await sleep(500);
    fwd.write('\r');
    w.push(['two ptys, bare Node forwarder', await programMs(file), null, null, null]);
    fwd.kill();
  }
  {
    const file = writerFile();
    const server = await startBaseline(writerCommand(WRITER_MB, file, true));
    const term = await connectBaseline(server, { cols: 80, rows: 24 }, () => {});
    await sleep(300);
    const c0 = cpuSeconds(server.pid) ?? 0;
    term.input('\r');
    const t = await programMs(file);
    w.push(['ttyd baseline viewer', t, cpuPerMb(server.pid, c0), null, null]);
    term.close();
    await server.stop();
  }
  {
    const file = writerFile();
    const d0 = cpuSeconds(daemon.pid) ?? 0;
    const id = await newSession(daemon, writerCommand(WRITER_MB, file, false));
    const t = await programMs(file);
    w.push([
      'daemon, no viewer',
      t,
      cpuPerMb(daemon.pid, d0),
      TARGET.writerNoViewer,
      TARGET.daemonCpuMsPerMbNoViewer,
    ]);
    await daemon.cli('kill', id);
  }
  {
    const file = writerFile();
    const id = await newSession(daemon, writerCommand(WRITER_MB, file, true));
    const c = attachCli(daemon, id, () => {});
    await until(c.painted, 'burrow attach to paint', SETUP_TIMEOUT_MS, 10);
    await sleep(200);
    const d0 = cpuSeconds(daemon.pid) ?? 0;
    c.cli.write('\r');
    const t = await programMs(file);
    w.push([
      'daemon, burrow attach',
      t,
      cpuPerMb(daemon.pid, d0),
      TARGET.writerViewer,
      TARGET.daemonCpuMsPerMbViewer,
    ]);
    c.cli.kill();
    await daemon.cli('kill', id);
  }
  {
    const file = writerFile();
    const id = await newSession(daemon, writerCommand(WRITER_MB, file, true));
    const pa = await phoneAttach(ph, id, () => {});
    const d0 = cpuSeconds(daemon.pid) ?? 0;
    pa.term.input('\r');
    const t = await programMs(file);
    w.push([
      'daemon, phone attached',
      t,
      cpuPerMb(daemon.pid, d0),
      TARGET.writerViewer,
      TARGET.daemonCpuMsPerMbViewer,
    ]);
    pa.term.detach();
    await daemon.cli('kill', id);
  }
  const rawMs = w[0]![1];
  console.log(
    `\n3. writer test: head -c ${WRITER_MB}000000 /dev/zero | base64, ${outMb.toFixed(1)} MB (program's own time)   load ${load()}`,
  );
  printTable([
    ['path', 'program', 'ratio to raw', 'server CPU/MB'],
    ...w.map(([n, t, cpu]) => [
      n,
      `${t} ms`,
      (t / rawMs).toFixed(2),
      cpu === null ? '' : `${cpu.toFixed(1)} ms`,
    ]),
  ]);
  for (const [n, t, cpu, ratio, cpuTarget] of w.slice(1)) {
    if (ratio === null) {
      targets.push([
        `  (writer test, ${n})`,
        `${t} ms`,
        `raw node-pty ${rawMs} ms`,
        `${(t / rawMs).toFixed(2)}×`,
        '',
        '',
      ]);
      continue;
    }
    targets.push([
      `writer test, ${n}`,
      `${t} ms`,
      `raw node-pty ${rawMs} ms`,
      `${(t / rawMs).toFixed(2)}×`,
      `≤ ${ratio}×`,
      verdict(t / rawMs <= ratio),
    ]);
    if (cpu !== null && cpuTarget !== null) {
      targets.push([
        `daemon CPU per MB, writer test, ${n.replace('daemon, ', '')}`,
        `${cpu.toFixed(1)} ms`,
        '',
        '',
        `≤ ${cpuTarget} ms`,
        verdict(cpu <= cpuTarget),
      ]);
    }
  }
}

await main();
process.exit(0);
