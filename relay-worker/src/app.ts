/**
 * The relay's HTTP surface: `/v1/*` answers JSON (errors `{ error: { code, message } }`), everything else is
 * the PWA's static assets with the security headers, SPA fallback included; every response but a 101 says
 * `X-Content-Type-Options: nosniff`. [SPEC: RL-HTTP-9, RL-ASSET-1]
 */
import { ErrorCode, HTTP_API_PREFIX } from '@burrow/protocol';
import { Hono } from 'hono';
import { drainBody } from './drain-body.js';
import { jsonError } from './json-error.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { enrollRoutes } from './routes/enroll.js';
import { infoRoutes } from './routes/info.js';
import { pushRoutes } from './routes/push.js';
import { socketRoutes } from './routes/sockets.js';
import { ticketRoutes } from './routes/tickets.js';
import { withNoSniff, withSecurityHeaders } from './security-headers.js';
import type { AppEnv, RelayServices } from './services.js';

export function createApp(services: (request: Request, bindings: unknown) => RelayServices): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('services', services(c.req.raw, c.env));
    await next();
    // Every response, not only the assets': a browser must never read a JSON answer or an error as anything
    // else (issue 24.8). A 101 carries its socket and is left as it is.
    if (c.res.status !== 101) c.res = withNoSniff(c.res);
    // A refusal (401, 404, 413, …) leaves the request body unread; under `wrangler dev` that left the next
    // request unanswered (drain-body.ts). Read it away before the answer goes out.
    const body = c.req.raw.body;
    if (body !== null && !c.req.raw.bodyUsed && !isWebSocketUpgrade(c.req.raw)) {
      await drainBody(body.getReader());
    }
  });
  infoRoutes(app);
  enrollRoutes(app);
  socketRoutes(app);
  deliveryRoutes(app);
  pushRoutes(app);
  ticketRoutes(app);
  app.all(`${HTTP_API_PREFIX}/*`, () => jsonError(ErrorCode.NOT_FOUND, 'no such relay route'));
  app.all(HTTP_API_PREFIX, () => jsonError(ErrorCode.NOT_FOUND, 'no such relay route'));
  app.all('*', async (c) => withSecurityHeaders(await c.get('services').fetchAsset(withoutBody(c.req.raw))));
  app.onError((error, c) => {
    // Never echo the error: it could carry request content. The path alone is enough to find it.
    console.error(
      `relay error on ${new URL(c.req.url).pathname}: ${error instanceof Error ? error.name : 'unknown'}`,
    );
    return jsonError(ErrorCode.INTERNAL, 'internal error');
  });
  return app;
}

function isWebSocketUpgrade(request: Request): boolean {
  return request.headers.get('Upgrade')?.toLowerCase() === 'websocket';
}

/**
 * The request as the assets get it: without its body. They read none (anything but GET and HEAD gets 405),
 * and a body handed on unread is one the middleware above can no longer read away (drain-body.ts).
 */
function withoutBody(request: Request): Request {
  if (request.body === null) return request;
  return new Request(request.url, { method: request.method, headers: request.headers });
}
