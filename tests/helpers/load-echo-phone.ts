/**
 * The timed phone of the Burrow load test, run as its OWN process (`tsx --conditions=source`), as a real phone
 * is its own device: in the test process it would share one event loop with ten phones decrypting the load,
 * and that loop's own delay (measured at up to ~120 ms there) would be counted as echo time.
 *
 * Input: one JSON line on stdin (EchoPhoneJob; it holds the device's keys, so not on the command line). It connects with Pocket's core from its own source address,
 * attaches to `watch` (busy sessions, counted but not timed) and to `echoSession` (a raw-mode `cat`), then
 * prints `ready`, and types one keystroke at a time, the next `gapMs` after the previous echo came back, for
 * `durationMs` and at least `minKeystrokes`. Output: one JSON line (EchoPhoneResult) on stdout, then it exits.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { MemoryPairingStorage, type PairingRecord } from '@burrow/pocket/core';
import { LoadPhone } from './load-phone.js';

export interface EchoPhoneJob {
  readonly pairing: PairingRecord;
  readonly echoSession: string;
  readonly watch: readonly string[];
  /** How long to keep typing once the echo session answers (ms). */
  readonly durationMs: number;
  readonly minKeystrokes: number;
  readonly gapMs: number;
}

export interface EchoPhoneResult {
  readonly rttsMs: number[];
  /** Date.now() when each keystroke was sent, to line samples up with the parent's events. */
  readonly sentAtEpochMs: number[];
  readonly watchedBytes: number;
  readonly drops: number;
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
}

/** Most keystrokes one run may time (a bound on the arrays, whatever the job asks). */
const MAX_KEYSTROKES = 100_000;
const ECHO_TIMEOUT_MS = 5_000;
const SETUP_TIMEOUT_MS = 30_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function waitFor(cond: () => boolean, what: string, ms: number) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`echo phone: timed out waiting for ${what}`);
    await sleep(10);
  }
}

async function run(job: EchoPhoneJob): Promise<EchoPhoneResult> {
  const storage = new MemoryPairingStorage();
  await storage.put(job.pairing);
  const phone = new LoadPhone({ label: 'echo phone', pairing: job.pairing, storage });
  phone.start();
  try {
    await waitFor(() => phone.connected, 'the connection', SETUP_TIMEOUT_MS);
    await waitFor(() => phone.conn.sessions.has(job.echoSession), 'the directory', SETUP_TIMEOUT_MS);
    let watchedBytes = 0;
    for (const session of job.watch)
      phone.conn.attach(
        session,
        { cols: 80, rows: 24 },
        {
          onSnapshot: () => {},
          onOutput: (d) => {
            watchedBytes += d.length;
          },
        },
      );
    let echoed = 0;
    let ready = false;
    let waiter: (() => void) | null = null;
    const term = phone.conn.attach(
      job.echoSession,
      { cols: 80, rows: 24 },
      {
        onSnapshot: (s) => {
          if (s.data.includes('ready')) ready = true;
        },
        onOutput: (d) => {
          if (new TextDecoder().decode(d).includes('ready')) ready = true;
          else {
            echoed += d.length;
            waiter?.();
          }
        },
      },
    );
    await waitFor(() => ready, 'the echo session', SETUP_TIMEOUT_MS);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const until = Date.now() + job.durationMs;
    process.stdout.write('ready\n');
    const rttsMs: number[] = [];
    const sentAtEpochMs: number[] = [];
    while ((Date.now() < until || rttsMs.length < job.minKeystrokes) && rttsMs.length < MAX_KEYSTROKES) {
      const want = echoed + 1;
      sentAtEpochMs.push(Date.now());
      const t = performance.now();
      term.input('x');
      // Woken from the output callback itself: a polling wait would add its interval to every sample.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('echo phone: no keystroke echo')), ECHO_TIMEOUT_MS);
        waiter = () => {
          if (echoed < want) return;
          clearTimeout(timer);
          waiter = null;
          resolve();
        };
        waiter();
      });
      rttsMs.push(performance.now() - t);
      await sleep(job.gapMs);
    }
    loop.disable();
    return {
      rttsMs,
      sentAtEpochMs,
      watchedBytes,
      drops: phone.drops,
      loopDelayP99Ms: loop.percentile(99) / 1e6,
      loopDelayMaxMs: loop.max / 1e6,
    };
  } finally {
    phone.stop();
  }
}

const TSX_CLI = join(
  fileURLToPath(new URL('.', import.meta.url)),
  '..',
  '..',
  'node_modules',
  'tsx',
  'dist',
  'cli.mjs',
);
/** Most stdout/stderr characters kept from the child (its result line is a few hundred KB at most). */
const MAX_CHILD_OUTPUT_CHARS = 8 * 1024 * 1024;

/** A started echo phone: `ready` resolves when it starts typing, `result` when it is done. */
export interface EchoPhoneRun {
  readonly ready: Promise<void>;
  readonly result: Promise<EchoPhoneResult>;
  kill(): void;
}

/** Starts this file as a child process on `job` (the parent side). */
export function startEchoPhone(job: EchoPhoneJob): EchoPhoneRun {
  const child = spawn(
    process.execPath,
    [TSX_CLI, '--conditions=source', fileURLToPath(import.meta.url), '--run'],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((r) => {
    onReady = r;
  });
  child.stdout.on('data', (d: Buffer) => {
    out = (out + d.toString('utf8')).slice(-MAX_CHILD_OUTPUT_CHARS);
    if (out.startsWith('ready\n')) onReady();
  });
  child.stderr.on('data', (d: Buffer) => {
    err = (err + d.toString('utf8')).slice(-MAX_CHILD_OUTPUT_CHARS);
  });
  const result = new Promise<EchoPhoneResult>((resolve, reject) => {
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || line === undefined) {
        reject(new Error(`echo phone exited ${code}: ${err.slice(-2_000)}`));
        return;
      }
      try {
        resolve(JSON.parse(line) as EchoPhoneResult);
      } catch (e) {
        reject(new Error(`echo phone result unreadable: ${(e as Error).message}`));
      }
    });
  });
  // A child that dies before `ready` must not leave the parent waiting on `ready` forever.
  void result.then(
    () => onReady(),
    () => onReady(),
  );
  child.stdin.end(`${JSON.stringify(job)}\n`);
  return { ready, result, kill: () => child.kill('SIGKILL') };
}

/** Largest job line read from stdin (bytes): a pairing record and a few session ids. */
const MAX_JOB_BYTES = 64 * 1024;

async function readJob(): Promise<EchoPhoneJob> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += (chunk as Buffer).toString('utf8');
    if (text.length > MAX_JOB_BYTES) throw new RangeError('echo phone: job too large');
    if (text.includes('\n')) break;
  }
  return JSON.parse(text) as EchoPhoneJob;
}

if (process.argv.includes('--run')) {
  readJob()
    .then(run)
    .then(
      // Exit only once the line is flushed: a pipe write is asynchronous, and exit() would cut it short.
      (result) => {
        process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
      },
      (error: Error) => {
        process.stderr.write(`${error.stack ?? error.message}\n`);
        process.exit(1);
      },
    );
}
