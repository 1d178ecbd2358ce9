/**
 * The phone's copy of the Burrow's session directory (DESIGN §4.3 "Directory": a snapshot, then deltas). Pure:
 * `applyDirectoryMessage` returns a new map, so the UI can compare by identity.
 */
import type { BurrowControlMessage, SessionEntry } from '@burrow/protocol';

export type DirectoryMessage = Extract<
  BurrowControlMessage,
  { type: 'directory' } | { type: 'directory-upsert' } | { type: 'directory-remove' }
>;

export type Directory = ReadonlyMap<string, SessionEntry>;

export const EMPTY_DIRECTORY: Directory = new Map();

/** Bound on sessions we keep even if a buggy Burrow keeps upserting new ids (protocol's MAX_SESSIONS). */
export const MAX_DIRECTORY_ENTRIES = 256;

export function applyDirectoryMessage(current: Directory, message: DirectoryMessage): Directory {
  switch (message.type) {
    case 'directory':
      return new Map(message.sessions.map((e) => [e.id, e]));
    case 'directory-upsert': {
      if (!current.has(message.entry.id) && current.size >= MAX_DIRECTORY_ENTRIES) return current;
      const next = new Map(current);
      next.set(message.entry.id, message.entry);
      return next;
    }
    case 'directory-remove': {
      if (!current.has(message.session)) return current;
      const next = new Map(current);
      next.delete(message.session);
      return next;
    }
  }
}

/** Ringing first (oldest ring first), then TODO, then most recent activity (DESIGN §7 "Session list"). */
export function sortedSessions(directory: Directory): SessionEntry[] {
  return [...directory.values()].sort((a, b) => {
    if (a.ringing !== b.ringing) return a.ringing ? -1 : 1;
    if (a.ringing && b.ringing) return (a.ringingSince ?? 0) - (b.ringingSince ?? 0);
    if (a.todo !== b.todo) return a.todo ? -1 : 1;
    return b.lastActivityAt - a.lastActivityAt;
  });
}
