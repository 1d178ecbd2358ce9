import type { ErrorCode } from '@burrow/protocol';

/** What a Durable Object RPC returns: a value, or a relay error the HTTP layer turns into JSON. */
export type ApiResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

export const ok = <T>(value: T): ApiResult<T> => ({ ok: true, value });
export const fail = (code: ErrorCode, message: string): ApiResult<never> => ({ ok: false, code, message });
