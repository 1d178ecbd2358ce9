import { ErrorCode } from '../error-codes.js';

/**
 * The one error the remote API's decoders throw. [SPEC: R-ERR-1]
 *
 * `rule` is the SPEC.md rule the input broke. `fatal` says whether the byte stream itself is broken (a bad
 * frame header, a fragment out of order): the receiver must close the connection with
 * `CloseCode.PROTOCOL_VIOLATION`. A non-fatal error is one well-framed message that failed validation: the
 * Burrow answers it with an `error` message (echoing `rid` when the message carried a valid one) and goes on.
 *
 * The message names the rule and the offending field path, never a value the peer sent: decoded text may be a
 * secret (a psk, a token, what the user typed) and error messages end up in log lines.
 */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  readonly rule: string;
  readonly code: ErrorCode;
  readonly fatal: boolean;
  readonly rid: number | undefined;

  constructor(
    rule: string,
    message: string,
    options: { code?: ErrorCode; fatal?: boolean; rid?: number | undefined } = {},
  ) {
    super(`${rule}: ${message}`);
    this.rule = rule;
    this.code = options.code ?? ErrorCode.MALFORMED_MESSAGE;
    this.fatal = options.fatal ?? false;
    this.rid = options.rid;
  }
}

/** A broken byte stream: the connection must close. */
export function fatalError(rule: string, message: string): ProtocolError {
  return new ProtocolError(rule, message, { fatal: true });
}
