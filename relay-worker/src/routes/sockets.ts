import {
  BURROW_ID_BYTES,
  CLOSE_MESSAGES,
  CloseCode,
  ErrorCode,
  isBase64urlOfLength,
  parseClientSubprotocols,
} from '@burrow/protocol';
import type { Hono } from 'hono';
import { jsonError } from '../json-error.js';
import type { AppEnv } from '../services.js';
import { sourceKey } from '../source-key.js';
import { subprotocolHeaders } from '../subprotocol.js';
import { bearerToken } from '../tokens.js';

/**
 * `GET /v1/burrows/:id/agent` and `/client`: WebSocket upgrades, forwarded to the Burrow's object after the
 * cheap checks. The agent gets HTTP errors (it can read them); a phone's browser cannot read the status of a
 * failed upgrade, so a phone refused for rate is accepted and closed RATE_LIMITED. An upgrade with the
 * Burrow's own credential (its token, a published ticket) is not refused for its address's rate.
 * [SPEC: RL-HTTP-5, RL-LIM-4]
 */
export function socketRoutes(app: Hono<AppEnv>): void {
  for (const role of ['agent', 'client'] as const) {
    app.get(`/v1/burrows/:id/${role}`, async (c) => {
      const services = c.get('services');
      const burrowId = c.req.param('id');
      if (!isBase64urlOfLength(burrowId, BURROW_ID_BYTES))
        return jsonError(ErrorCode.NOT_FOUND, 'unknown burrow');
      if (c.req.header('Upgrade')?.toLowerCase() !== 'websocket') {
        return jsonError(ErrorCode.UPGRADE_REQUIRED, 'this is a WebSocket endpoint');
      }
      const token = role === 'agent' ? bearerToken(c.req.header('Authorization')) : null;
      if (role === 'agent' && token === null) {
        return jsonError(ErrorCode.UNAUTHORIZED, 'bad or missing burrow token');
      }
      const offered = parseClientSubprotocols(c.req.header('Sec-WebSocket-Protocol') ?? null);
      const limit = await services.takeSourceToken(
        sourceKey(c.req.header('CF-Connecting-IP') ?? null),
        'connect',
      );
      // The address spent its budget, maybe because someone else shares it (CGNAT, shared Wi-Fi): the Burrow's
      // own link and its phones still get in with their credential (issue 24.5). Others are refused as before.
      const owner =
        !limit.allowed &&
        (role === 'agent'
          ? await services.burrow(burrowId).ownerCredential('agent', token!)
          : offered.ticket !== null &&
            (await services.burrow(burrowId).ownerCredential('ticket', offered.ticket)));
      if (!limit.allowed && !owner) {
        if (role === 'client')
          return services.refuseSocket(
            CloseCode.RATE_LIMITED,
            CLOSE_MESSAGES[CloseCode.RATE_LIMITED],
            subprotocolHeaders(offered),
          );
        return jsonError(ErrorCode.RATE_LIMITED, 'too many connections from this address', {
          'Retry-After': String(Math.ceil(limit.retryAfterMs / 1000)),
        });
      }
      return services.burrow(burrowId).fetch(c.req.raw);
    });
  }
}
