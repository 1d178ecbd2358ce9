/**
 * Session pipeline benchmarks, printed beside their budgets (DESIGN §9; the agent brief):
 *  - attach-to-snapshot for a session holding 10,000 lines of 120 coloured columns (budget ≤ 100 ms),
 *    in-process and over the real control socket (connect + handshake + snapshot frame);
 *  - daemon RSS with 1 and with 50 idle sessions each holding 10,000 lines (budget ≤ 4 MB per extra session);
 *  - output throughput: raw node-pty vs the same bytes through the session pipeline (ring, taps, screen
 *    model, one viewer) (budget ≥ 50 MB/s).
 * Ratios are against baselines measured in the same run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import xtermHeadless from '@xterm/headless';
import * as pty from 'node-pty';
import { ControlClient } from '../src/control/control-client.js';
import { controlSocketPath } from '../src/control/control-paths.js';
import { readControlToken } from '../src/control/control-token.js';
import { HISTORY_SLACK_LINES, LIVE_SCROLLBACK_LINES, ScreenModel } from '../src/screen/screen-model.js';
import { HIBERNATE_AFTER_MS } from '../src/session/session.js';
import { HIBERNATE_SWEEP_MS, SessionRegistry } from '../src/session/session-registry.js';
import type { ViewerSink } from '../src/viewer/viewer.js';
import { testHome } from '../test/test-home.js';

const LINES = 10_000;
const COLS = 120;
const work = mkdtempSync(join(tmpdir(), 'burrow-bench-'));

function colouredLines(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) {
    const text = `${String(i).padStart(6, '0')} ${'lorem ipsum dolor sit amet '.repeat(4)}`.slice(
      0,
      COLS - 12,
    );
    s += `\x1b[38;5;${i % 256}m${text.slice(0, 40)}\x1b[1;48;2;10;${i % 200};90m${text.slice(40)}\x1b[0m\r\n`;
  }
  return s;
}

const tenK = join(work, 'tenk.txt');
writeFileSync(tenK, colouredLines(LINES));
const tenKBytes = readFileSync(tenK).byteLength;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, d = 1) => n.toFixed(d);
const row = (what: string, value: string, budget: string, ok: boolean) =>
  console.log(`${what.padEnd(52)} ${value.padStart(14)}   budget ${budget.padEnd(12)} ${ok ? 'ok' : 'OVER'}`);

async function waitFor(check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('bench timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function attachBench(): Promise<void> {
  const reg = new SessionRegistry({
    now: Date.now,
    env: { PATH: process.env.PATH },
    defaultShell: '/bin/sh',
    log: () => {},
  });
  const s = reg.create({
    cwd: '/tmp',
    command: ['/bin/sh', '-c', `cat ${tenK}; sleep 600`],
    cols: COLS,
    rows: 40,
  });
  await waitFor(() => s.info().offset >= tenKBytes);
  await s.snapshot();
  const times: number[] = [];
  let size = 0;
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const snap = await s.snapshot();
    times.push(performance.now() - t0);
    size = snap.data.length;
  }
  row(
    'attach snapshot, 10k lines held (in-process)',
    `${fmt(median(times))} ms`,
    '≤ 100 ms',
    median(times) <= 100,
  );
  console.log(`  snapshot carries ${size} chars (live scrollback); older lines page in via history()`);
  const ht: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    await s.history(9000, 1000);
    ht.push(performance.now() - t0);
  }
  row('history page of 1000 old lines', `${fmt(median(ht), 2)} ms`, '—', true);
  await reg.killAll();
}

async function daemonBench(): Promise<void> {
  const stateDir = join(mkdtempSync(join(tmpdir(), 'bb-')), 's');
  const bin = new URL('../bin/burrow.js', import.meta.url).pathname;
  const env = {
    PATH: process.env.PATH,
    HOME: testHome(),
    BURROW_STATE_DIR: stateDir,
  };
  const proc = spawn(process.execPath, ['--expose-gc', bin, 'daemon'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  proc.stderr.on('data', (d: Buffer) => {
    log += d.toString();
  });
  try {
    await waitFor(() => log.includes('listening on'));
    const token = readControlToken(stateDir)!;
    const sock = controlSocketPath(stateDir);
    const c = await ControlClient.connect(sock, token);
    const rss = () =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))![1]) / 1024;
    const baseRss = rss();
    const fill = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await c.request('create', {
          cwd: '/tmp',
          command: ['/bin/sh', '-c', `cat ${tenK}; exec sleep 3600`],
          cols: COLS,
          rows: 40,
        });
      }
      for (;;) {
        const l = (await c.request('list', {})) as { sessions: { offset: number }[] };
        if (l.sessions.every((x) => x.offset >= tenKBytes)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      // Let the models finish parsing and the heap settle.
      await new Promise((r) => setTimeout(r, 3000));
    };
    // Sessions nobody watches park their screen model after HIBERNATE_AFTER_MS quiet (swept every
    // HIBERNATE_SWEEP_MS); measure both just after the output and once parked.
    const parkWait = HIBERNATE_AFTER_MS + HIBERNATE_SWEEP_MS + 2000;
    await fill(1);
    const one = rss();
    await new Promise((r) => setTimeout(r, parkWait));
    const oneParked = rss();
    // Attach over the socket: connect + handshake + snapshot frame.
    const times: number[] = [];
    const list = (await c.request('list', {})) as { sessions: { id: string }[] };
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const a = await ControlClient.connect(sock, token);
      await new Promise<void>((resolve, reject) => {
        void a
          .attach(
            { session: list.sessions[0]!.id },
            { snapshot: () => resolve(), output: () => {}, event: () => {}, end: (e) => e && reject(e) },
          )
          .catch(reject);
      });
      times.push(performance.now() - t0);
      a.close();
    }
    row(
      'attach over the control socket, 10k lines held',
      `${fmt(median(times))} ms`,
      '≤ 100 ms',
      median(times) <= 100,
    );
    await fill(49);
    const fifty = rss();
    await new Promise((r) => setTimeout(r, parkWait));
    const fiftyParked = rss();
    const per = (fifty - one) / 49;
    const perParked = (fiftyParked - oneParked) / 49;
    console.log(
      `  daemon RSS: empty ${fmt(baseRss)} MB, 1 session ${fmt(one)} MB, 50 sessions ${fmt(fifty)} MB`,
    );
    console.log(`  after parking: 1 session ${fmt(oneParked)} MB, 50 sessions ${fmt(fiftyParked)} MB`);
    row('RSS per additional 10k-line session, just quiet', `${fmt(per, 2)} MB`, '≤ 4 MB', per <= 4);
    row(
      'RSS per additional 10k-line session, idle (parked)',
      `${fmt(perParked, 2)} MB`,
      '≤ 4 MB',
      perParked <= 4,
    );
    c.close();
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
}

async function throughputBench(): Promise<void> {
  const big = join(work, 'big.txt');
  const chunk =
    colouredLines(2000) + 'plain text line with nothing special in it at all, just words\r\n'.repeat(2000);
  const reps = Math.ceil((48 * 1024 * 1024) / Buffer.byteLength(chunk));
  writeFileSync(big, chunk.repeat(reps));
  const bytes = readFileSync(big).byteLength;
  const cmd = ['/bin/sh', '-c', `cat ${big}`] as const;

  const raw = async () => {
    const t0 = performance.now();
    let n = 0;
    const p = pty.spawn(cmd[0], cmd.slice(1), {
      cols: COLS,
      rows: 40,
      encoding: null,
    } as pty.IPtyForkOptions);
    p.onData((d: string | Buffer) => {
      n += typeof d === 'string' ? Buffer.byteLength(d) : d.byteLength;
    });
    await new Promise<void>((r) => p.onExit(() => r()));
    await waitFor(() => n >= bytes * 0.99, 5000).catch(() => {});
    return { ms: performance.now() - t0, n };
  };

  const piped = async () => {
    const reg = new SessionRegistry({
      now: Date.now,
      env: { PATH: process.env.PATH },
      defaultShell: '/bin/sh',
      log: () => {},
    });
    reg.addTap({ output: () => {} });
    let got = 0;
    let exited = false;
    const viewer: ViewerSink = {
      id: 'bench',
      kind: 'local',
      backlog: () => 0,
      deliver: (e) => {
        if (e.type === 'output') got += e.data.byteLength;
        if (e.type === 'exit') exited = true;
      },
      close: () => {},
    };
    const t0 = performance.now();
    const s = reg.create({ cwd: '/tmp', command: [...cmd], cols: COLS, rows: 40 });
    s.attach(viewer);
    // The exit reaches the viewer once every byte did; the snapshot after it waits for the screen model (on
    // its worker) to have parsed every byte: together, the full pipeline's time.
    await waitFor(() => exited, 600_000);
    await s.snapshot();
    const ms = performance.now() - t0;
    await reg.killAll();
    return { ms, n: got };
  };

  // Parser-only baselines in the same run: a bare headless xterm, and our ScreenModel (xterm + history).
  const data = readFileSync(big);
  const feed = async (write: (c: Uint8Array) => void, done: () => Promise<void>) => {
    const t0 = performance.now();
    // Paced like the session pipeline (which pauses the PTY at MAX_MODEL_BACKLOG_BYTES): xterm discards
    // writes once 50 MB are pending.
    for (let o = 0; o < data.byteLength; o += 4096) {
      write(data.subarray(o, o + 4096));
      if (o % (1 << 20) === 0) await done();
    }
    await done();
    return performance.now() - t0;
  };
  const bare = async () => {
    const t = new xtermHeadless.Terminal({
      cols: COLS,
      rows: 40,
      scrollback: LIVE_SCROLLBACK_LINES + HISTORY_SLACK_LINES,
      allowProposedApi: true,
    });
    const ms = await feed(
      (c) => t.write(c),
      () => new Promise<void>((r) => t.write('', r)),
    );
    t.dispose();
    return ms;
  };
  const model = async () => {
    const m = new ScreenModel(COLS, 40);
    const ms = await feed(
      (c) => m.write(c),
      () => m.whenParsed(() => undefined),
    );
    m.dispose();
    return ms;
  };
  const bareMs = Math.min(await bare(), await bare());
  const modelMs = Math.min(await model(), await model());
  row('bare @xterm/headless parse (baseline)', `${fmt(bytes / 1e6 / (bareMs / 1000))} MB/s`, '—', true);
  row(
    'ScreenModel parse (xterm + history harvest)',
    `${fmt(bytes / 1e6 / (modelMs / 1000))} MB/s`,
    '—',
    true,
  );
  console.log(`  model / bare xterm = ${fmt(bareMs / modelMs, 2)}`);

  const r1 = await raw();
  const p1 = await piped();
  const r2 = await raw();
  const p2 = await piped();
  const rawMBs = bytes / 1e6 / (Math.min(r1.ms, r2.ms) / 1000);
  const pipeMBs = bytes / 1e6 / (Math.min(p1.ms, p2.ms) / 1000);
  console.log(`  ${fmt(bytes / 1e6)} MB of mixed coloured / plain output`);
  row('raw node-pty throughput (baseline)', `${fmt(rawMBs)} MB/s`, '—', true);
  row(
    'session pipeline throughput (ring+tap+model+viewer)',
    `${fmt(pipeMBs)} MB/s`,
    '≥ 50 MB/s',
    pipeMBs >= 50,
  );
  console.log(`  pipeline / raw = ${fmt(pipeMBs / rawMBs, 2)}`);
}

/** Retained JS heap + typed arrays per idle 10k-line session, in this process after GC (no PTY garbage). */
async function retainedBench(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    console.log('  (run with --expose-gc for the retained-memory row)');
    return;
  }
  const data = readFileSync(tenK);
  // Two GC rounds a tick apart: a disposed xterm is only unreachable once its write loop has unwound.
  const used = async () => {
    gc();
    await new Promise((r) => setTimeout(r, 50));
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const before = await used();
  const models: ScreenModel[] = [];
  for (let i = 0; i < 20; i++) {
    const m = new ScreenModel(COLS, 40);
    for (let o = 0; o < data.byteLength; o += 4096) m.write(data.subarray(o, o + 4096));
    await m.whenParsed(() => undefined);
    models.push(m);
  }
  const per = ((await used()) - before) / 20 / 1e6;
  row('retained per 10k-line screen model (heap+buffers)', `${fmt(per, 2)} MB`, '—', true);
  const parkedCount = (await Promise.all(models.map((m) => m.hibernate()))).filter(Boolean).length;
  if (parkedCount !== models.length) console.log(`  only ${parkedCount} of ${models.length} models parked`);
  await new Promise((r) => setTimeout(r, 200)); // let off-thread history compression land
  const parked = ((await used()) - before) / 20 / 1e6;
  row('retained per parked (idle) screen model', `${fmt(parked, 2)} MB`, '—', true);
  console.log(
    `  + ${256} KiB output ring per session; live ${LIVE_SCROLLBACK_LINES} + slack ${HISTORY_SLACK_LINES} lines in xterm`,
  );
  for (const m of models) m.dispose();
}

console.log(
  `machine load average: ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (numbers are only comparable within a run)`,
);
/** BENCH_ONLY=attach|retained|daemon|throughput runs one part. */
const only = process.env.BENCH_ONLY;
if (!only || only === 'attach') await attachBench();
if (!only || only === 'retained') await retainedBench();
if (!only || only === 'daemon') await daemonBench();
if (!only || only === 'throughput') await throughputBench();
