/**
 * Issue 8 "Load", one Burrow: a REAL daemon (built CLI) behind a real relay (`wrangler dev`), phones paired the
 * real way and connected with Pocket's client core, fifty bash sessions printing all the time, and one idle
 * raw-mode `cat` whose keystroke echo is timed.
 *
 * - Ten load phones (connections from DEVICES paired devices; see there why), each from its own simulated
 *   source address (load-phone.ts says why), each attached to ten busy sessions, so every session has two
 *   viewers. Printed: 50 × BUSY_BYTES_PER_SECOND ≈ 160 KB/s (≈ 320 KB/s delivered to the ten), plus the flood.
 * - Echo: a separate phone in its own process (load-echo-phone.ts: one event loop per phone, as on real
 *   devices), also watching ten busy sessions, types one keystroke at a time (the next LOAD_ECHO_GAP_MS after
 *   the echo) for the whole window, ≥ MIN_KEYSTROKES; p99 < 50 ms is the issue's own bound.
 * - Daemon RSS sampled every 250 ms (VmRSS); peak < MAX_DAEMON_RSS_MIB and the last third's peak not above the
 *   first third's + RSS_GROWTH_MARGIN_MIB.
 * - The slow phone: attached to the flood session (≈ 540 KB/s) and two busy ones, then it stops reading its
 *   socket (ws.pause(): TCP backpressure builds back to the relay) for SLOW_PAUSE_MS. When it reads again it
 *   must be resynced (a fresh snapshot), not handed everything printed meanwhile. The relay (workerd) cannot
 *   say how much it holds for one phone (no `bufferedAmount`), so this rests on end-to-end flow control: the
 *   phone acknowledges what it took in (protocol R-FLOW-1) and the Burrow stops feeding a phone whose
 *   unacknowledged bytes pass the per-viewer bound, then resyncs it once it reads again.
 *
 * `LOAD_SECONDS` (default 20) sets the load window; `npm run load -w tests` runs it for minutes.
 */
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { POCKET_KEEPALIVE, type Snapshot } from '@burrow/pocket/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon, type PairedPhone, until } from '../helpers/burrow-daemon.js';
import { type EchoPhoneRun, startEchoPhone } from '../helpers/load-echo-phone.js';
import { figure, LOAD_SECONDS, loadSeconds } from '../helpers/load-figures.js';
import { LoadPhone } from '../helpers/load-phone.js';
import { cpuSeconds, descendantsNamed, RssSampler } from '../helpers/load-proc.js';
import {
  BUSY_BYTES_PER_SECOND,
  busyCommand,
  ECHO_COMMAND,
  FLOOD_BYTES_PER_SECOND,
  floodCommand,
  makeThrottleFifo,
} from '../helpers/load-workload.js';

const PHONES = 10;
const BUSY_SESSIONS = 50;
const SESSIONS_PER_PHONE = 10;
const MIN_KEYSTROKES = 200;
const LOAD_ECHO_GAP_MS = 20;
/** The bound. */
const ECHO_P99_BOUND_MS = 50;
const MAX_DAEMON_RSS_MIB = 600;
/** "Stops growing": the last third's peak may exceed the first third's by at most this (GC timing, arenas). */
const RSS_GROWTH_MARGIN_MIB = 48;
/**
 * The slow phone's pause: a third of the window, 10 … 100 s. Long enough for several MB to be printed at it
 * (more than loopback's TCP buffers hold), short of the slow phone's own stretched keep-alive below.
 */
const SLOW_PAUSE_MS = Math.min(100_000, Math.max(10_000, Math.round((LOAD_SECONDS * 1000) / 3)));
/** Pocket's keep-alive for the slow phone: a phone that stopped reading is not "dead" for this test. */
const SLOW_KEEPALIVE = { ...POCKET_KEEPALIVE, deadAfterMs: 120_000 };
/** How long the slow phone may take to catch up once it reads again. */
const CATCH_UP_TIMEOUT_MS = 60_000;
/**
 * Devices paired (`burrow pair --yes` + Pocket's pairWithOffer, one after another: two at once failed their
 * handshake here). The eleven connections are spread over them (`deviceOf`): pairing eleven took ~55 s on the
 * loaded 2-core machine, over the file's budget. Connections start one after another, so each handshake
 * timestamp is above the last the Burrow saw from that device (DESIGN §4.2).
 */
const DEVICES = 2;
/** The echo phone's device: paired after the DEVICES, used by no other connection. */
const ECHO_DEVICE = DEVICES;
const deviceOf = (connection: number) => connection % DEVICES;

