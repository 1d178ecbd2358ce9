/**
 * The `Sec-WebSocket-Protocol` answer to a phone's upgrade (RL-TICKET-4): `burrow.v1` whenever the phone
 * offered it, on every 101 (refusals included), because a browser that offered subprotocols fails a socket
 * whose answer selects none, before it can read the close code. The ticket the phone offered beside it is
 * never echoed.
 */
import { BURROW_SUBPROTOCOL, type OfferedSubprotocols } from '@burrow/protocol';

export function subprotocolHeaders(offered: OfferedSubprotocols): Record<string, string> {
  return offered.burrow ? { 'Sec-WebSocket-Protocol': BURROW_SUBPROTOCOL } : {};
}
