/**
 * Which path carries a connected Burrow, in the words Pocket shows beside its status (issue 25: "direct" /
 * "via relay"), and why there is no direct path when there is none.
 */
import type { PathName } from '@burrow/protocol';
import type { DirectState } from './direct-link.js';

export function pathText(path: PathName | null, relayConnected: boolean): string | null {
  if (path === null) return null;
  if (path === 'direct') return relayConnected ? 'direct' : 'direct (relay unreachable)';
  return 'via relay';
}

/** One line for the Burrow's settings: whether this phone can use the direct path, and why not. */
export function directStateText(direct: DirectState): string {
  switch (direct.kind) {
    case 'unsupported':
      return 'Direct connection is not available in this browser: Pocket stays on the relay.';
    case 'unknown':
      return 'Direct connection: waiting for your computer.';
    case 'off':
      return 'Direct connection is off on your computer.';
    case 'connecting':
      return 'Direct connection: trying…';
    case 'open':
      return 'Direct connection: in use.';
    case 'waiting':
      return `Direct connection not possible now (${direct.reason}); Pocket stays on the relay.`;
  }
}
