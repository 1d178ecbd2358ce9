/**
 * The work the Burrow load test gives its sessions (issue 8 "Load"): busy shells printing at a fixed, stated
 * rate, one flood session for the slow phone, and an idle raw-mode `cat` whose echo is timed. The throttle is
 * bash's own `read -t` on a FIFO nobody writes (opened read-write, so it never sees EOF): no `sleep` process is
 * forked per tick, so fifty sessions cost the machine their output, not a thousand forks a second.
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One busy session's output: LINES_PER_TICK lines of ~LINE_BYTES every TICK_MS. */
export const BUSY_LINES_PER_TICK = 10;
export const BUSY_LINE_BYTES = 80;
export const BUSY_TICK_MS = 250;
/** Bytes per second one busy session prints (10 × 80 B every 250 ms = 3,200 B/s). */
export const BUSY_BYTES_PER_SECOND = (BUSY_LINES_PER_TICK * BUSY_LINE_BYTES * 1000) / BUSY_TICK_MS;

/** The flood session (slow-phone target): FLOOD_CHUNK_BYTES every FLOOD_TICK_MS (≈ 640 KB/s). */
export const FLOOD_CHUNK_BYTES = 16_000;
export const FLOOD_TICK_MS = 25;
export const FLOOD_BYTES_PER_SECOND = (FLOOD_CHUNK_BYTES * 1000) / FLOOD_TICK_MS;

/** A FIFO the throttles wait on (nobody ever writes it). */
export function makeThrottleFifo(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'burrow-load-')), 'tick');
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo failed: ${r.stderr}`);
  return path;
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** A shell that prints numbered lines tagged `tag` forever at BUSY_BYTES_PER_SECOND. */
export function busyCommand(fifo: string, tag: string): string[] {
  // Each line: "busy <tag> <n> " padded with dots to BUSY_LINE_BYTES including CRLF-to-be (the tty adds CR).
  const script = [
    'exec 9<>"$0"',
    `pad=$(printf '%*s' ${BUSY_LINE_BYTES - 24} '' | tr ' ' .)`,
    'i=0',
    'while :; do',
    `  for _ in ${Array.from({ length: BUSY_LINES_PER_TICK }, (_, k) => k + 1).join(' ')}; do`,
    '    i=$((i+1)); printf "busy %-6s %9d %s\\n" "$1" "$i" "$pad"',
    '  done',
    `  read -r -t ${seconds(BUSY_TICK_MS)} -u 9 _`,
    'done',
  ].join('\n');
  return ['/bin/bash', '--norc', '--noprofile', '-c', script, fifo, tag];
}

/** A shell that prints FLOOD_CHUNK_BYTES of 79-character lines every FLOOD_TICK_MS forever. */
export function floodCommand(fifo: string): string[] {
  const script = [
    'exec 9<>"$0"',
    `line=$(printf '%*s' 79 '' | tr ' ' f)`,
    'blob=""',
    `for _ in $(seq 1 ${Math.floor(FLOOD_CHUNK_BYTES / 80)}); do blob+="$line"$'\\n'; done`,
    'while :; do',
    '  printf "%s" "$blob"',
    `  read -r -t ${seconds(FLOOD_TICK_MS)} -u 9 _`,
    'done',
  ].join('\n');
  return ['/bin/bash', '--norc', '--noprofile', '-c', script, fifo];
}

/** Raw mode, no tty echo: `cat` itself sends each byte back, so the timed echo crosses the process too. */
export const ECHO_COMMAND = ['/bin/sh', '-c', 'stty raw -echo; echo ready; exec cat'];
