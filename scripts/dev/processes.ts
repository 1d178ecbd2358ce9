/**
 * Child processes for `npm start`. All of them stay in `npm start`'s own process group (process-group.ts), so
 * nothing outlives it; long-running ones (relay, daemon) write to a log file, so the terminal stays free for
 * the pairing link, QR and code; build steps say what they are doing and for how long (issue 17 item 8).
 * `stopAll` ends what is running in reverse start order.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { basename, dirname } from 'node:path';
import { createInterface } from 'node:readline';

/** How long a child gets after SIGTERM before SIGKILL (ms). */
const STOP_GRACE_MS = 8_000;
/** Output kept from a child for an error message (characters, the tail). */
const MAX_TAIL_CHARS = 8_000;

export interface Started {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /** The last output (bounded), for an error message. */
  tail(): string;
}

const running = new Set<Started>();
const order: Started[] = [];

function track(name: string, child: ChildProcess, onData?: (d: Buffer) => void): Started {
  let tail = '';
  const collect = (d: Buffer) => {
    onData?.(d);
    tail = (tail + d.toString('utf8')).slice(-MAX_TAIL_CHARS);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let s!: Started;
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('exit', (code) => {
      running.delete(s);
      resolve(code);
    });
  });
  s = { name, child, exited, tail: () => tail };
  running.add(s);
  order.push(s);
  return s;
}

/** A long-running child (relay, daemon) with its output appended to `logFile` (owner-only). */
export function startLogged(
  name: string,
  cmd: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; logFile: string },
): Started {
  const log = createWriteStream(opts.logFile, { flags: 'a', mode: 0o600 });
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const s = track(name, child, (d) => log.write(d));
  void s.exited.then(() => log.end());
  return s;
}

/** A foreground child sharing the terminal (`burrow pair`: the owner answers y/N); resolves with its exit. */
export function runInteractive(
  name: string,
  cmd: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Started {
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: 'inherit' });
  return track(name, child);
}

/** "12.3 s" since `start` (performance.now()). */
export function elapsed(start: number): string {
  return `${((performance.now() - start) / 1000).toFixed(1)} s`;
}

const say = (line: string) => process.stdout.write(`${line}\n`);

/** tsc -b --verbose: "4:32:32 PM - Building project '/…/protocol/tsconfig.json'..." (bracketed on a TTY). */
const TSC_BUILDING = /Building project '([^']+)'/;
/** The time tsc puts in front of its progress notes. */
const TSC_TIME = /^\s*\[?\d{1,2}:\d{2}:\d{2}(?:\s*[AP]M)?\]?\s*-?\s*/;
/** tsc's own progress notes, dropped from the screen (errors and anything else pass through). */
const TSC_CHATTER = /^(?:Projects in this build:|Project '|\* |Building project|Updating)/;

/**
 * `tsc -b --verbose`, shown as one line per package it actually builds with the time since the step began
 * (a cold build is ~35 s of nothing otherwise), and a closing line with the total. Throws when it fails.
 */
export async function buildTypeScript(
  what: string,
  tsc: string,
  project: string,
  cwd: string,
): Promise<void> {
  const start = performance.now();
  say(`• ${what}`);
  const child = spawn(process.execPath, [tsc, '-b', '--verbose', project], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const s = track(what, child);
  let built = 0;
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      const m = TSC_BUILDING.exec(line);
      if (m !== null) {
        built++;
        say(`    ${basename(dirname(m[1]!))} … (${elapsed(start)})`);
      } else if (line.trim() !== '' && !TSC_CHATTER.test(line.replace(TSC_TIME, '').trim()))
        say(`    ${line}`);
    });
  }
  const code = await s.exited;
  if (code !== 0) throw new Error(`${what} failed (exit ${code ?? child.signalCode})`);
  say(`  ${built === 0 ? 'up to date' : 'done'} in ${elapsed(start)}`);
}

/**
 * A quiet build step (vite): its output is kept and shown only if it fails; a line with the elapsed time each
 * `tickMs` while it runs on a terminal, and the total at the end.
 */
export async function runQuietStep(
  what: string,
  cmd: string,
  args: readonly string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; tickMs?: number },
): Promise<void> {
  const start = performance.now();
  say(`• ${what}`);
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const s = track(what, child);
  const ticker =
    process.stdout.isTTY && opts.tickMs !== undefined
      ? setInterval(() => say(`    still building … (${elapsed(start)})`), opts.tickMs)
      : undefined;
  const code = await s.exited;
  clearInterval(ticker);
  if (code !== 0) throw new Error(`${what} failed (exit ${code ?? child.signalCode}):\n${s.tail()}`);
  say(`  done in ${elapsed(start)}`);
}

async function stopOne(s: Started): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null || s.child.pid === undefined) return;
  const send = (sig: NodeJS.Signals) => {
    try {
      s.child.kill(sig);
    } catch {
      // already gone
    }
  };
  send('SIGTERM');
  const timer = setTimeout(() => send('SIGKILL'), STOP_GRACE_MS);
  await s.exited;
  clearTimeout(timer);
}

/**
 * Stops every child still running, last started first (the daemon before the relay it talks to). What they
 * started in turn is in the same process group, which the caller ends afterwards (process-group.ts).
 */
export async function stopAll(): Promise<void> {
  for (const s of [...order].reverse()) if (running.has(s)) await stopOne(s);
}
