/**
 * Reads the V8 CPU profiles a daemon wrote with `--cpu-prof` (one file per thread: the main thread and the
 * screen worker) and sums each thread's samples by pipeline stage (issue 26: "measure per stage"). A sample's
 * stage is that of the innermost project frame on its stack (so xterm's parser under ScreenModel counts as the
 * screen model, Node's stream internals under the control server as the socket write), else of the frame
 * itself (GC, the event loop, libuv).
 *
 * The profiler samples wall time: "(idle)" is the thread waiting. Shares of the busy samples are what to read;
 * the benches turn them into CPU ms per MB with the process's CPU time from /proc.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  /** µs on the monotonic clock (process.hrtime's on Linux). */
  readonly startTime: number;
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Stages in pipeline order; the first rule whose pattern matches a frame's url (or name) wins. */
const STAGES: ReadonlyArray<readonly [string, RegExp]> = [
  ['PTY read', /session\/pty-process\.|node:tty|node:internal\/tty/],
  ['output log', /session\/output-log\./],
  ['attention parse', /\/attention\/|\/attention-host\/|\/terminal\/(?!.*screen)/],
  ['screen hand-over (daemon thread)', /screen\/(screen-host|worker-screen-host|lazy-screen|checkpoint)/],
  ['screen model: plain-text scan', /screen\/plain-text\./],
  [
    'screen model: history',
    /screen\/(line-history|line-text)\.|node:zlib|node:internal\/zlib|^(skipPlainFlood|harvest|pushRows)$/,
  ],
  ['screen model: xterm parse', /@xterm\/|screen\/(screen-model|restore-string|xterm-internals|kitty)/],
  ['screen worker', /screen\/screen-worker/],
  ['session (flush, viewers)', /session\/session\.|session\/session-registry|viewer\//],
  ['framing (local)', /control\/(frame-codec|control-server)/],
  ['framing (remote)', /\/remote\/|@burrow\/protocol|protocol\/(dist|src)/],
  ['AEAD', /crypto\/(dist|src)|node:internal\/crypto/],
  ['socket write (ws)', /node_modules\/ws\//],
  ['socket write', /node:net|node:internal\/stream_base|node:internal\/streams|node:stream/],
  ['worker messaging', /node:internal\/worker|node:worker_threads|MessagePort/],
];

export interface StageTimes {
  /** Per stage, milliseconds of samples (wall time the thread spent there). */
  readonly stages: Map<string, number>;
  readonly busyMs: number;
  readonly idleMs: number;
}

function stageOf(frame: CallFrame): string | null {
  for (const [name, re] of STAGES) if (re.test(frame.url) || re.test(frame.functionName)) return name;
  return null;
}

/** A window on the monotonic clock, µs: only samples inside it count. */
export interface Window {
  readonly fromUs: number;
  readonly toUs: number;
}

/** Sums one profile by stage. */
export function stageTimes(profile: CpuProfile, window?: Window): StageTimes {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageCache = new Map<number, string>();
  const stageOfNode = (id: number): string => {
    const cached = stageCache.get(id);
    if (cached !== undefined) return cached;
    const self = byId.get(id)!.callFrame;
    let stage: string | null = null;
    for (let at: number | undefined = id; at !== undefined && stage === null; at = parent.get(at)) {
      stage = stageOf(byId.get(at)!.callFrame);
    }
    if (stage === null) {
      const f = self.functionName;
      stage =
        f === '(idle)'
          ? 'idle'
          : f === '(garbage collector)'
            ? 'GC'
            : f === '(program)'
              ? '(program: native, event loop)'
              : 'other';
    }
    stageCache.set(id, stage);
    return stage;
  };
  const stages = new Map<string, number>();
  let idle = 0;
  let busy = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window !== undefined && (at < window.fromUs || at > window.toUs)) continue;
    const ms = delta / 1000;
    const stage = stageOfNode(profile.samples[i]!);
    if (stage === 'idle') {
      idle += ms;
      continue;
    }
    busy += ms;
    stages.set(stage, (stages.get(stage) ?? 0) + ms);
  }
  return { stages, busyMs: busy, idleMs: idle };
}

/** Every `.cpuprofile` in `dir`, largest busy time first (the daemon's main thread, then its worker). */
export function readProfiles(dir: string, window?: Window): Array<{ file: string; times: StageTimes }> {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((file) => ({
      file,
      times: stageTimes(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, window),
    }))
    .sort((a, b) => b.times.busyMs - a.times.busyMs);
}

/**
 * Rows for printTable: per stage, its share of all threads' busy samples and, given the process's CPU ms per
 * MB over the same run, the CPU ms per MB that share stands for.
 */
export function stageRows(
  profiles: ReadonlyArray<{ file: string; times: StageTimes }>,
  cpuMsPerMb: number,
): string[][] {
  const total = new Map<string, number>();
  let busy = 0;
  for (const { times } of profiles) {
    busy += times.busyMs;
    for (const [s, ms] of times.stages) total.set(s, (total.get(s) ?? 0) + ms);
  }
  const order = [...STAGES.map(([n]) => n), 'GC', '(program: native, event loop)', 'other'];
  const rows = [['stage', 'share of busy samples', 'CPU ms per MB']];
  for (const s of order) {
    const ms = total.get(s);
    if (ms === undefined || ms === 0) continue;
    rows.push([s, `${((ms / busy) * 100).toFixed(1)} %`, ((ms / busy) * cpuMsPerMb).toFixed(2)]);
  }
  rows.push(['all threads', '100 %', cpuMsPerMb.toFixed(2)]);
  return rows;
}
