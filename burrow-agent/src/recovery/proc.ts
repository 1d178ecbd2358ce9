/**
 * What Linux's /proc says about the processes in a session's terminal: the PTY's foreground process group (the
 * program the person is talking to — the agent, not the shell that started it), each member's argv, working
 * directory, start time, environment and open files. Agent recovery reads these to learn which agent runs and
 * where its conversation is stored (README.md). Every read is bounded and tolerant: a process may exit between
 * two reads, and then it simply is not there.
 *
 * Why by hand: no maintained npm package reads tpgid, starttime and /proc/<pid>/fd together; the format is
 * proc(5)'s and a few lines each.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Directories of /proc looked at in one scan (a machine with more processes is scanned this far). */
export const MAX_PROC_SCAN = 32_768;
/** Bytes of a process's argv and of its environment read. */
export const MAX_CMDLINE_BYTES = 64 * 1024;
export const MAX_ENVIRON_BYTES = 256 * 1024;
/** Open files of one process looked at. */
export const MAX_OPEN_FILES = 4_096;
/** Members of one foreground process group reported (an agent and its helpers are a handful). */
export const MAX_GROUP_MEMBERS = 64;
/** proc(5): starttime is in clock ticks, sysconf(_SC_CLK_TCK), which Linux fixes at USER_HZ = 100. */
const CLOCK_TICKS_PER_SECOND = 100;

/** One process, as far as /proc let us read it. */
export interface ProcessFacts {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
  /** proc(5) field 22: clock ticks after boot. With the pid it names this process, not a later one. */
  readonly startTicks: number;
  /** Wall-clock start, ms since the epoch (boot time + startTicks). */
  readonly startedAt: number;
  readonly argv: readonly string[];
  /** /proc/<pid>/cwd, or null when it cannot be read. */
  readonly cwd: string | null;
  /** /proc/<pid>/exe, or null. */
  readonly exe: string | null;
}

export interface ProcReader {
  /** The PTY's foreground process group, read from the stat of a process on it (the session's first process). */
  foregroundGroup(sessionPid: number): number | null;
  /** Every process whose process group is `pgrp` (at most MAX_GROUP_MEMBERS), leader first. */
  groupMembers(pgrp: number): ProcessFacts[];
  /** Pids by process group, from one pass over /proc (for several groupMembers at once). */
  groups(): Map<number, number[]>;
  /** The members of a group given its pids (from groups()), leader first. */
  membersOf(pgrp: number, pids: readonly number[]): ProcessFacts[];
  /** Every process (MAX_PROC_SCAN at most) whose argv passes `keep` — one pass over /proc. */
  scan(keep: (argv: readonly string[]) => boolean): ProcessFacts[];
  facts(pid: number): ProcessFacts | null;
  /** The initial environment (what it was started with), or null when unreadable. */
  environ(pid: number): Record<string, string> | null;
  /** Absolute paths the process holds open (regular files), at most MAX_OPEN_FILES. */
  openFiles(pid: number): string[];
}

interface StatFields {
  readonly ppid: number;
  readonly pgrp: number;
  readonly tpgid: number;
  readonly startTicks: number;
}

/** proc(5) stat: the command name is in parentheses and may itself contain ") ", so split after the last one. */
export function parseStat(stat: string): StatFields | null {
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  // Fields from 3 (state) on; index 0 here is field 3.
  const f = stat.slice(close + 2).split(' ');
  const ppid = Number(f[1]);
  const pgrp = Number(f[2]);
  const tpgid = Number(f[5]);
  const startTicks = Number(f[19]);
  if (![ppid, pgrp, tpgid, startTicks].every(Number.isSafeInteger)) return null;
  return { ppid, pgrp, tpgid, startTicks };
}

