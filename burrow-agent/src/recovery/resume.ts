/**
 * Before a resume starts anything, everything it needs is checked, so a failure leaves the session listed as
 * it was: the directory is still there, the agent's program still runs (is executable), and the agent still
 * has the conversation. Each failure is a RecoveryError whose message says what is wrong and what to do; the
 * CLI and the phone show it as it is.
 */
import { accessSync, constants, statSync } from 'node:fs';
import type { ResumeLaunch } from '../session/session-registry.js';
import type { AgentSpec } from './agents/index.js';
import { resumeEnv } from './env-delta.js';
import { RecoveryError } from './recovery-error.js';
import { AGENT_DISPLAY_NAMES, type RecoveryRecord, recoveryView } from './recovery-record.js';

export { RecoveryError };

/** C0/C1 controls and bidi overrides: a path shown in the banner must not drive the terminal. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu;

/** The line a resumed session starts with. */
export function resumeBanner(record: RecoveryRecord): string {
  const cwd = record.cwd.replace(UNSAFE, '?');
  return `burrow: resuming ${AGENT_DISPLAY_NAMES[record.agent]} conversation ${record.conversation} in ${cwd}`;
}

/**
 * The launch that resumes `record` with the daemon's environment `baseEnv`, after checking it can work.
 * RecoveryError (with what to do) when it cannot.
 */
export async function prepareResume(
  record: RecoveryRecord,
  spec: AgentSpec,
  baseEnv: Readonly<Record<string, string | undefined>>,
  sessionName: string,
): Promise<ResumeLaunch> {
  const name = AGENT_DISPLAY_NAMES[record.agent];
  const keep = `the session stays listed; clear it with \`burrow kill ${sessionName}\``;
  let isDir = false;
  try {
    isDir = statSync(record.cwd).isDirectory();
  } catch {}
  if (!isDir) {
    throw new RecoveryError(`cannot resume: the directory ${record.cwd} no longer exists (${keep})`);
  }
  try {
    accessSync(record.program, constants.X_OK);
    if (!statSync(record.program).isFile()) throw new Error('not a file');
  } catch {
    throw new RecoveryError(
      `cannot resume: ${name} is no longer installed at ${record.program}; reinstall it there, or ${keep.replace('the session stays listed; ', '')}`,
    );
  }
  const env = resumeEnv(baseEnv, record.env);
  const gone = await spec.checkConversation(record, env);
  if (gone !== null) throw new RecoveryError(`cannot resume: ${gone} (${keep})`);
  return {
    command: [record.program, ...spec.resumeArgs(record.args, record.conversation)],
    cwd: record.cwd,
    env,
    agentEnv: record.env,
    banner: resumeBanner(record),
    resumed: recoveryView(record),
  };
}
