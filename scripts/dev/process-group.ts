/**
 * `npm start` keeps every process it starts in one process group, and that group ends with it (issue 17
 * item 3): on Ctrl-C (SIGINT), SIGTERM or SIGHUP, and when `npm start` itself dies — killed, or its output
 * pipe closed under it (`npm start | tee log`, then Ctrl-C: tee goes first).
 *
 * Two processes run this script:
 *  - the launcher, what `npm start` runs: it starts the script again as the group leader — detached, so in a
 *    new session and process group, away from the terminal's job control — passes it every stop signal, and
 *    when the leader has exited, SIGKILLs whatever is left in the group (wrangler's workerd outlives a
 *    SIGTERM to wrangler), then exits with the leader's code;
 *  - the group leader, which does the work: everything it spawns (builds, relay, daemon, `burrow pair`) is in
 *    its group without asking. It watches the launcher through an IPC channel: when the channel closes (the
 *    launcher is gone, whatever killed it) it stops everything in order and then SIGKILLs its own group.
 *
 * Node cannot put a child into an existing group nor ask for a parent-death signal, hence the two roles. Left
 * uncovered: the launcher and the leader both killed at once with SIGKILL (nothing runs to clean up then).
 */
import { spawn } from 'node:child_process';

/** Set in the group leader's environment (to "1"). */
export const GROUP_LEADER_ENV = 'BURROW_START_GROUP_LEADER';
/** The signals that stop `npm start`. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

const SIGNAL_NUMBERS: Readonly<Record<StopSignal, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** A closed output pipe (tee gone) must not crash a process that still has children to stop. */
function ignoreBrokenPipes(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}

/** SIGKILL to every process left in group `pgid` (none left: nothing to do). */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: the group is empty
  }
}

/**
 * In the group leader: a handle whose `onStop` hears the first stop request (a signal, or the launcher gone).
 * In the launcher: null — it starts the leader, waits for it and exits with its code; the caller does nothing.
 */
export function startOwnGroup(): GroupLeader | null {
  ignoreBrokenPipes();
  if (process.env[GROUP_LEADER_ENV] === '1') return new GroupLeader();
  launch();
  return null;
}

function launch(): void {
  const script = process.argv[1]!;
  const leader = spawn(process.execPath, [...process.execArgv, script, ...process.argv.slice(2)], {
    detached: true,
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [GROUP_LEADER_ENV]: '1' },
  });
  const pgid = leader.pid!;
  // npm passes a terminal's Ctrl-C on as well: the leader hears every copy and acts on the first.
  for (const sig of STOP_SIGNALS)
    process.on(sig, () => {
      try {
        leader.kill(sig);
      } catch {
        // already gone
      }
    });
  leader.once('exit', (code, signal) => {
    killGroup(pgid);
    const bySignal = signal !== null ? (SIGNAL_NUMBERS[signal as StopSignal] ?? 9) + 128 : 1;
    process.exit(code ?? bySignal);
  });
}

export class GroupLeader {
  #onStop: ((why: string) => void) | null = null;
  #pending: string | null = null;
  #stopped = false;

  constructor() {
    for (const sig of STOP_SIGNALS) process.on(sig, () => this.#stop(`received ${sig}`));
    // The IPC channel to the launcher closes when the launcher exits, however it died.
    process.on('disconnect', () => this.#stop('npm start went away'));
  }

  /** True once the launcher is gone (then nobody is left to clean up after this process). */
  get orphaned(): boolean {
    return !process.connected;
  }

  /** Calls `fn` on the first stop request (at once if one came already). */
  onStop(fn: (why: string) => void): void {
    this.#onStop = fn;
    if (this.#pending !== null) fn(this.#pending);
  }

  #stop(why: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#onStop !== null) this.#onStop(why);
    else this.#pending = why;
  }

  /** Exits; with the launcher gone, first SIGKILLs the rest of the group (this process last). */
  exit(code: number): never {
    if (this.orphaned) killGroup(process.pid);
    process.exit(code);
  }
}
