/**
 * Reads a bounded JSON request body: `application/json` only, at most `maxBytes`, checked against
 * Content-Length first and again while streaming (a chunked body has no length). [SPEC: RL-LIM-5]
 */
import { ErrorCode } from '@burrow/protocol';
import { drainBody } from './drain-body.js';

export type BodyResult =
  | { readonly ok: true; readonly json: unknown }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

export async function readJsonBody(request: Request, maxBytes: number): Promise<BodyResult> {
  const type = request.headers.get('Content-Type') ?? '';
  if (!/^application\/json(\s*;|$)/i.test(type)) {
    return { ok: false, code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, message: 'expected application/json' };
  }
  const declared = Number(request.headers.get('Content-Length') ?? '0');
  if (declared > maxBytes)
    return { ok: false, code: ErrorCode.PAYLOAD_TOO_LARGE, message: `body over ${maxBytes} bytes` };
  if (request.body === null) return { ok: false, code: ErrorCode.BAD_REQUEST, message: 'empty body' };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await drainBody(reader); // never answer with the body unread (drain-body.ts)
      return { ok: false, code: ErrorCode.PAYLOAD_TOO_LARGE, message: `body over ${maxBytes} bytes` };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return {
      ok: true,
      json: JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)),
    };
  } catch {
    return { ok: false, code: ErrorCode.BAD_REQUEST, message: 'body is not JSON' };
  }
}