/** NUL-separated strings (argv, environ), the trailing NUL dropped. */
export function splitNul(raw: string): string[] {
  const parts = raw.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

export function parseEnviron(raw: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of splitNul(raw)) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

function readBounded(path: string, max: number): string | null {
  try {
    const buf = readFileSync(path);
    return buf.subarray(0, max).toString('utf8');
  } catch {
    return null;
  }
}

function link(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** The reader over a real /proc (or a copy of one, for tests). */
export function procReader(root = '/proc'): ProcReader {
  let bootMs: number | null = null;
  const boot = (): number => {
    if (bootMs !== null) return bootMs;
    const stat = readBounded(join(root, 'stat'), 64 * 1024) ?? '';
    const m = /^btime (\d+)$/m.exec(stat);
    bootMs = m === null ? 0 : Number(m[1]) * 1000;
    return bootMs;
  };
  const stat = (pid: number) => {
    const raw = readBounded(join(root, String(pid), 'stat'), 4096);
    return raw === null ? null : parseStat(raw);
  };
  const facts = (pid: number, known?: StatFields): ProcessFacts | null => {
    const s = known ?? stat(pid);
    if (s === null) return null;
    const cmdline = readBounded(join(root, String(pid), 'cmdline'), MAX_CMDLINE_BYTES);
    if (cmdline === null) return null;
    return {
      pid,
      ppid: s.ppid,
      pgrp: s.pgrp,
      startTicks: s.startTicks,
      startedAt: boot() + Math.round((s.startTicks * 1000) / CLOCK_TICKS_PER_SECOND),
      argv: splitNul(cmdline),
      cwd: link(join(root, String(pid), 'cwd')),
      exe: link(join(root, String(pid), 'exe')),
    };
  };
  const pids = (): number[] => {
    let names: string[];
    try {
      names = readdirSync(root);
    } catch {
      return [];
    }
    const out: number[] = [];
    for (const n of names) {
      if (out.length >= MAX_PROC_SCAN) break;
      if (/^\d+$/.test(n)) out.push(Number(n));
    }
    return out;
  };
  return {
    foregroundGroup(sessionPid) {
      const s = stat(sessionPid);
      return s === null || s.tpgid <= 0 ? null : s.tpgid;
    },
    groupMembers(pgrp) {
      return this.membersOf(pgrp, this.groups().get(pgrp) ?? []);
    },
    groups() {
      const byGroup = new Map<number, number[]>();
      for (const pid of pids()) {
        const s = stat(pid);
        if (s === null) continue;
        const list = byGroup.get(s.pgrp);
        if (list === undefined) byGroup.set(s.pgrp, [pid]);
        else if (list.length < MAX_GROUP_MEMBERS) list.push(pid);
      }
      return byGroup;
    },
    membersOf(pgrp, members) {
      const out: ProcessFacts[] = [];
      for (const pid of members) {
        const f = facts(pid);
        if (f !== null && f.pgrp === pgrp) out.push(f);
      }
      return out.sort((a, b) => (a.pid === pgrp ? -1 : b.pid === pgrp ? 1 : a.startTicks - b.startTicks));
    },
    scan(keep) {
      const out: ProcessFacts[] = [];
      for (const pid of pids()) {
        const cmdline = readBounded(join(root, String(pid), 'cmdline'), MAX_CMDLINE_BYTES);
        if (cmdline === null || !keep(splitNul(cmdline))) continue;
        const f = facts(pid);
        if (f !== null) out.push(f);
      }
      return out;
    },
    facts: (pid) => facts(pid),
    environ(pid) {
      const raw = readBounded(join(root, String(pid), 'environ'), MAX_ENVIRON_BYTES);
      return raw === null ? null : parseEnviron(raw);
    },
    openFiles(pid) {
      const dir = join(root, String(pid), 'fd');
      let fds: string[];
      try {
        fds = readdirSync(dir);
      } catch {
        return [];
      }
      const out: string[] = [];
      for (const fd of fds.slice(0, MAX_OPEN_FILES)) {
        const target = link(join(dir, fd));
        if (target?.startsWith('/')) out.push(target);
      }
      return out;
    },
  };
}
