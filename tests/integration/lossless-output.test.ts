/**
 * Issue 14 "lossless": 200 MB through the real output path, with a CPU hog (a busy loop at normal priority)
 * competing for the cores, must arrive byte for byte — count and SHA-256 of everything between the stream's
 * markers equal to what coreutils computes for the same `seq` (tests/helpers/marked-stream.ts):
 *  - through `burrow attach` (the built CLI in a real pty, against a real daemon): a terminal slower than the
 *    program holds the PTY, it never loses bytes (viewer.ts, local viewers);
 *  - through Pocket's client core over the relay (wrangler dev): a phone that keeps up on loopback is paced,
 *    never resynced (viewer.ts, REMOTE_HOLD_MS).
 * Runs in the solo group (vitest.shared.ts): its hog would skew the timing of files running beside it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Snapshot } from '@burrow/pocket/core';
import * as pty from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon, type PairedPhone, until } from '../helpers/burrow-daemon.js';
import { figure } from '../helpers/load-figures.js';
import { LoadPhone } from '../helpers/load-phone.js';
import {
  expectedStream,
  MarkedStreamReader,
  markedStreamCommand,
  STREAM_LINE_BYTES,
  type StreamDigest,
  undoOnlcr,
} from '../helpers/marked-stream.js';

/**
 * 3.7 M lines × 54 bytes ≈ 200 MB through the terminal (issue 14). `LOSSLESS_MB` sets another size (1 … 2000),
 * for a slower machine or a longer soak.
 */
const LOSSLESS_MB = Number(process.env.LOSSLESS_MB ?? 200);
if (!Number.isInteger(LOSSLESS_MB) || LOSSLESS_MB < 1 || LOSSLESS_MB > 2000) {
  throw new RangeError('LOSSLESS_MB must be an integer from 1 to 2000');
}
const LINES = Math.round((LOSSLESS_MB * 1e6) / STREAM_LINE_BYTES);
const STREAM_TIMEOUT_MS = 420_000;
const BIN = join(REPO_ROOT, 'burrow-agent', 'bin', 'burrow.js');

let relay: RelayHandle;
let daemon: BurrowDaemon;
let phone: PairedPhone;
let expected: StreamDigest;

beforeAll(async () => {
  [relay, daemon, expected] = await Promise.all([startRelay(), BurrowDaemon.start(), expectedStream(LINES)]);
  const enrolled = await daemon.cli('enroll', '--relay', relay.url, '--json');
  if (enrolled.code !== 0) throw new Error(`enroll failed: ${enrolled.stderr}`);
  phone = await daemon.pairPhone('lossless phone');
});

afterAll(async () => {
  await daemon?.stop();
  await relay?.stop();
});

/** A busy loop on one core for the length of `body`. */
async function underCpuHog<T>(body: () => Promise<T>): Promise<T> {
  const hog: ChildProcess = spawn('/bin/sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' });
  try {
    return await body();
  } finally {
    hog.kill('SIGKILL');
  }
}

async function newStreamSession(name: string): Promise<string> {
  const info = await daemon.json<{ id: string }>(
    'new',
    '--json',
    '--name',
    name,
    '--',
    ...markedStreamCommand(LINES),
  );
  return info.id;
}

describe('lossless output under a CPU hog', { timeout: STREAM_TIMEOUT_MS + 60_000 }, () => {
  it('200 MB through `burrow attach`: every byte, in order', async () => {
    expect(expected.bytes).toBe(LINES * STREAM_LINE_BYTES);
    const id = await newStreamSession('lossless-attach');
    const reader = new MarkedStreamReader();
    // What the CLI wrote, before its terminal's ONLCR (libuv raw mode keeps it) added a \r to each \n.
    const written = undoOnlcr((b) => reader.push(b));
    let seen = 0;
    const cli = pty.spawn(process.execPath, [BIN, 'attach', id], {
      cols: 80,
      rows: 24,
      env: daemon.env as Record<string, string>,
      encoding: null,
    });
    cli.onData((d: string | Buffer) => {
      const b = typeof d === 'string' ? Buffer.from(d) : d;
      seen += b.byteLength;
      written(b);
    });
    try {
      // The CLI paints the snapshot (RIS first) once attached; then the program may start.
      await until(() => seen > 0, 'burrow attach to paint');
      const t0 = performance.now();
      const load0 = loadavg()[0]!;
      await underCpuHog(async () => {
        cli.write('\r');
        await until(() => reader.done, 'the end of the stream', STREAM_TIMEOUT_MS).catch((e: Error) => {
          throw new Error(`${e.message} (${reader.bytes} of ${expected.bytes} bytes arrived)`);
        });
      });
      const seconds = (performance.now() - t0) / 1000;
      figure('lossless attach', {
        mb: (reader.bytes / 1e6).toFixed(1),
        seconds: seconds.toFixed(1),
        mb_per_s: (reader.bytes / 1e6 / seconds).toFixed(1),
        load: `${load0.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}`,
      });
      expect(reader.digest()).toEqual(expected);
    } finally {
      cli.kill();
      await daemon.cli('kill', id);
    }
  });

  it('200 MB through the phone core: every byte, in order, never resynced', async () => {
    const id = await newStreamSession('lossless-phone');
    const p = new LoadPhone({ label: 'lossless', pairing: phone.pairing, storage: phone.storage });
    p.start();
    try {
      await until(() => p.connected && p.conn.sessions.has(id), 'the phone to see the session');
      const reader = new MarkedStreamReader();
      let snapshots = 0;
      let resyncs = 0;
      const term = p.conn.attach(
        id,
        { cols: 80, rows: 24 },
        {
          onSnapshot: (s: Snapshot) => {
            snapshots++;
            if (s.kind === 'resync') resyncs++;
          },
          onOutput: (d) => reader.push(d),
        },
      );
      await until(() => snapshots > 0, 'the attach snapshot');
      const t0 = performance.now();
      const load0 = loadavg()[0]!;
      await underCpuHog(async () => {
        term.input('\r');
        await until(() => reader.done || resyncs > 0, 'the end of the stream', STREAM_TIMEOUT_MS).catch(
          (e: Error) => {
            throw new Error(`${e.message} (${reader.bytes} of ${expected.bytes} bytes arrived)`);
          },
        );
      });
      const seconds = (performance.now() - t0) / 1000;
      figure('lossless phone', {
        mb: (reader.bytes / 1e6).toFixed(1),
        seconds: seconds.toFixed(1),
        mb_per_s: (reader.bytes / 1e6 / seconds).toFixed(1),
        resyncs,
        load: `${load0.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}`,
      });
      expect(resyncs).toBe(0);
      expect(reader.digest()).toEqual(expected);
      term.detach();
    } finally {
      p.stop();
      await daemon.cli('kill', id);
    }
  });
});
