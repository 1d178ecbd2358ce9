import { BURROW_ID_BYTES, BURROW_TOKEN_BYTES, type EnrollResponse, ErrorCode } from '@burrow/protocol';
import type { Hono } from 'hono';
import { jsonError } from '../json-error.js';
import { MAX_ENROLL_SECRET_CHARS } from '../limits.js';
import type { AppEnv } from '../services.js';
import { sourceKey } from '../source-key.js';
import { constantTimeEqual, hashText, hashToken, randomBase64url } from '../tokens.js';

/**
 * `POST /v1/burrows`: enroll a Burrow. Rate-limited per source before anything else (so the operator secret
 * cannot be brute-forced fast); then gated by `ENROLL_SECRET`. A relay without the secret is closed (403)
 * unless the development flag `DEV_OPEN_ENROLLMENT` opens it (issue 16.1: an open relay let anyone enroll,
 * register deliveries and make the relay POST). [SPEC: RL-HTTP-2, RL-HTTP-3]
 */
export function enrollRoutes(app: Hono<AppEnv>): void {
  app.post('/v1/burrows', async (c) => {
    const services = c.get('services');
    const limit = await services.takeSourceToken(
      sourceKey(c.req.header('CF-Connecting-IP') ?? null),
      'enroll',
    );
    if (!limit.allowed) {
      return jsonError(ErrorCode.RATE_LIMITED, 'too many enrollments from this address', {
        'Retry-After': String(Math.ceil(limit.retryAfterMs / 1000)),
      });
    }
    const policy = services.enrollment;
    if (policy.kind === 'closed') {
      return jsonError(
        ErrorCode.FORBIDDEN,
        'enrollment is closed: the relay operator has not set ENROLL_SECRET',
      );
    }
    if (policy.kind === 'secret' && !(await secretMatches(c.req.header('Authorization'), policy.secret))) {
      return jsonError(ErrorCode.UNAUTHORIZED, 'this relay needs its enrollment secret');
    }
    const burrowId = randomBase64url(BURROW_ID_BYTES);
    const burrowToken = randomBase64url(BURROW_TOKEN_BYTES);
    if (!(await services.burrow(burrowId).enroll(await hashToken(burrowToken)))) {
      return jsonError(ErrorCode.CONFLICT, 'burrowId collision; retry');
    }
    const body: EnrollResponse = { burrowId, burrowToken };
    return c.json(body, 201, { 'Cache-Control': 'no-store' });
  });
}

/** Compares hashes, so the comparison is constant-time whatever the lengths. */
async function secretMatches(header: string | undefined, secret: string): Promise<boolean> {
  if (header === undefined || header.length > MAX_ENROLL_SECRET_CHARS + 7 || !header.startsWith('Bearer '))
    return false;
  const [presented, expected] = await Promise.all([hashText(header.slice(7)), hashText(secret)]);
  return constantTimeEqual(presented, expected);
}
