/**
 * VAPID tokens (RFC 8292 §2): a JWT signed ES256 (JWS raw r ‖ s, RFC 7518 §3.4 — what WebCrypto's ECDSA
 * produces, not DER) with `aud` = the push service's origin, `exp` at most 24 h ahead (§2; DESIGN §4.4: we
 * use 12 h) and `sub` a contact URL. The subject must be a real `mailto:` or `https:` URL: Apple's service
 * rejects tokens whose subject is localhost-ish (DESIGN §3).
 */
import { encodeBase64url } from '@burrow/protocol';
import { ascii } from './bytes.js';
import { publicHostProblem } from './public-host.js';
import type { VapidKeys } from './vapid-keys.js';

/** DESIGN §4.4: exp ≤ 12 h. */
export const VAPID_TOKEN_LIFETIME_SECONDS = 12 * 60 * 60;
/** Longest subject accepted (characters). */
export const MAX_VAPID_SUBJECT_CHARS = 256;

const MAILTO = /^mailto:([^@\s?#/]+)@([^@\s?#/]+)$/i;
const JWT_HEADER = encodeBase64url(ascii(JSON.stringify({ typ: 'JWT', alg: 'ES256' })));

export interface VapidClaims {
  readonly aud: string;
  /** Seconds since the Unix epoch. */
  readonly exp: number;
  readonly sub: string;
}

/** Why `subject` is not an acceptable VAPID contact, or null. */
export function vapidSubjectProblem(subject: string): string | null {
  if (typeof subject !== 'string') throw new TypeError('VAPID subject must be a string');
  if (subject.length > MAX_VAPID_SUBJECT_CHARS) return 'VAPID subject is too long';
  const mail = MAILTO.exec(subject);
  if (mail) {
    const problem = publicHostProblem(mail[2]!.toLowerCase());
    return problem === null ? null : `VAPID subject mailto: domain: ${problem}`;
  }
  if (!subject.toLowerCase().startsWith('https:')) return 'VAPID subject must be a mailto: or https: URL';
  let url: URL;
  try {
    url = new URL(subject);
  } catch {
    return 'VAPID subject is not a URL';
  }
  if (url.username !== '' || url.password !== '') return 'VAPID subject must not carry credentials';
  const problem = publicHostProblem(url.hostname);
  return problem === null ? null : `VAPID subject host: ${problem}`;
}

/** The audience for an endpoint: its origin (scheme, host, port). @throws RangeError when not a URL. */
export function vapidAudience(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    throw new RangeError('endpoint is not a URL');
  }
}

export async function signVapidJwt(keys: VapidKeys, claims: VapidClaims): Promise<string> {
  if (!Number.isSafeInteger(claims.exp) || claims.exp < 0) throw new RangeError('exp must be epoch seconds');
  const problem = vapidSubjectProblem(claims.sub);
  if (problem !== null) throw new RangeError(problem);
  const body = encodeBase64url(ascii(JSON.stringify({ aud: claims.aud, exp: claims.exp, sub: claims.sub })));
  const signingInput = `${JWT_HEADER}.${body}`;
  const signature = await crypto.subtle.sign(
    { name: 'ECDSA', hash: 'SHA-256' },
    keys.privateKey,
    ascii(signingInput),
  );
  return `${signingInput}.${encodeBase64url(new Uint8Array(signature))}`;
}

/** RFC 8292 §3: `Authorization: vapid t=<JWT>, k=<public key>`. */
export const vapidAuthorization = (token: string, publicKeyText: string): string =>
  `vapid t=${token}, k=${publicKeyText}`;
