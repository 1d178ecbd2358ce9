/**
 * Keep-alive on both relay sockets. [SPEC: RL-KEEP-1]
 *
 * A peer sends the text frame `KEEPALIVE_PING`; the relay answers `KEEPALIVE_PONG` through the Durable
 * Object's WebSocket auto-response, so a ping never wakes a hibernated relay object. These are the only text
 * frames on either socket; every other frame is binary.
 */
export const KEEPALIVE_PING = 'burrow-ping';
export const KEEPALIVE_PONG = 'burrow-pong';
/** How often a peer should ping an idle socket (ms); well under common 60 s NAT/proxy idle timeouts. */
export const KEEPALIVE_INTERVAL_MS = 30_000;
