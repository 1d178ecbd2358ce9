/**
 * The wire's version. It is bound into every Noise prologue (so a phone and a Burrow that disagree fail the
 * handshake instead of misreading each other) and is reported by the relay's `GET /v1/info`.
 * Bump it on any incompatible change to a message in this package. [SPEC: P-VER-1]
 */
export const PROTOCOL_VERSION = 2;
// 2: notification sources `osc7501` and `title` (issue 23) — a phone of version 1 would refuse them.

/** The relay's HTTP surface lives under this prefix; it changes only with an incompatible HTTP change. */
export const HTTP_API_PREFIX = '/v1';
