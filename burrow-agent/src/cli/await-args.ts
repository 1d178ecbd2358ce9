/**
 * The arguments of `burrow await` checked before the daemon is asked, each mistake said for what it is
 * (issue 17 item 6): a wrong `--until` value is wrong, not missing; `--timeout` must be a number of seconds
 * above 0 (the engine rejects a zero deadline, alert-spec Await, src/attention/awaits.ts) and within the
 * daemon's ceiling.
 */
import { MAX_AWAIT_MS } from '../control/control-messages.js';
import { printable } from '../text/printable.js';
import { CliError, ExitCode } from './exit-codes.js';

/** Without --timeout, `burrow await` waits this long (an hour) before answering `timeout`. */
export const DEFAULT_AWAIT_TIMEOUT_S = 60 * 60;

export interface AwaitArgs {
  readonly until: 'quiet' | 'exit';
  readonly timeoutMs: number;
}

export function parseAwaitArgs(values: Readonly<Record<string, string | boolean | undefined>>): AwaitArgs {
  const until = values.until;
  if (until === undefined) throw new CliError(ExitCode.Usage, '--until quiet|exit is required');
  if (until !== 'quiet' && until !== 'exit')
    throw new CliError(
      ExitCode.Usage,
      `--until must be quiet or exit, not "${printable(String(until), 64)}"`,
    );
  const raw = values.timeout;
  const seconds = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : DEFAULT_AWAIT_TIMEOUT_S;
  const limit = MAX_AWAIT_MS / 1000;
  if (typeof raw === 'string' && (raw.trim() === '' || !Number.isFinite(seconds)))
    throw new CliError(ExitCode.Usage, `--timeout must be a number of seconds, not "${printable(raw, 64)}"`);
  const timeoutMs = Math.round(seconds * 1000);
  if (timeoutMs < 1 || timeoutMs > MAX_AWAIT_MS)
    throw new CliError(ExitCode.Usage, `--timeout must be more than 0 and at most ${limit} seconds`);
  return { until, timeoutMs };
}
