/**
 * Shared pieces of the network-fault tests (issue 8 "Faults", tests/integration/fault-*.test.ts): a daemon
 * enrolled at a relay, a session that streams numbered lines between a start and a stop file, the check that a
 * phone's copy of that stream has every line exactly once in order, and the `[figure]` lines the tests print
 * for docs/reliability.md.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BurrowConnection } from '@burrow/pocket/core';
import { BurrowDaemon, until } from './burrow-daemon.js';

/** `[figure] <what>: <values>` — one line per measurement, collected by the lead from test output. */
export function figure(what: string, values: Record<string, number | string>): void {
  const parts = Object.entries(values).map(([k, v]) => `${k}=${typeof v === 'number' ? Math.round(v) : v}`);
  console.log(`[figure] ${what}: ${parts.join(' ')}`);
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface DaemonStatus {
  readonly relay: { readonly state: string; readonly text: string };
  readonly devices: { readonly paired: number; readonly connected: number };
}

export function daemonStatus(daemon: BurrowDaemon): Promise<DaemonStatus> {
  return daemon.json<DaemonStatus>('status', '--json');
}

/** A daemon enrolled at `relayUrl` (a relay, or a proxy in front of one) with its relay link up. */
export async function enrolledDaemon(relayUrl: string): Promise<BurrowDaemon> {
  const daemon = await BurrowDaemon.start();
  await daemon.enroll(relayUrl);
  return daemon;
}

/**
 * A session that waits for `start()`, then prints `L1`, `L2`, … every `pauseSeconds` until `stop()`, then
 * `END<n>` with the last number printed. The shell decides n, so the check does not trust the phone's copy.
 */
export async function numberedStream(daemon: BurrowDaemon, pauseSeconds = 0.01) {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-stream-'));
  const [go, halt] = [join(dir, 'start'), join(dir, 'stop')];
  const script =
    `while [ ! -e '${go}' ]; do sleep 0.05; done; i=0; ` +
    `while [ ! -e '${halt}' ]; do i=$((i+1)); echo L$i; sleep ${pauseSeconds}; done; echo END$i; sleep 600`;
  const r = await daemon.cli(
    'new',
    '--name',
    'stream',
    '--',
    '/bin/bash',
    '--norc',
    '--noprofile',
    '-c',
    script,
  );
  if (r.code !== 0) throw new Error(`burrow new failed: ${r.stderr}`);
  return {
    id: r.stdout.trim(),
    start: () => writeFileSync(go, ''),
    stop: () => writeFileSync(halt, ''),
  };
}

/** What a phone's copy of a numbered stream holds: the numbers in arrival order and the shell's last number. */
export function readStream(text: string): { numbers: number[]; end: number | null } {
  const numbers = [...text.matchAll(/^L(\d+)\r?$/gm)].map((m) => Number(m[1]));
  const end = /^END(\d+)\r?$/m.exec(text);
  return { numbers, end: end ? Number(end[1]) : null };
}

/** The first index where `numbers` is not exactly 1, 2, …, `end`; -1 when it is (no gap, no duplicate). */
export function firstStreamFault(numbers: readonly number[], end: number): number {
  for (let i = 0; i < numbers.length; i++) if (numbers[i] !== i + 1) return i;
  return numbers.length === end ? -1 : numbers.length;
}

/** A phone attached to a fresh interactive bash: `echo()` types a command and times its output coming back. */
export async function attachedShell(daemon: BurrowDaemon, conn: BurrowConnection) {
  const r = await daemon.cli('new', '--name', 'shell', '--', '/bin/bash', '--norc', '--noprofile');
  if (r.code !== 0) throw new Error(`burrow new failed: ${r.stderr}`);
  const id = r.stdout.trim();
  await until(() => conn.status.kind === 'connected' && conn.sessions.has(id), 'the shell in the directory');
  let text = '';
  let snapshots = 0;
  const term = conn.attach(
    id,
    { cols: 80, rows: 24 },
    {
      onSnapshot: () => void snapshots++,
      onOutput: (d) => {
        text += new TextDecoder().decode(d);
      },
    },
  );
  await until(() => snapshots >= 1, 'the attach snapshot');
  let n = 0;
  return {
    id,
    get snapshots() {
      return snapshots;
    },
    /** Types `echo E<n>$((1+1))` and resolves with the ms until `E<n>2` (only the shell's output has it). */
    async echo(timeoutMs = 10_000): Promise<number> {
      n++;
      const started = Date.now();
      term.input(`echo E${n}$((1+1))\r`);
      await until(() => text.includes(`E${n}2`), `echo ${n}`, timeoutMs);
      return Date.now() - started;
    },
  };
}
