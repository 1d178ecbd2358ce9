import type { SessionEntry } from '@burrow/protocol';

/**
 * Why the session is no longer there (issue 17 item 4), judged from the last entry this screen saw: one that
 * was running was killed, one that had ended was removed from the list, and one never seen does not exist
 * (an old link, a notification for a session cleared since).
 */
export type GoneHow = 'killed' | 'removed' | 'missing';

export function goneHow(last: SessionEntry | undefined): GoneHow {
  if (last === undefined) return 'missing';
  return last.exited ? 'removed' : 'killed';
}

export function goneText(how: GoneHow, name: string | null, burrowName: string): string {
  const who = name === null ? 'This session' : `“${name}”`;
  switch (how) {
    case 'killed':
      return `${who} was killed on ${burrowName}. Its program has stopped.`;
    case 'removed':
      return `${who} was removed from the list on ${burrowName}.`;
    case 'missing':
      return `This session does not exist on ${burrowName} any more.`;
  }
}
