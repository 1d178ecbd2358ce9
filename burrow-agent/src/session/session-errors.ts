/**
 * Errors the session layer reports to its callers (control socket, remote API), each mapping to one answer:
 * NotFoundError → "no such session"; ConflictError → the request was fine but the current state forbids it
 * (a name taken); LimitError, a ConflictError → one of Burrow's limits is reached, and the message names it.
 * Malformed input is a TypeError / RangeError. The remote API passes each one's message on (issue 24.8: a
 * phone used to read "internal error").
 */

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

export class ConflictError extends Error {
  override readonly name: string = 'ConflictError';
}

/** A named limit is reached (sessions, viewers); the message says which and what to do. */
export class LimitError extends ConflictError {
  override readonly name = 'LimitError';
}
