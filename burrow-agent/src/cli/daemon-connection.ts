/**
 * How a CLI command reaches the daemon, with errors that say what to do.
 */
import { ControlClient, ControlRequestError, DaemonNotRunningError } from '../control/control-client.js';
import { controlSocketPath } from '../control/control-paths.js';
import { readControlToken } from '../control/control-token.js';
import { StateFileError } from '../state/atomic-file.js';
import { resolveStateDir, StateDirError } from '../state/state-dir.js';
import { CliError, ExitCode } from './exit-codes.js';

export const NOT_RUNNING_MESSAGE =
  'the daemon is not running: start it with `burrow daemon` or `burrow install-service`';

/**
 * "Not running" names the state directory it looked in: a daemon running on another one (`npm start`'s
 * .burrow-dev, a BURROW_STATE_DIR set elsewhere) is the usual reason (issue 17 item 1).
 */
function notRunning(stateDir: string): CliError {
  return new CliError(ExitCode.DaemonNotRunning, `${NOT_RUNNING_MESSAGE} (state directory ${stateDir})`);
}

export async function connectDaemon(env: NodeJS.ProcessEnv): Promise<ControlClient> {
  const stateDir = stateDirOf(env);
  let token: Buffer | null;
  try {
    token = readControlToken(stateDir);
  } catch (err) {
    throw asCliError(err);
  }
  if (token === null) throw notRunning(stateDir);
  try {
    return await ControlClient.connect(controlSocketPath(stateDir), token);
  } catch (err) {
    throw err instanceof DaemonNotRunningError ? notRunning(stateDir) : asCliError(err);
  }
}

export function stateDirOf(env: NodeJS.ProcessEnv): string {
  try {
    return resolveStateDir(env);
  } catch (err) {
    throw asCliError(err);
  }
}

/** Maps any error from the control layer to a CLI exit code and message. */
export function asCliError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof DaemonNotRunningError)
    return new CliError(ExitCode.DaemonNotRunning, NOT_RUNNING_MESSAGE);
  if (err instanceof StateFileError || err instanceof StateDirError)
    return new CliError(ExitCode.StateError, err.message);
  if (err instanceof ControlRequestError) {
    if (err.code === 'not-found') return new CliError(ExitCode.NotFound, err.message);
    if (err.code === 'conflict') return new CliError(ExitCode.Conflict, err.message);
    if (err.code === 'bad-request') return new CliError(ExitCode.Usage, err.message);
    return new CliError(ExitCode.Failure, err.message);
  }
  return new CliError(ExitCode.Failure, err instanceof Error ? err.message : String(err));
}
