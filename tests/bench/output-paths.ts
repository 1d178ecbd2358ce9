/**
 * The output paths the benches drive (output-path-bench.ts, daemon-profile.ts): a daemon session, `burrow
 * attach` in a pty of its own, the phone's terminal, the two-pty floor (a bare Node forwarder), the ttyd
 * baseline, and the writer test's program.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Snapshot, TerminalHandle } from '@burrow/pocket/core';
import * as pty from 'node-pty';
import { REPO_ROOT } from '../../relay-worker/test/harness.js';
import type { BurrowDaemon } from '../helpers/burrow-daemon.js';
import type { LoadPhone } from '../helpers/load-phone.js';
import { until } from './bench-stats.js';

export const BIN = join(REPO_ROOT, 'burrow-agent', 'bin', 'burrow.js');
const NODE_PTY = createRequire(import.meta.url).resolve('node-pty');
export const SETUP_TIMEOUT_MS = 60_000;
export const STREAM_TIMEOUT_MS = 300_000;

export async function newSession(daemon: BurrowDaemon, command: string[]): Promise<string> {
  return (await daemon.json<{ id: string }>('new', '--json', '--', ...command)).id;
}

/** `burrow attach <id>` in a pty of its own; `data` gets what it paints. */
export function attachCli(daemon: BurrowDaemon, id: string, data: (b: Buffer) => void) {
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
export function bareForwarder(command: readonly string[], data: (b: Buffer) => void): pty.IPty {
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
export async function phoneAttach(phone: LoadPhone, id: string, onOutput: (d: Uint8Array) => void) {
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

/**
 * The writer test's program: `head -c <mb>000000 /dev/zero | base64`, timing itself (ms) into `file`; with
 * `wait`, it first waits for a newline (the viewer is attached).
 */
export const writerCommand = (mb: number, file: string, wait: boolean) => [
  '/bin/sh',
  '-c',
  `${wait ? 'read _; ' : ''}s=$(date +%s%N); head -c ${mb}000000 /dev/zero | base64; e=$(date +%s%N); ` +
    `echo $(( (e - s) / 1000000 )) > ${file}; exec sleep 3600`,
];

/** Bytes the writer's program prints for `mb` (base64: 4 per 3, plus a newline per 76 → \r\n on a tty). */
export const writerOutputMb = (mb: number) => ((mb * 4) / 3) * (78 / 76);

/** The writer's own time (ms), once it wrote it. */
export async function programMs(file: string): Promise<number> {
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
