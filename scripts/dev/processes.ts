/**
 * Child processes for `npm start`: each runs in its own process group with its output in a log file, so the
 * terminal stays free for the pairing link, QR and code; `stopAll` ends them in reverse start order.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/** How long a child gets after SIGTERM before SIGKILL (ms). */
const STOP_GRACE_MS = 8_000;

export interface Started {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /** The last output (bounded), for an error message. */
  tail(): string;
}

const MAX_TAIL_CHARS = 8_000;
const started: Started[] = [];

export function startLogged(
  name: string,
  cmd: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; logFile: string },
): Started {
  const log = createWriteStream(opts.logFile, { flags: 'a', mode: 0o600 });
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const onData = (d: Buffer) => {
    log.write(d);
    tail = (tail + d.toString('utf8')).slice(-MAX_TAIL_CHARS);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      log.end();
      resolve(code);
    }),
  );
  const s: Started = { name, child, exited, tail: () => tail };
  started.push(s);
  return s;
}

/** Runs a build step in the foreground (its output shown); throws when it fails. */
export function runStep(what: string, cmd: string, args: readonly string[], cwd: string): void {
  process.stdout.write(`• ${what}\n`);
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal})`);
}

async function stopOne(s: Started): Promise<void> {
  if (s.child.exitCode !== null || s.child.pid === undefined) return;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-s.child.pid!, sig);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
  await s.exited;
  clearTimeout(timer);
}

/** Stops every started child, last started first (the daemon before the relay it talks to). */
export async function stopAll(): Promise<void> {
  for (const s of [...started].reverse()) await stopOne(s);
}
