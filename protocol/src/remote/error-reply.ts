/**
 * The Burrow's answer to a message it could not accept. [SPEC: R-ERR-2]
 */
import type { BurrowControlMessage } from './burrow-messages.js';
import { ProtocolError } from './errors.js';
import { MAX_ERROR_TEXT_CHARS } from './limits.js';

export type ErrorMessage = Extract<BurrowControlMessage, { type: 'error' }>;

/**
 * The `error` message for a non-fatal ProtocolError: its code, its rid (null when the message had no valid one),
 * and its text (rule and field path only, never a peer value). A fatal error has no reply: close with
 * `CloseCode.PROTOCOL_VIOLATION` instead, which is why this throws for one.
 */
export function errorReply(error: ProtocolError): ErrorMessage {
  if (!(error instanceof ProtocolError)) throw new TypeError('error must be a ProtocolError');
  if (error.fatal) throw new RangeError('a fatal ProtocolError is answered by closing the connection');
  return {
    type: 'error',
    rid: error.rid ?? null,
    code: error.code,
    message: error.message.slice(0, MAX_ERROR_TEXT_CHARS),
  };
}