let relay: RelayHandle;
let daemon: BurrowDaemon;
const paired: PairedPhone[] = [];

beforeAll(async () => {
  const t0 = performance.now();
  relay = await startRelay();
  daemon = await BurrowDaemon.start({ env: { PS1: '$ ', HISTFILE: '/dev/null' } });
  const enrolled = await daemon.cli('enroll', '--relay', relay.url, '--json');
  if (enrolled.code !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  for (let i = 0; i <= DEVICES; i++) paired.push(await daemon.pairPhone(`load phone ${i}`));
  figure('load-burrow setup', { ms: performance.now() - t0, devices: paired.length });
});

afterAll(async () => {
  await daemon?.stop();
  await relay?.stop();
});

interface Watch {
  bytes: number;
  /** The offset the phone's screen reflects (last snapshot's, advanced by each output). */
  offset: number;
  attached: number;
  resyncs: number;
}

function watch(phone: LoadPhone, session: string): Watch {
  const w: Watch = { bytes: 0, offset: 0, attached: 0, resyncs: 0 };
  phone.conn.attach(
    session,
    { cols: 80, rows: 24 },
    {
      onSnapshot: (s: Snapshot) => {
        w.offset = s.offset;
        if (s.kind === 'resync') w.resyncs++;
        else w.attached++;
      },
      onOutput: (d, offset) => {
        w.bytes += d.length;
        w.offset = offset + d.length;
      },
    },
  );
  return w;
}

interface SlowResult {
  readonly pausedMs: number;
  /** Flood bytes printed while the phone read nothing (from a reading phone's directory; ±2 s refresh). */
  readonly printedWhilePaused: number;
  /** Output bytes (not snapshots) the slow phone received from its pause until it caught up. */
  readonly receivedAfterPause: number;
  readonly resyncs: number;
  readonly catchUpMs: number;
  /** From the pause until caught up (Date.now() ms): echo samples inside it are reported apart. */
  readonly window: readonly [number, number];
}

interface LoadResult {
  readonly seconds: number;
  readonly rtts: readonly number[];
  readonly p99: number;
  readonly drops: number;
  readonly allConnected: boolean;
  readonly deliveredBps: number;
  readonly rssPeakMib: number;
  readonly rssThirds: { readonly first: number; readonly last: number };
  readonly slow: SlowResult;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function quantile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** The session's output offset as a phone's directory has it (refreshed within DIRECTORY_REFRESH_MS, 2 s). */
function sessionOffset(phone: LoadPhone, session: string): number {
  return phone.conn.sessions.get(session)?.outputOffset ?? 0;
}

/** The whole scenario; prints its figures and returns what the checks below assert on. */
async function runLoad(seconds: number): Promise<LoadResult> {
  const connection = (i: number, label: string, keepalive: typeof SLOW_KEEPALIVE | null = null) => {
    const device = paired[deviceOf(i)]!;
    const base = { label, pairing: device.pairing, storage: device.storage };
    return new LoadPhone(keepalive === null ? base : { ...base, keepalive });
  };
  const phones = Array.from({ length: PHONES }, (_, i) => connection(i, `phone ${i}`));
  const slow = connection(PHONES, 'slow phone', SLOW_KEEPALIVE);
  const all = [...phones, slow];
  let daemonRss: RssSampler | null = null;
  let relayRss: RssSampler | null = null;
  let echo: EchoPhoneRun | null = null;
  try {
    for (const p of all) {
      p.start();
      await until(() => p.connected, `${p.label} connected`, 30_000);
    }
    const lead = phones[0]!;
    const fifo = makeThrottleFifo();
    const cwd = mkdtempSync(join(tmpdir(), 'burrow-load-cwd-'));
    const create = (argv: string[], name: string) =>
      lead.conn.create({ argv, cwd, name, cols: 80, rows: 24 });
    const busy: string[] = [];
    for (let i = 0; i < BUSY_SESSIONS; i++) busy.push(await create(busyCommand(fifo, `s${i}`), `busy ${i}`));
    const flood = await create(floodCommand(fifo), 'flood');
    const echoSession = await create(ECHO_COMMAND, 'echo');
    await until(() => all.every((p) => p.conn.sessions.has(echoSession)), 'every directory', 30_000);

    // Phone p watches busy sessions 5p … 5p+9 (mod 50): ten each, and every session has two viewers.
    const watches: Watch[] = [];
    phones.forEach((p, i) => {
      for (let k = 0; k < SESSIONS_PER_PHONE; k++) watches.push(watch(p, busy[(i * 5 + k) % BUSY_SESSIONS]!));
    });
    const slowFlood = watch(slow, flood);
    watch(slow, busy[0]!);
    watch(slow, busy[25]!);
    await until(() => watches.every((w) => w.attached > 0) && slowFlood.attached > 0, 'every attach', 30_000);

    // The timed phone, in its own process; it watches ten busy sessions too (not timed) and types once ready.
    echo = startEchoPhone({
      pairing: paired[ECHO_DEVICE]!.pairing,
      echoSession,
      watch: Array.from({ length: SESSIONS_PER_PHONE }, (_, k) => busy[(k * 7 + 3) % BUSY_SESSIONS]!),
      durationMs: seconds * 1000,
      minKeystrokes: MIN_KEYSTROKES,
      gapMs: LOAD_ECHO_GAP_MS,
    });
    await echo.ready;
    daemonRss = new RssSampler(() => [daemon.pid]);
    const relayPids = descendantsNamed(process.pid, 'workerd');
    relayRss = new RssSampler(() => relayPids);
    const cpuAtStart = {
      daemon: cpuSeconds(daemon.pid) ?? 0,
      relay: relayPids.reduce((n, pid) => n + (cpuSeconds(pid) ?? 0), 0),
      phones: process.cpuUsage(),
    };
    const loadStart = performance.now();
    const bytesAtStart = watches.reduce((n, w) => n + w.bytes, 0);

    // The slow phone stops reading a quarter into the window (at most 4 s in), for SLOW_PAUSE_MS.
    const slowPhase = (async (): Promise<SlowResult> => {
      await sleep(Math.min(4_000, (seconds * 1000) / 4));
      const before = { bytes: slowFlood.bytes, resyncs: slowFlood.resyncs, offset: slowFlood.offset };
      slow.socket.pause();
      const pausedAt = performance.now();
      const pausedAtEpoch = Date.now();
      await sleep(SLOW_PAUSE_MS);
      const printedWhilePaused = sessionOffset(lead, flood) - before.offset;
      slow.socket.resume();
      const resumedAt = performance.now();
      const target = before.offset + printedWhilePaused;
      await until(() => slowFlood.offset >= target, 'the slow phone to catch up', CATCH_UP_TIMEOUT_MS);
      return {
        pausedMs: resumedAt - pausedAt,
        printedWhilePaused,
        catchUpMs: performance.now() - resumedAt,
        window: [pausedAtEpoch, Date.now()],
        receivedAfterPause: slowFlood.bytes - before.bytes,
        resyncs: slowFlood.resyncs - before.resyncs,
      };
    })();

    const echoed = await echo.result;
    const rtts = echoed.rttsMs;
    const sentAt = echoed.sentAtEpochMs;
    const elapsedS = (performance.now() - loadStart) / 1000;
    // Share of one core each part used during the window: says whether a slow echo is ours or the machine's.
    const cpuPct = {
      daemon: (100 * ((cpuSeconds(daemon.pid) ?? 0) - cpuAtStart.daemon)) / elapsedS,
      relay:
        (100 * (relayPids.reduce((n, pid) => n + (cpuSeconds(pid) ?? 0), 0) - cpuAtStart.relay)) / elapsedS,
      testProcess: (() => {
        const u = process.cpuUsage(cpuAtStart.phones);
        return (u.user + u.system) / 1e4 / elapsedS;
      })(),
    };
    const load1 = loadavg()[0]!;
    const slowResult = await slowPhase;
    daemonRss.stop();
    relayRss.stop();

    const sorted = [...rtts].sort((a, b) => a - b);
    const [w0, w1] = slowResult.window;
    const inSlow = rtts.filter((_, i) => sentAt[i]! >= w0 && sentAt[i]! <= w1).sort((a, b) => a - b);
    const outsideSlow = rtts.filter((_, i) => sentAt[i]! < w0 || sentAt[i]! > w1).sort((a, b) => a - b);
    const qOf = (xs: number[], p: number) => (xs.length > 0 ? quantile(xs, p).toFixed(2) : 'n/a');
    const deliveredBps = (watches.reduce((n, w) => n + w.bytes, 0) - bytesAtStart) / elapsedS;
    const drops = phones.reduce((n, p) => n + p.drops, 0) + echoed.drops;
    const rssThirds = daemonRss.thirds();
    figure('load-burrow echo under load', {
      keystrokes: rtts.length,
      p50_ms: quantile(sorted, 0.5).toFixed(2),
      p99_ms: quantile(sorted, 0.99).toFixed(2),
      max_ms: sorted.at(-1)!.toFixed(2),
      cpu_pct_daemon: cpuPct.daemon,
      cpu_pct_relay: cpuPct.relay,
      cpu_pct_test_process_11_phones: cpuPct.testProcess,
      loadavg_1min: load1.toFixed(2),
    });
    figure('load-burrow echo split', {
      during_slow_phone_pause_and_catch_up_n: inSlow.length,
      during_p50_ms: qOf(inSlow, 0.5),
      during_p99_ms: qOf(inSlow, 0.99),
      outside_n: outsideSlow.length,
      outside_p50_ms: qOf(outsideSlow, 0.5),
      outside_p99_ms: qOf(outsideSlow, 0.99),
      echo_phone_loop_delay_p99_ms: echoed.loopDelayP99Ms.toFixed(2),
      echo_phone_loop_delay_max_ms: echoed.loopDelayMaxMs.toFixed(2),
    });
    figure('load-burrow traffic', {
      seconds: elapsedS.toFixed(1),
      printed_busy_Bps: BUSY_SESSIONS * BUSY_BYTES_PER_SECOND,
      printed_flood_Bps_nominal: FLOOD_BYTES_PER_SECOND,
      delivered_to_10_phones_Bps: deliveredBps,
      phone_drops: drops,
      normal_phone_resyncs: watches.reduce((n, w) => n + w.resyncs, 0),
    });
    figure('load-burrow daemon RSS', {
      peak_MiB: daemonRss.peakMib().toFixed(1),
      first_third_peak_MiB: rssThirds.first.toFixed(1),
      last_third_peak_MiB: rssThirds.last.toFixed(1),
      samples: daemonRss.samples.length,
    });
    figure('load-burrow relay (workerd) RSS', {
      peak_MiB: relayRss.samples.length > 0 ? relayRss.peakMib().toFixed(1) : 'n/a',
      first_sample_MiB: relayRss.samples.length > 0 ? (relayRss.samples[0]!.kib / 1024).toFixed(1) : 'n/a',
      processes: relayPids.length,
    });
    figure('load-burrow slow phone', {
      paused_ms: slowResult.pausedMs,
      printed_while_paused_B: slowResult.printedWhilePaused,
      received_after_pause_B: slowResult.receivedAfterPause,
      resyncs: slowResult.resyncs,
      catch_up_ms: slowResult.catchUpMs,
      slow_phone_drops: slow.drops,
    });
    return {
      seconds: elapsedS,
      rtts,
      p99: quantile(sorted, 0.99),
      drops,
      allConnected: all.every((p) => p.connected),
      deliveredBps,
      rssPeakMib: daemonRss.peakMib(),
      rssThirds,
      slow: slowResult,
    };
  } finally {
    daemonRss?.stop();
    relayRss?.stop();
    echo?.kill();
    for (const p of all) p.stop();
  }
}

describe('one Burrow under 10 phones × 50 busy sessions', () => {
  let result: LoadResult | undefined;

  it('runs the load window', { timeout: (LOAD_SECONDS + 150) * 1000 }, async () => {
    result = await runLoad(loadSeconds());
    expect(result.rtts.length).toBeGreaterThanOrEqual(MIN_KEYSTROKES);
  });

  it('echo on an idle session: p99 < 50 ms', () => {
    expect(result!.p99).toBeLessThan(ECHO_P99_BOUND_MS);
  });

  it('no phone connection dropped, and every busy session kept reaching its viewers', () => {
    expect(result!.drops).toBe(0);
    expect(result!.allConnected).toBe(true);
    // At least half of what the watched sessions printed arrived (each busy session has two viewers).
    const watchedBps = SESSIONS_PER_PHONE * PHONES * BUSY_BYTES_PER_SECOND;
    expect(result!.deliveredBps).toBeGreaterThan(watchedBps * 0.5);
  });

  it('daemon memory is bounded and stops growing', () => {
    expect(result!.rssPeakMib).toBeLessThan(MAX_DAEMON_RSS_MIB);
    expect(result!.rssThirds.last).toBeLessThanOrEqual(result!.rssThirds.first + RSS_GROWTH_MARGIN_MIB);
  });

  it('the slow phone catches up, with no drop', () => {
    expect(result!.slow.catchUpMs).toBeLessThan(CATCH_UP_TIMEOUT_MS);
    expect(result!.slow.printedWhilePaused).toBeGreaterThan(0);
  });

  it('the slow phone is resynced with a fresh snapshot, not replayed the whole backlog (R-FLOW-1)', () => {
    expect(result).toBeDefined();
    expect(result!.slow.resyncs).toBeGreaterThanOrEqual(1);
    expect(result!.slow.receivedAfterPause).toBeLessThan(result!.slow.printedWhilePaused / 2);
  });
});
