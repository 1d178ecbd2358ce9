/**
 * What `burrow` exit codes mean (also printed by `burrow --help`). Scripts may rely on these.
 */
export const ExitCode = {
  /** Done. */
  Ok: 0,
  /** Something failed; the message says what. */
  Failure: 1,
  /** Bad usage: unknown command or option, missing argument. */
  Usage: 2,
  /** The daemon is not running (start it with `burrow daemon` or `burrow install-service`). */
  DaemonNotRunning: 3,
  /** No such session. */
  NotFound: 4,
  /** Conflict: name taken, a daemon already running, a limit reached. */
  Conflict: 5,
  /** The state directory or a state file cannot be trusted (permissions, corruption). */
  StateError: 6,
  /**
   * `burrow await`: the awaited command ended without exit code 0 — it failed, was killed (a signal reads as
   * 128 + its number, as in a shell), or its shell did not report a code (issue 13).
   */
  CommandFailed: 7,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export const EXIT_CODE_TABLE = `Exit codes:
  0  ok
  1  failure
  2  usage error
  3  the daemon is not running
  4  no such session
  5  conflict (name taken, daemon already running, limit reached)
  6  state directory or file cannot be trusted
  7  burrow await: the awaited command exited non-zero (or was killed)`;

/** An error that ends the command with a given exit code and message. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}
