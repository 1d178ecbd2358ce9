/**
 * A session as the remote directory shows it (protocol R-DIR-*): the session's own facts plus the attention
 * engine's public projection.
 */
import { sanitizeText } from '@burrow/crypto';
import {
  MAX_AGENT_NAME_CHARS,
  MAX_CONVERSATION_ID_CHARS,
  MAX_CWD_CHARS,
  MAX_LABEL_CHARS,
  type Resumable,
  type SessionEntry,
} from '@burrow/protocol';
import type { AgentConversation, SessionInfo } from '../session/session.js';
import type { PublicAttentionState } from './attention-port.js';

export function directoryEntry(info: SessionInfo, attention: PublicAttentionState): SessionEntry {
  const exited = info.status === 'exited';
  return {
    id: info.id,
    // Names are sanitized by the registry, cwd comes from the file system: both are re-bounded here so one
    // odd path can never make the whole directory message fail protocol validation (DESIGN §2).
    name: sanitizeText(info.name, MAX_LABEL_CHARS) || info.id,
    title: attention.title,
    cwd: sanitizeText(info.cwd, MAX_CWD_CHARS),
    command: attention.command,
    watchKey: attention.watchKey,
    cols: info.cols,
    rows: info.rows,
    exited,
    exitCode: exited ? (info.exitCode ?? (info.signal !== null ? 128 + info.signal : null)) : null,
    createdAt: info.createdAt,
    lastActivityAt: Math.max(info.createdAt, info.lastOutputAt ?? info.createdAt),
    outputOffset: info.offset,
    status: attention.status,
    ringing: attention.ringing,
    ringingSince: attention.ringingSince,
    episodeId: attention.episodeId,
    todo: attention.todo,
    notification: attention.notification,
    awaited: attention.awaited,
    // R-DIR-8: a session that ran a coding agent when the daemon stopped (src/recovery/).
    ...(exited && info.resumable !== undefined ? { resumable: agentConversation(info.resumable) } : {}),
    // R-DIR-9: a session `resume` started, for its life.
    ...(info.resumed !== undefined && info.resumable === undefined
      ? { resumed: agentConversation(info.resumed) }
      : {}),
  };
}

/** An agent and conversation as the wire bounds them (R-DIR-8/9): sanitized, never empty. */
function agentConversation(c: AgentConversation): Resumable {
  return {
    agent: sanitizeText(c.agent, MAX_AGENT_NAME_CHARS) || 'agent',
    conversation: sanitizeText(c.conversation, MAX_CONVERSATION_ID_CHARS) || '?',
  };
}
