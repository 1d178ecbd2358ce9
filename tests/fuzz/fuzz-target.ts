/**
 * What a fuzz target is (issue 8, "Hostile input"): an input generator (fast-check, so every case replays from
 * a seed and a path), one step that feeds a case to the code under test, and the rule that separates an
 * expected rejection from a finding. The runner (fuzz-runner.ts) drives it; `fuzz.test.ts` and `main.ts` are
 * its two front ends (bounded in `npm test`, long in `npm run fuzz`).
 */
import type fc from 'fast-check';

/** How one case ended when it was not a finding. */
export type CaseOutcome = 'accepted' | 'rejected';

/**
 * A broken invariant the target itself detected (a bound exceeded, a frame routed to the wrong socket, an
 * altered message accepted). Never an expected rejection, whatever the target's `isExpected` says.
 */
export class FuzzFinding extends Error {
  override readonly name = 'FuzzFinding';
}

/** Throws a FuzzFinding unless `condition` holds. */
export function invariant(condition: unknown, what: string): asserts condition {
  if (!condition) throw new FuzzFinding(what);
}

/** One started target: its generator, its step, and what it holds between cases. */
export interface FuzzSession<T> {
  readonly input: fc.Arbitrary<T>;
  /**
   * Feeds one case. Returns how it ended; throws on a rejection (checked with `isExpected`) or a finding.
   * A target may return 'rejected' itself when the code under test reports refusal without throwing.
   */
  run(input: T): CaseOutcome | Promise<CaseOutcome>;
  /** Whether a thrown error is the documented rejection (the module's own error class, or its TypeError/RangeError). */
  isExpected(error: unknown): boolean;
  /** Checked after every batch of cases: state the target keeps across cases (a long-lived parser, a relay). */
  afterBatch?(): void | Promise<void>;
  /** Extra figures the target measured (printed with its report line). */
  figures?(): Readonly<Record<string, number>>;
  /** Frees what `start` took (a relay process, sockets). */
  stop?(): Promise<void>;
}

export interface FuzzTarget<T = unknown> {
  /** Short name, used by `--target` and in the table. */
  readonly name: string;
  /** One line: what it feeds and to what. */
  readonly about: string;
  /** Asynchronous cases (the live relay) run under `fc.asyncProperty`; the rest synchronously. */
  readonly async: boolean;
  /** Runs in `npm test` (fuzz.test.ts). */
  readonly testRuns: number;
  start(): Promise<FuzzSession<T>>;
}

/** `error instanceof` one of `classes`. */
export function isInstanceOfAny(
  error: unknown,
  classes: readonly (abstract new (...args: never[]) => Error)[],
) {
  return classes.some((c) => error instanceof c);
}
