import { type ErrorCode, errorBody, HTTP_STATUS } from '@burrow/protocol';

/** A relay error as JSON `{ error: { code, message } }` with the table's HTTP status. [SPEC: RL-HTTP-9] */
export function jsonError(code: ErrorCode, message: string, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(errorBody(code, message)), {
    status: HTTP_STATUS[code],
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
  });
}
