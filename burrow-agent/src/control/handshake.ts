/**
 * Mutual proof of the control token over fresh nonces, modelled on vscode-host-spec "The handshake":
 *   1. daemon → challenge { nonce }            (the server speaks first, so a client never volunteers a proof)
 *   2. client → hello { nonce, proof }          proof = HMAC-SHA256(token, CLIENT_LABEL ‖ daemon nonce)
 *   3. daemon → welcome { proof }               proof = HMAC-SHA256(token, SERVER_LABEL ‖ client nonce)
 * The labels differ so a fake daemon cannot reflect the client's proof back as its welcome. Both sides compare
 * in constant time and bound the whole exchange to HANDSHAKE_BUDGET_MS.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';

export const HANDSHAKE_VERSION = 1;
export const HANDSHAKE_BUDGET_MS = 3000;
export const NONCE_BYTES = 32;
const CLIENT_LABEL = 'burrow-control/1 client:';
const SERVER_LABEL = 'burrow-control/1 server:';

const b64u32 = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{43}$/));

export const ChallengeSchema = v.strictObject({
  type: v.literal('challenge'),
  v: v.literal(1),
  nonce: b64u32,
});
export const HelloSchema = v.strictObject({
  type: v.literal('hello'),
  v: v.literal(1),
  nonce: b64u32,
  proof: b64u32,
});
export const WelcomeSchema = v.strictObject({ type: v.literal('welcome'), proof: b64u32 });

export type Challenge = v.InferOutput<typeof ChallengeSchema>;
export type Hello = v.InferOutput<typeof HelloSchema>;
export type Welcome = v.InferOutput<typeof WelcomeSchema>;

export function newNonce(): string {
  return randomBytes(NONCE_BYTES).toString('base64url');
}

export function clientProof(token: Uint8Array, daemonNonce: string): string {
  return createHmac('sha256', token).update(CLIENT_LABEL).update(daemonNonce).digest('base64url');
}

export function serverProof(token: Uint8Array, clientNonce: string): string {
  return createHmac('sha256', token).update(SERVER_LABEL).update(clientNonce).digest('base64url');
}

/** Constant-time equality of two base64url proofs (length is public: both are 32-byte HMACs). */
export function proofsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'base64url');
  const y = Buffer.from(b, 'base64url');
  return x.byteLength === 32 && y.byteLength === 32 && timingSafeEqual(x, y);
}
