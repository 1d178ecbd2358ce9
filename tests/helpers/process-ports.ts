/**
 * The TCP ports a process group listens on (Linux `/proc`): the pids whose process group is `pgid`, the
 * socket inodes among their descriptors, matched against the LISTEN rows of `/proc/net/tcp` and `tcp6`.
 * Reading another process's descriptors needs the same user or root; the tests run as root.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** /proc/net/tcp's state column for LISTEN. */
const TCP_LISTEN = '0A';

export interface ListeningPort {
  readonly pid: number;
  readonly port: number;
  /** The process's command line (NULs as spaces), for a failure message. */
  readonly command: string;
}

/** Every pid in process group `pgid`. */
export function processGroupPids(pgid: number): number[] {
  if (!Number.isInteger(pgid) || pgid <= 0) throw new RangeError('pgid must be a positive integer');
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid) pids.push(Number(name));
  }
  return pids;
}

function socketInodes(pid: number): string[] {
  const inodes: string[] = [];
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.push(match[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** The TCP ports (IPv4 and IPv6) that processes of group `pgid` listen on. */
export function listeningPorts(pgid: number): ListeningPort[] {
  const owner = new Map<string, number>();
  for (const pid of processGroupPids(pgid)) for (const inode of socketInodes(pid)) owner.set(inode, pid);
  const out: ListeningPort[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== TCP_LISTEN) continue;
      const pid = owner.get(cols[9]!);
      if (pid === undefined) continue;
      const port = Number.parseInt(cols[1]!.split(':')[1]!, 16);
      let command = '';
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      } catch {
        // exited meanwhile
      }
      out.push({ pid, port, command });
    }
  }
  return out;
}
