/** The per-Burrow connection line of the list (issue 5): the core's words, or why this phone cannot connect. */
import type { ConnectionStatus } from '../app/connection-port.js';
import { statusText } from '../core/index.js';

export type ConnectionTone = 'ok' | 'waiting' | 'down';

const TONE: Record<ConnectionStatus['kind'], ConnectionTone> = {
  connected: 'ok',
  connecting: 'waiting',
  reconnecting: 'waiting',
  closed: 'down',
};

export function connectionLine(
  status: ConnectionStatus,
  nowMs: number,
  revoked: boolean,
  online: boolean,
): { text: string; tone: ConnectionTone } {
  if (revoked) return { text: 'this phone was removed', tone: 'down' };
  if (!online) return { text: 'this phone is offline', tone: 'down' };
  return { text: statusText(status, nowMs), tone: TONE[status.kind] };
}
