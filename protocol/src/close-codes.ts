/**
 * Every WebSocket close code Burrow uses, in one table. [SPEC: P-CLOSE-1]
 *
 * 4000–4099 are chosen by the relay; 4100–4199 are chosen by the Burrow (inside or after Noise) and the relay
 * passes them to the phone unchanged when the Burrow asks it to close a client. A phone shows `message`.
 * Codes below 4000 are the standard ones from RFC 6455 §7.4.1 that we also send.
 */
export const CloseCode = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  POLICY: 1008,
  MESSAGE_TOO_BIG: 1009,
  INTERNAL_ERROR: 1011,

  // Relay
  AGENT_OFFLINE: 4000,
  AGENT_REPLACED: 4001,
  UNAUTHORIZED: 4002,
  FRAME_TOO_LARGE: 4003,
  TOO_MANY_CLIENTS: 4004,
  RATE_LIMITED: 4005,
  MALFORMED_FRAME: 4006,
  AGENT_DISCONNECTED: 4007,
  BURROW_DELETED: 4008,
  TOO_MUCH_DATA: 4009,

  // Burrow
  HANDSHAKE_FAILED: 4100,
  DEVICE_REVOKED: 4101,
  HANDSHAKE_TIMEOUT: 4102,
  STALE_HANDSHAKE: 4103,
  PAIRING_UNAVAILABLE: 4104,
  DECRYPT_FAILED: 4105,
  UNKNOWN_DEVICE: 4106,
  PROTOCOL_VIOLATION: 4107,
  PAIRING_REJECTED: 4108,
  VIEWER_TOO_SLOW: 4109,
  SHUTTING_DOWN: 4110,
  PHONE_SILENT: 4111,
  /** R-PATH-8: a REJOIN named no connection this Burrow still holds. */
  UNKNOWN_REJOIN: 4112,
} as const;

export type CloseCode = (typeof CloseCode)[keyof typeof CloseCode];

/** Words a phone can show for each code; never includes anything sent by the peer. */
export const CLOSE_MESSAGES: Readonly<Record<CloseCode, string>> = {
  [CloseCode.NORMAL]: 'closed',
  [CloseCode.GOING_AWAY]: 'the other side went away',
  [CloseCode.POLICY]: 'refused by policy',
  [CloseCode.MESSAGE_TOO_BIG]: 'message too big',
  [CloseCode.INTERNAL_ERROR]: 'internal error',
  [CloseCode.AGENT_OFFLINE]: 'your computer is offline',
  [CloseCode.AGENT_REPLACED]: 'a newer Burrow connection replaced this one',
  [CloseCode.UNAUTHORIZED]: 'not authorized',
  [CloseCode.FRAME_TOO_LARGE]: 'frame too large',
  [CloseCode.TOO_MANY_CLIENTS]: 'too many phones connected to this computer',
  [CloseCode.RATE_LIMITED]: 'too many connections; try again shortly',
  [CloseCode.MALFORMED_FRAME]: 'malformed frame',
  [CloseCode.AGENT_DISCONNECTED]: 'your computer disconnected',
  [CloseCode.BURROW_DELETED]: 'this computer is no longer enrolled at the relay',
  [CloseCode.TOO_MUCH_DATA]: 'too much data sent to your computer; try again shortly',
  [CloseCode.HANDSHAKE_FAILED]: 'secure handshake failed',
  [CloseCode.DEVICE_REVOKED]: 'this phone was removed',
  [CloseCode.HANDSHAKE_TIMEOUT]: 'secure handshake took too long',
  [CloseCode.STALE_HANDSHAKE]: 'handshake replayed or clock went backwards',
  [CloseCode.PAIRING_UNAVAILABLE]: 'this pairing link was used or has expired',
  [CloseCode.DECRYPT_FAILED]: 'a message failed to decrypt',
  [CloseCode.UNKNOWN_DEVICE]: 'this phone is not paired with that computer',
  [CloseCode.PROTOCOL_VIOLATION]: 'protocol violation',
  [CloseCode.PAIRING_REJECTED]: 'pairing was declined on the computer',
  [CloseCode.VIEWER_TOO_SLOW]: 'connection too slow to keep up',
  [CloseCode.SHUTTING_DOWN]: 'your computer is shutting down Burrow',
  [CloseCode.PHONE_SILENT]: 'your computer heard nothing from this phone for too long',
  [CloseCode.UNKNOWN_REJOIN]: 'that connection has ended; connecting again',
};

/** The Burrow may ask the relay to close a client only with a Burrow code or a normal close. */
export function isBurrowCloseCode(code: number): boolean {
  return code === CloseCode.NORMAL || (code >= 4100 && code <= 4199);
}
