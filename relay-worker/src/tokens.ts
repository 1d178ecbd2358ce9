/**
 * Ids, bearer tokens and their hashes (DESIGN §3). Secrets come only from `crypto.getRandomValues`; the relay
 * keeps only SHA-256 of a token and compares hashes in constant time.
 */
import {
  BURROW_TOKEN_BYTES,
  DELIVERY_TOKEN_BYTES,
  encodeBase64url,
  isBase64urlOfLength,
} from '@burrow/protocol';
import { MAX_AUTHORIZATION_CHARS } from './limits.js';

export function randomBase64url(byteLength: number): string {
  return encodeBase64url(crypto.getRandomValues(new Uint8Array(byteLength)));
}

/** SHA-256 of the token's text form, base64url. */
export async function hashToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return encodeBase64url(new Uint8Array(digest));
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
  const match = /^Bearer ([A-Za-z0-9_-]+)$/.exec(header);
  const token = match?.[1];
  if (token === undefined) return null;
  // Burrow and delivery tokens are both 32 bytes.
  return isBase64urlOfLength(token, BURROW_TOKEN_BYTES) && BURROW_TOKEN_BYTES === DELIVERY_TOKEN_BYTES
    ? token
    : null;
}
