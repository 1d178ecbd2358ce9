/**
 * Errors the session layer reports to its callers (control socket, later the remote API), each mapping to one
 * answer: NotFoundError → "no such session"; ConflictError → the request was fine but the current state
 * forbids it (name taken, a limit reached). Malformed input is a TypeError / RangeError.
 */

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

export class ConflictError extends Error {
  override readonly name = 'ConflictError';
}
