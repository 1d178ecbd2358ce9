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
  type SessionEntry,
} from '@burrow/protocol';
import type { SessionInfo } from '../session/session.js';
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
    ...(exited && info.resumable !== undefined
      ? {
          resumable: {
            agent: sanitizeText(info.resumable.agent, MAX_AGENT_NAME_CHARS) || 'agent',
            conversation: sanitizeText(info.resumable.conversation, MAX_CONVERSATION_ID_CHARS) || '?',
          },
        }
      : {}),
  };
}
