import {
  BURROW_ID_BYTES,
  DELIVERY_ID_BYTES,
  decodePushSubscription,
  decodeRegisterDeliveryRequest,
  ErrorCode,
  isBase64urlOfLength,
  RelayCodecError,
} from '@burrow/protocol';
import type { Context, Hono } from 'hono';
import type { ApiResult } from '../api-result.js';
import { jsonError } from '../json-error.js';
import { MAX_JSON_BODY_BYTES } from '../limits.js';
import { subscriptionProblem } from '../push-subscription-check.js';
import { readJsonBody } from '../read-json-body.js';
import type { AppEnv, BurrowApi } from '../services.js';
import { bearerToken } from '../tokens.js';

const BASE = '/v1/burrows/:id';

type Ctx = Context<AppEnv>;

/** The Burrow's object and the presented bearer token, or the error response (shared with routes/push.ts). */
export function target(c: Ctx): { burrow: BurrowApi; token: string } | Response {
  const burrowId = c.req.param('id') ?? '';
  if (!isBase64urlOfLength(burrowId, BURROW_ID_BYTES))
    return jsonError(ErrorCode.NOT_FOUND, 'unknown burrow');
  const deliveryId = c.req.param('deliveryId');
  if (deliveryId !== undefined && !isBase64urlOfLength(deliveryId, DELIVERY_ID_BYTES)) {
    return jsonError(ErrorCode.NOT_FOUND, 'unknown delivery');
  }
  const token = bearerToken(c.req.header('Authorization'));
  if (token === null) return jsonError(ErrorCode.UNAUTHORIZED, 'missing or malformed bearer token');
  return { burrow: c.get('services').burrow(burrowId), token };
}

export function respond<T>(result: ApiResult<T>, onOk: (value: T) => Response): Response {
  return result.ok ? onOk(result.value) : jsonError(result.code, result.message);
}

const noContent = () => new Response(null, { status: 204 });

function badBody(error: unknown): Response {
  if (error instanceof RelayCodecError) return jsonError(ErrorCode.BAD_REQUEST, error.message);
  throw error;
}

/**
 * Burrow-authenticated: status, list / register / revoke deliveries. Phone-authenticated (delivery token):
 * put / delete its Web Push subscription. [SPEC: RL-HTTP-4, RL-HTTP-6, RL-HTTP-7]
 * The Burrow's push send is routes/push.ts.
 */
export function deliveryRoutes(app: Hono<AppEnv>): void {
  app.get(`${BASE}/status`, async (c) => {
    const t = target(c);
    if (t instanceof Response) return t;
    return respond(await t.burrow.status(t.token), (v) => c.json(v, 200, { 'Cache-Control': 'no-store' }));
  });

  app.get(`${BASE}/deliveries`, async (c) => {
    const t = target(c);
    if (t instanceof Response) return t;
    return respond(await t.burrow.listDeliveries(t.token), (v) =>
      c.json(v, 200, { 'Cache-Control': 'no-store' }),
    );
  });

  app.put(`${BASE}/deliveries/:deliveryId`, async (c) => {
    const t = target(c);
    if (t instanceof Response) return t;
    const body = await readJsonBody(c.req.raw, MAX_JSON_BODY_BYTES);
    if (!body.ok) return jsonError(body.code, body.message);
    let tokenHash: string;
    try {
      tokenHash = decodeRegisterDeliveryRequest(body.json).tokenHash;
    } catch (error) {
      return badBody(error);
    }
    const result = await t.burrow.putDelivery(t.token, c.req.param('deliveryId'), tokenHash);
    return respond(result, (v) => new Response(null, { status: v === 'created' ? 201 : 204 }));
  });

  app.delete(`${BASE}/deliveries/:deliveryId`, async (c) => {
    const t = target(c);
    if (t instanceof Response) return t;
    return respond(await t.burrow.deleteDelivery(t.token, c.req.param('deliveryId')), noContent);
  });

  app.put(`${BASE}/deliveries/:deliveryId/subscription`, async (c) => {
    const t = target(c);
    if (t instanceof Response) return t;
    const body = await readJsonBody(c.req.raw, MAX_JSON_BODY_BYTES);
    if (!body.ok) return jsonError(body.code, body.message);
    let subscription: ReturnType<typeof decodePushSubscription>;
    try {
      subscription = decodePushSubscription(body.json);
    } catch (error) {
      return badBody(error);
    }
    const services = c.get('services');
    const problem = await subscriptionProblem(subscription, {
      allowLoopbackForDev: services.allowLoopbackPushForDev,
      extraServiceHosts: services.extraPushServiceHosts,
    });
    if (problem !== null) return jsonError(ErrorCode.BAD_REQUEST, problem);
    return respond(
      await t.burrow.putSubscription(c.req.param('deliveryId'), t.token, subscription),
      noContent,
    );
  });

  app.delete(`${BASE}/deliveries/:deliveryId/subscription`, async (c) => {
    const t = target(c);
    if (t instanceof Response) return t;
    return respond(await t.burrow.deleteSubscription(c.req.param('deliveryId'), t.token), noContent);
  });
}
