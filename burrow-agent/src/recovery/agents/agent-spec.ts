/**
 * One recoverable agent: how to tell its process, where it keeps the conversation a running process is in,
 * which of its arguments a resume keeps, how to start it on a conversation, and how to check that the
 * conversation is still there. One module per agent (claude.ts, codex.ts, gemini.ts, opencode.ts); README.md
 * beside them says, per agent, how the id is found and the version that was checked.
 */
import type { ProcessFacts } from '../proc.js';
import type { RecoverableAgent, RecoveryRecord } from '../recovery-record.js';

/** One running process of the agent, with what a store reader needs to know about it. */
export interface AgentProcess extends ProcessFacts {
  /** Its initial environment (CLAUDE_CONFIG_DIR, CODEX_HOME, HOME, XDG_DATA_HOME… locate the store). */
  readonly env: Readonly<Record<string, string>>;
}

export interface CaptureContext {
  /** The agent's main process in this session (the foreground group's first process that is the agent). */
  readonly agent: AgentProcess;
  /** Every process of the session's foreground group (the agent, its launcher, its helpers). */
  readonly group: readonly ProcessFacts[];
  /** Files the group holds open (absolute paths). */
  openFiles(): readonly string[];
  /**
   * Every running process of the same agent on this machine (this one included), for agents whose store
   * does not say which process a conversation belongs to: a conversation started after several of them is
   * the latest-started one's.
   */
  peers(): readonly AgentProcess[];
}

/** A conversation found in the agent's store. */
export interface Captured {
  readonly conversation: string;
  readonly transcript: string | null;
}

export interface AgentSpec {
  readonly agent: RecoverableAgent;
  /** The program names (an executable's or a launcher script's base name) that are this agent. */
  readonly programNames: readonly string[];
  /**
   * The options a resume keeps, or null when these arguments are not an interactive session that can be
   * resumed (a subcommand such as `codex exec`, a one-shot `claude -p`).
   */
  carriedArgs(args: readonly string[]): string[] | null;
  /** The conversation the agent process is in now, from the agent's own store; null when none yet. */
  capture(ctx: CaptureContext): Captured | null;
  /** The arguments that start the agent on `conversation`, after the carried ones. */
  resumeArgs(carried: readonly string[], conversation: string): string[];
  /** Null when `record`'s conversation is still in the agent's store, else why not (a sentence). */
  checkConversation(record: RecoveryRecord, env: Readonly<Record<string, string>>): Promise<string | null>;
}
