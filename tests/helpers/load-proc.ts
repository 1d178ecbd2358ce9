/**
 * What the load tests read from /proc (Linux): resident memory over time (`/proc/<pid>/status` VmRSS) for the
 * "memory stays bounded" checks (issue 8), CPU time used, and the relay's workerd processes. Sampling is a timer in the test process; a sample that cannot be
 * read (the process is stopped or gone) is skipped, not invented.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Most samples kept: 250 ms for an hour. A longer run keeps the first samples only (peak stays right). */
export const MAX_RSS_SAMPLES = 14_400;

export interface RssSample {
  readonly atMs: number;
  readonly kib: number;
}

/** VmRSS of `pid` in KiB, or null when it cannot be read. */
export function readRssKib(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on every Linux this runs on). */
const USER_HZ = 100;

/** CPU seconds (user + system) `pid` has used so far, or null when it cannot be read. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ", field 3 is state; utime and stime are fields 14 and 15 (indices 11, 12 here).
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return null;
  }
}

/** Pids of every process below `root` (children, grandchildren, …) whose command name is `comm`. */
export function descendantsNamed(root: number, comm: string): number[] {
  const parent = new Map<number, number>();
  const name = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may hold spaces or parentheses, so split at the last ')'.
      const close = stat.lastIndexOf(')');
      name.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parent.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      // Gone while we looked.
    }
  }
  const below = (pid: number): boolean => {
    for (let p = parent.get(pid), hops = 0; p !== undefined && p > 1 && hops < 64; p = parent.get(p), hops++)
      if (p === root) return true;
    return false;
  };
  return [...name].filter(([pid, n]) => n === comm && below(pid)).map(([pid]) => pid);
}

/** Samples the summed VmRSS of `pids()` every `intervalMs` until stopped. */
export class RssSampler {
  readonly samples: RssSample[] = [];
  readonly #timer: NodeJS.Timeout;
  readonly #t0 = Date.now();

  constructor(
    pids: () => readonly number[],
    readonly intervalMs = 250,
  ) {
    if (!Number.isInteger(intervalMs) || intervalMs <= 0) throw new RangeError('intervalMs must be > 0');
    const take = () => {
      let kib = 0;
      let any = false;
      for (const pid of pids()) {
        const v = readRssKib(pid);
        if (v !== null) {
          kib += v;
          any = true;
        }
      }
      if (any && this.samples.length < MAX_RSS_SAMPLES)
        this.samples.push({ atMs: Date.now() - this.#t0, kib });
    };
    take();
    this.#timer = setInterval(take, intervalMs);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Highest sample (MiB), optionally among samples from `fromMs` to `toMs` after the start. */
  peakMib(fromMs = 0, toMs = Number.POSITIVE_INFINITY): number {
    let peak = 0;
    for (const s of this.samples) if (s.atMs >= fromMs && s.atMs <= toMs) peak = Math.max(peak, s.kib);
    return peak / 1024;
  }

  /** Peak of the first and of the last third of the samples (MiB): "it stops growing" compares them. */
  thirds(): { readonly first: number; readonly last: number } {
    const n = this.samples.length;
    if (n < 3) throw new RangeError('fewer than three RSS samples');
    const peak = (part: RssSample[]) => Math.max(...part.map((s) => s.kib)) / 1024;
    return {
      first: peak(this.samples.slice(0, Math.floor(n / 3))),
      last: peak(this.samples.slice(n - Math.floor(n / 3))),
    };
  }
}
