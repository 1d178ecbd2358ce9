/**
 * Ids, bearer tokens and their hashes (DESIGN §3). Secrets come only from `crypto.getRandomValues`; the relay
 * keeps only SHA-256 of a token and compares hashes in constant time.
 */
import {
  BURROW_TOKEN_BYTES,
  DELIVERY_TOKEN_BYTES,
  decodeBase64url,
  encodeBase64url,
  isBase64urlOfLength,
} from '@burrow/protocol';
import { MAX_AUTHORIZATION_CHARS } from './limits.js';

export function randomBase64url(byteLength: number): string {
  return encodeBase64url(crypto.getRandomValues(new Uint8Array(byteLength)));
}

/**
 * base64url(SHA-256(token bytes)) for a 32-byte token in base64url. [SPEC: RL-ID-2] A string that is not such
 * a token hashes its UTF-8 text instead, so it can never equal a stored hash of a real token.
 */
export async function hashToken(token: string): Promise<string> {
  const bytes = isBase64urlOfLength(token, BURROW_TOKEN_BYTES)
    ? decodeBase64url(token)
    : hashDomainText(token);
  return encodeBase64url(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
}

/** A prefix no 32-byte token starts the same way with: keeps text hashes apart from token hashes. */
function hashDomainText(text: string): Uint8Array {
  return new TextEncoder().encode(`burrow-relay-text:${text}`);
}

/** base64url(SHA-256(UTF-8 text)), for comparing operator secrets of any length in constant time. */
export async function hashText(text: string): Promise<string> {
  return encodeBase64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))),
  );
}

/** Constant-time for equal lengths; lengths are public (every hash is 43 characters). */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The token in `Authorization: Bearer <token>` when it has the shape of a 32-byte token; else null. */
export function bearerToken(header: string | null | undefined): string | null {
  if (typeof header !== 'string' || header.length > MAX_AUTHORIZATION_CHARS) return null;
  const token = /^Bearer ([A-Za-z0-9_-]+)$/.exec(header)?.[1];
  return token !== undefined && isBase64urlOfLength(token, BEARER_TOKEN_BYTES) ? token : null;
}

/** Burrow tokens and delivery tokens are both 32 bytes (DESIGN §3). */
const BEARER_TOKEN_BYTES = BURROW_TOKEN_BYTES;
if (DELIVERY_TOKEN_BYTES !== BEARER_TOKEN_BYTES) throw new Error('token sizes diverged; update bearerToken');
