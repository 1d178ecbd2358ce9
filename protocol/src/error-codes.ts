/**
 * Every error code Burrow puts on the wire, in one table: the relay's JSON errors
 * (`{ error: { code, message } }`) and the remote API's `error` messages share it. [SPEC: P-ERR-1]
 */
export const ErrorCode = {
  BAD_REQUEST: 'bad_request',
  UNAUTHORIZED: 'unauthorized',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  RATE_LIMITED: 'rate_limited',
  LIMIT_EXCEEDED: 'limit_exceeded',
  INTERNAL: 'internal',
  UPGRADE_REQUIRED: 'upgrade_required',
  AGENT_OFFLINE: 'agent_offline',

  // Remote API v1 (inside Noise)
  MALFORMED_MESSAGE: 'malformed_message',
  UNKNOWN_MESSAGE: 'unknown_message',
  UNKNOWN_SESSION: 'unknown_session',
  NOT_ATTACHED: 'not_attached',
  SESSION_EXITED: 'session_exited',
  SPAWN_FAILED: 'spawn_failed',
  INVALID_SETTING: 'invalid_setting',
  PUSH_UNAVAILABLE: 'push_unavailable',
  /** The direct path is off by the Burrow's network policy, or this Burrow cannot run it (R-DIRECT-1). */
  DIRECT_UNAVAILABLE: 'direct_unavailable',
  /** A direct-offer the WebRTC stack could not answer, or a direct path that did not form in time. */
  DIRECT_FAILED: 'direct_failed',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const ALL = new Set<string>(Object.values(ErrorCode));

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && ALL.has(value);
}

/** HTTP status for each relay error code; remote-API-only codes map to 400. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  limit_exceeded: 422,
  internal: 500,
  upgrade_required: 426,
  agent_offline: 503,
  malformed_message: 400,
  unknown_message: 400,
  unknown_session: 404,
  not_attached: 409,
  session_exited: 409,
  spawn_failed: 500,
  invalid_setting: 400,
  push_unavailable: 503,
  direct_unavailable: 503,
  direct_failed: 500,
};
