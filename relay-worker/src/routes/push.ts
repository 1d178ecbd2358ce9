import { ErrorCode } from '@burrow/protocol';
import type { Hono } from 'hono';
import { jsonError } from '../json-error.js';
import { MAX_PUSH_SEND_BODY_BYTES, PUSH_SEND_RATE_PER_BURROW } from '../limits.js';
import { readJsonBody } from '../read-json-body.js';
import type { AppEnv } from '../services.js';
import { respond, target } from './deliveries.js';

/** A refused send may retry once one token is back in the bucket. */
const RETRY_AFTER_SECONDS = String(Math.ceil(PUSH_SEND_RATE_PER_BURROW.refillIntervalMs / 1000));

/**
 * `POST /v1/burrows/:id/push` (Burrow bearer): the Burrow's sealed envelopes, one per phone, sent on as Web
 * Push (DESIGN §4.4 step 4). The Worker checks the token's shape and bounds the body; the Burrow's object
 * checks the token (constant time), the rate, and does the sending (push/push-send.ts), because the
 * subscriptions live there. [SPEC: RL-PUSH-1..5]
 */
export function pushRoutes(app: Hono<AppEnv>): void {
  app.post('/v1/burrows/:id/push', async (c) => {
    const t = target(c);
    if (t instanceof Response) return t;
    const body = await readJsonBody(c.req.raw, MAX_PUSH_SEND_BODY_BYTES);
    if (!body.ok) return jsonError(body.code, body.message);
    const result = await t.burrow.push(t.token, body.json);
    if (!result.ok && result.code === ErrorCode.RATE_LIMITED) {
      return jsonError(result.code, result.message, { 'Retry-After': RETRY_AFTER_SECONDS });
    }
    return respond(result, (v) => c.json(v, 200, { 'Cache-Control': 'no-store' }));
  });
}
