/**
 * Runs one fuzz target for a number of cases or a number of seconds, from a seed, and reports what it saw:
 * cases run (accepted / rejected), time, findings (each with the seed and path that replay it), and the heap
 * (`process.memoryUsage().heapUsed`, after a full GC) at the start, at its peak between batches, and at the
 * end.
 *
 * Cases run in batches through `fc.check` with `endOnFailure` (no shrinking: a finding is recorded with its
 * seed and counterexample path and the run goes on with the next batch), so one finding does not end a long
 * run. Replay one with `npm run fuzz -- --target <name> --seed <seed> --path <path>`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { type CaseOutcome, FuzzFinding, type FuzzSession, type FuzzTarget } from './fuzz-target.js';

/** Findings kept per target (a broken invariant tends to repeat; the first few say enough). */
export const MAX_FINDINGS_KEPT = 20;
/** First batch size; it grows until a batch takes about TARGET_BATCH_MS, so heap samples stay frequent. */
const FIRST_BATCH_RUNS = 25;
const MAX_BATCH_RUNS = 5_000;
const TARGET_BATCH_MS = 500;
/** Characters of a failing input kept in a finding (enough to see its shape; replay gives the rest). */
const MAX_INPUT_PREVIEW_CHARS = 240;

export interface FuzzFindingRecord {
  /** Seed and path to pass to `fc.check` (or `npm run fuzz -- --seed … --path …`) to replay the case. */
  readonly seed: number;
  readonly path: string;
  readonly error: string;
  readonly input: string;
}

export interface FuzzReport {
  readonly target: string;
  readonly seed: number;
  readonly runs: number;
  readonly accepted: number;
  readonly rejected: number;
  readonly seconds: number;
  readonly findings: readonly FuzzFindingRecord[];
  /** Findings beyond MAX_FINDINGS_KEPT, counted only. */
  readonly findingsDropped: number;
  /** heapUsed in bytes after a full GC before the first case and after the last; peak sampled between batches. */
  readonly heapStart: number;
  readonly heapEnd: number;
  readonly heapPeak: number;
  /** The target's own figures (FuzzSession.figures). */
  readonly figures: Readonly<Record<string, number>>;
}

export interface RunOptions {
  readonly seed: number;
  /** Stop after this many cases… */
  readonly runs?: number;
  /** …or after this many seconds (whichever is given; `runs` wins when both are). */
  readonly seconds?: number;
  /** Replay one case: `seed` and this path from a finding. */
  readonly path?: string;
}

let collect: (() => void) | null | undefined;
/** A full GC: `global.gc` under `--expose-gc`, else the same function obtained at run time. */
export function fullGc(): void {
  if (collect === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === 'function') collect = exposed;
    else {
      try {
        setFlagsFromString('--expose-gc');
        collect = runInNewContext('gc') as () => void;
      } catch {
        collect = null;
      }
    }
  }
  collect?.();
}

function heapAfterGc(): number {
  fullGc();
  return process.memoryUsage().heapUsed;
}

/** A different, reproducible seed per batch. */
function batchSeed(seed: number, batch: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(batch, 0xc2b2ae35)) | 0;
}

function preview(value: unknown): string {
  const text = fc.stringify(value);
  return text.length > MAX_INPUT_PREVIEW_CHARS ? `${text.slice(0, MAX_INPUT_PREVIEW_CHARS)}…` : text;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 400);
  return `non-Error thrown: ${String(error)}`.slice(0, 400);
}

export async function runTarget<T>(target: FuzzTarget<T>, options: RunOptions): Promise<FuzzReport> {
  const session = (await target.start()) as FuzzSession<T>;
  try {
    return await drive(target, session, options);
  } finally {
    await session.stop?.();
  }
}

