/**
 * Where the daemon's CPU goes, per pipeline stage (issue 26): runs one output scenario against a daemon
 * started with `--cpu-prof`, stops it (the profiles are written at exit, one per thread), and prints each
 * stage's share of the busy samples and the CPU ms per MB it stands for (the daemon's CPU time from /proc over
 * the run, all threads). Not part of `npm run bench`: run it by hand, under /work/bin/exclusive, e.g.
 *   npx tsx --conditions=source bench/daemon-profile.ts writer-none writer-attach stream-phone
 * Scenarios: writer-none | writer-attach | writer-phone (the writer test, BENCH_WRITER_MB, default 30) and
 * stream-attach | stream-phone (the marked stream, BENCH_STREAM_LINES, default 600,000 ≈ 32 MB).
 */
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon } from '../helpers/burrow-daemon.js';
import { LoadPhone } from '../helpers/load-phone.js';
import { cpuSeconds } from '../helpers/load-proc.js';
import { MarkedStreamReader, markedStreamCommand, undoOnlcr } from '../helpers/marked-stream.js';
import { printTable, sleep, until } from './bench-stats.js';
import { readProfiles, stageRows } from './cpu-profile.js';
import {
  attachCli,
  newSession,
  phoneAttach,
  programMs,
  SETUP_TIMEOUT_MS,
  STREAM_TIMEOUT_MS,
  writerCommand,
  writerOutputMb,
} from './output-paths.js';

const WRITER_MB = Number(process.env.BENCH_WRITER_MB ?? 30);
const STREAM_LINES = Number(process.env.BENCH_STREAM_LINES ?? 600_000);
const SCENARIOS = ['writer-none', 'writer-attach', 'writer-phone', 'stream-attach', 'stream-phone'];
/** After the output: the screen model finishes (its CPU is part of the run). */
const SETTLE_MS = 1500;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function run(scenario: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-prof-'));
  const phoneNeeded = scenario.endsWith('phone');
  const relay: RelayHandle | null = phoneNeeded ? await startRelay() : null;
  const daemon = await BurrowDaemon.start({ nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
  let phone: LoadPhone | null = null;
  let mb = 0;
  let cpuMs = 0;
  let extra = '';
  // The run's window on the monotonic clock V8's profiler stamps samples with (µs).
  let from = 0n;
  let to = 0n;
  try {
    if (relay !== null) {
      await daemon.enroll(relay.url);
      const paired = await daemon.pairPhone('profile phone');
      phone = new LoadPhone({ label: 'profile', pairing: paired.pairing, storage: paired.storage });
      phone.start();
      const ph = phone;
      await until(() => ph.connected, 'the phone connection', SETUP_TIMEOUT_MS, 10);
    }
    const file = join(dir, 'writer-ms');
    if (scenario.startsWith('writer')) {
      mb = writerOutputMb(WRITER_MB);
      const wait = scenario !== 'writer-none';
      const id = await newSession(daemon, writerCommand(WRITER_MB, file, wait));
      let go = () => {};
      if (scenario === 'writer-attach') {
        const c = attachCli(daemon, id, () => {});
        await until(c.painted, 'burrow attach to paint', SETUP_TIMEOUT_MS, 10);
        go = () => c.cli.write('\r');
      } else if (scenario === 'writer-phone') {
        const p = await phoneAttach(phone!, id, () => {});
        go = () => p.term.input('\r');
      }
      await sleep(300);
      const c0 = cpuSeconds(daemon.pid) ?? 0;
      from = process.hrtime.bigint();
      go();
      const t = await programMs(file);
      extra = `program ${t} ms`;
      await sleep(SETTLE_MS);
      to = process.hrtime.bigint();
      cpuMs = ((cpuSeconds(daemon.pid) ?? 0) - c0) * 1000;
    } else {
      const cmd = markedStreamCommand(STREAM_LINES);
      const id = await newSession(daemon, cmd);
      const reader = new MarkedStreamReader();
      let go: () => void;
      if (scenario === 'stream-attach') {
        const a = attachCli(
          daemon,
          id,
          undoOnlcr((b) => reader.push(b)),
        );
        await until(a.painted, 'burrow attach to paint', SETUP_TIMEOUT_MS, 10);
        go = () => a.cli.write('\r');
      } else {
        const p = await phoneAttach(phone!, id, (d) => reader.push(d));
        go = () => p.term.input('\r');
      }
      await sleep(300);
      const c0 = cpuSeconds(daemon.pid) ?? 0;
      const t0 = performance.now();
      from = process.hrtime.bigint();
      go();
      await until(() => reader.done, 'the end of the stream', STREAM_TIMEOUT_MS, 2);
      mb = reader.bytes / 1e6;
      extra = `${(mb / ((performance.now() - t0) / 1000)).toFixed(1)} MB/s`;
      await sleep(SETTLE_MS);
      to = process.hrtime.bigint();
      cpuMs = ((cpuSeconds(daemon.pid) ?? 0) - c0) * 1000;
    }
  } finally {
    phone?.stop();
    await daemon.stop();
    await relay?.stop();
  }
  const profiles = readProfiles(dir, { fromUs: Number(from / 1000n), toUs: Number(to / 1000n) });
  console.log(
    `\n${scenario}: ${mb.toFixed(1)} MB, daemon ${(cpuMs / mb).toFixed(1)} ms CPU per MB (${extra}), load ${load()}`,
  );
  for (const p of profiles) {
    console.log(`  ${p.file}: busy ${p.times.busyMs.toFixed(0)} ms, idle ${p.times.idleMs.toFixed(0)} ms`);
  }
  printTable(stageRows(profiles, cpuMs / mb));
}

const asked = process.argv.slice(2);
for (const s of asked)
  if (!SCENARIOS.includes(s)) throw new RangeError(`unknown scenario ${s}: ${SCENARIOS}`);
console.log(`daemon profile — load average at start: ${load()}`);
for (const s of asked.length > 0 ? asked : ['writer-none']) await run(s);
process.exit(0);
