import { PROTOCOL_VERSION, type RelayInfo } from '@burrow/protocol';
import type { Hono } from 'hono';
import { PUBLISHED_LIMITS } from '../limits.js';
import type { AppEnv } from '../services.js';

/** `GET /v1/info`: what a Burrow or phone needs to know about this relay. [SPEC: RL-HTTP-1, RL-PUSH-7] */
export function infoRoutes(app: Hono<AppEnv>): void {
  app.get('/v1/info', async (c) => {
    const services = c.get('services');
    const body: RelayInfo = {
      service: 'burrow-relay',
      protocolVersion: PROTOCOL_VERSION,
      vapidPublicKey: await services.vapidPublicKey(),
      // Gated unless the development flag opened it: a closed relay admits nobody, a gated one needs the secret.
      enrollmentGated: services.enrollment.kind !== 'open-for-development',
      limits: { ...PUBLISHED_LIMITS },
    };
    return c.json(body, 200, { 'Cache-Control': 'no-store' });
  });
}
