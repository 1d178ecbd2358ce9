// The relay's HTTP bodies and the relay↔Burrow socket framing. Rules: protocol/SPEC-relay.md.
export * from './agent-frame.js';
export { decodeBase64url, encodeBase64url, isBase64urlOfLength } from './base64url.js';
export * from './http-bodies.js';
export * from './keepalive.js';
export { RelayCodecError, type RelayCodecErrorReason } from './relay-codec-error.js';
export * from './relay-ticket.js';
