/**
 * What Burrow remembers about a coding agent's conversation so it can start the agent on it again after the
 * daemon restarts (issue 27 "Agent recovery"): which agent, the agent's own id for the conversation, where
 * the agent keeps it, and how to start the agent the way it ran — program, the options it was given, the
 * environment it had beyond the daemon's, the directory. Kept in sessions.json (owner-only, like all state);
 * every field bounded here so a hand-edited or hostile file is refused whole, never half-read.
 *
 * The environment may hold the agent's API key (it is what the agent ran with); it never leaves the state
 * file: `burrow ls --json` and the phone get only `{ agent, conversation }` (recoveryView).
 */
import * as v from 'valibot';

/** The agents Burrow can resume: each has a conversation id in its own store and a resume option. */
export const RECOVERABLE_AGENTS = ['claude', 'codex', 'gemini', 'opencode'] as const;
export type RecoverableAgent = (typeof RECOVERABLE_AGENTS)[number];

/** Their names as people know them. */
export const AGENT_DISPLAY_NAMES: Readonly<Record<RecoverableAgent, string>> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  opencode: 'opencode',
};

/** Longest conversation id (UUIDs are 36; opencode's `ses_…` 30). */
export const MAX_CONVERSATION_ID_CHARS = 128;
/** The id's alphabet: what the four agents use, nothing a shell or terminal would read specially. */
export const CONVERSATION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
export const MAX_RECOVERY_PATH_CHARS = 1024;
/** The agent's own options carried over: entries, and characters in all. */
export const MAX_RECOVERY_ARGS = 64;
export const MAX_RECOVERY_ARGS_CHARS = 2048;
/** Environment beyond the daemon's: variables, characters per value, characters in all (names + values). */
export const MAX_RECOVERY_ENV_VARS = 64;
export const MAX_RECOVERY_ENV_VALUE_CHARS = 4096;
export const MAX_RECOVERY_ENV_CHARS = 8192;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_ENV_NAME_CHARS = 128;

const absolutePath = v.pipe(
  v.string(),
  v.minLength(2),
  v.maxLength(MAX_RECOVERY_PATH_CHARS),
  v.startsWith('/'),
  v.check((p) => !p.includes('\0'), 'a path has no NUL'),
);

const noNul = (max: number) =>
  v.pipe(
    v.string(),
    v.maxLength(max),
    v.check((s) => !s.includes('\0'), 'no NUL'),
  );

export const RecoveryRecordSchema = v.strictObject({
  agent: v.picklist(RECOVERABLE_AGENTS),
  conversation: v.pipe(v.string(), v.maxLength(MAX_CONVERSATION_ID_CHARS), v.regex(CONVERSATION_ID_PATTERN)),
  /** The file holding the conversation where the agent keeps one per conversation; null for opencode (a DB). */
  transcript: v.nullable(absolutePath),
  /** What to execute: the agent's executable or launcher script, absolute. */
  program: absolutePath,
  args: v.pipe(
    v.array(noNul(MAX_RECOVERY_ARGS_CHARS)),
    v.maxLength(MAX_RECOVERY_ARGS),
    v.check(
      (a) => a.join('').length <= MAX_RECOVERY_ARGS_CHARS,
      `at most ${MAX_RECOVERY_ARGS_CHARS} characters`,
    ),
  ),
  env: v.pipe(
    v.record(
      v.pipe(v.string(), v.maxLength(MAX_ENV_NAME_CHARS), v.regex(ENV_NAME)),
      noNul(MAX_RECOVERY_ENV_VALUE_CHARS),
    ),
    v.check(
      (e) => Object.keys(e).length <= MAX_RECOVERY_ENV_VARS,
      `at most ${MAX_RECOVERY_ENV_VARS} variables`,
    ),
    v.check(
      (e) => Object.entries(e).reduce((n, [k, x]) => n + k.length + x.length, 0) <= MAX_RECOVERY_ENV_CHARS,
      `at most ${MAX_RECOVERY_ENV_CHARS} characters of environment`,
    ),
  ),
  /** The agent's working directory (its own, from /proc: where its conversation is filed). */
  cwd: absolutePath,
  capturedAt: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

export type RecoveryRecord = v.InferOutput<typeof RecoveryRecordSchema>;

/** What may be shown: the CLI's `ls --json`, the phone's list. */
export interface RecoveryView {
  readonly agent: RecoverableAgent;
  readonly conversation: string;
}

export function recoveryView(r: RecoveryRecord): RecoveryView {
  return { agent: r.agent, conversation: r.conversation };
}

/** A record as a value (throws a ValiError naming the first problem); for tests and the capture's last check. */
export function parseRecoveryRecord(raw: unknown): RecoveryRecord {
  return v.parse(RecoveryRecordSchema, raw);
}

export function isRecoveryRecord(raw: unknown): raw is RecoveryRecord {
  return v.is(RecoveryRecordSchema, raw);
}
