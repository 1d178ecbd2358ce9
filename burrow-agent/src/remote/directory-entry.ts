/**
 * A session as the remote directory shows it (protocol R-DIR-*): the session's own facts plus the attention
 * engine's public projection.
 */
import type { SessionEntry } from '@burrow/protocol';
import type { SessionInfo } from '../session/session.js';
import type { PublicAttentionState } from './attention-port.js';

/** Display-text bound of protocol's `cwd` (MAX_CWD_CHARS); longer paths are cut, never sent over the bound. */
const MAX_CWD = 1024;

export function directoryEntry(info: SessionInfo, attention: PublicAttentionState): SessionEntry {
  const exited = info.status === 'exited';
  return {
    id: info.id,
    name: info.name,
    title: '',
    cwd: info.cwd.length <= MAX_CWD ? info.cwd : null,
    command: null,
    watchKey: null,
    cols: info.cols,
    rows: info.rows,
    exited,
    exitCode: exited ? (info.exitCode ?? (info.signal !== null ? 128 + info.signal : null)) : null,
    createdAt: info.createdAt,
    lastActivityAt: Math.max(info.createdAt, info.lastOutputAt ?? info.createdAt),
    outputOffset: info.offset,
    ...attention,
  };
}