async function drive<T>(
  target: FuzzTarget<T>,
  session: FuzzSession<T>,
  options: RunOptions,
): Promise<FuzzReport> {
  const counts = { accepted: 0, rejected: 0 };
  const tally = (outcome: CaseOutcome) => {
    counts[outcome]++;
  };
  /** A rejection the target documents is the expected end of a hostile case; anything else propagates. */
  const settle = (error: unknown) => {
    if (!(error instanceof FuzzFinding) && session.isExpected(error)) {
      counts.rejected++;
      return;
    }
    throw error;
  };
  const property = target.async
    ? fc.asyncProperty(session.input, async (input) => {
        try {
          tally(await session.run(input));
        } catch (error) {
          settle(error);
        }
      })
    : fc.property(session.input, (input) => {
        try {
          tally(session.run(input) as CaseOutcome);
        } catch (error) {
          settle(error);
        }
      });

  const findings: FuzzFindingRecord[] = [];
  let findingsDropped = 0;
  const heapStart = heapAfterGc();
  let heapPeak = heapStart;
  const started = performance.now();
  const deadline =
    options.seconds === undefined ? Number.POSITIVE_INFINITY : started + options.seconds * 1000;
  const maxRuns = options.path !== undefined ? 1 : (options.runs ?? Number.POSITIVE_INFINITY);
  let runs = 0;
  let batch = 0;
  let batchRuns = FIRST_BATCH_RUNS;
  const record = (finding: FuzzFindingRecord) => {
    if (findings.length < MAX_FINDINGS_KEPT) findings.push(finding);
    else findingsDropped++;
  };

  while (runs < maxRuns && performance.now() < deadline) {
    const seed = options.path !== undefined ? options.seed : batchSeed(options.seed, batch);
    const numRuns = Math.min(batchRuns, maxRuns - runs);
    const params: fc.Parameters<[T]> = {
      seed,
      numRuns,
      endOnFailure: true,
      ...(options.path !== undefined ? { path: options.path } : {}),
    };
    const batchStarted = performance.now();
    const details = target.async
      ? await fc.check(property as fc.IAsyncProperty<[T]>, params)
      : fc.check(property as fc.IProperty<[T]>, params);
    runs += details.failed ? details.numRuns : numRuns;
    if (details.failed) {
      record({
        seed,
        path: details.counterexamplePath ?? '',
        error: describeError(details.errorInstance),
        input: preview(details.counterexample?.[0]),
      });
    }
    try {
      await session.afterBatch?.();
    } catch (error) {
      record({ seed, path: '', error: `after batch ${batch}: ${describeError(error)}`, input: '' });
    }
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    const took = performance.now() - batchStarted;
    if (took < TARGET_BATCH_MS / 2) batchRuns = Math.min(batchRuns * 2, MAX_BATCH_RUNS);
    batch++;
  }
  const seconds = (performance.now() - started) / 1000;
  const heapEnd = heapAfterGc();
  return {
    target: target.name,
    seed: options.seed,
    runs,
    accepted: counts.accepted,
    rejected: counts.rejected,
    seconds,
    findings,
    findingsDropped,
    heapStart,
    heapEnd,
    heapPeak: Math.max(heapPeak, heapEnd),
    figures: session.figures?.() ?? {},
  };
}

const MIB = 1024 * 1024;
export const mib = (bytes: number) => (bytes / MIB).toFixed(1);

/** The one-line figure each report is printed as (fuzz.test.ts and main.ts). */
export function figureLine(report: FuzzReport): string {
  return (
    `[figure] fuzz ${report.target}: ${report.runs} runs (${report.accepted} accepted, ${report.rejected} ` +
    `rejected) in ${report.seconds.toFixed(2)} s, seed ${report.seed}, ` +
    `${report.findings.length + report.findingsDropped} findings, heap ${mib(report.heapStart)}→` +
    `${mib(report.heapEnd)} MiB (peak ${mib(report.heapPeak)})` +
    Object.entries(report.figures)
      .map(([name, value]) => `, ${name} ${value}`)
      .join('')
  );
}
