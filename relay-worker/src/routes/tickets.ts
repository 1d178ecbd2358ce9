import { decodeRelayTicketSet, ErrorCode, RelayCodecError } from '@burrow/protocol';
import type { Hono } from 'hono';
import { jsonError } from '../json-error.js';
import { MAX_TICKET_SET_BODY_BYTES } from '../limits.js';
import { readJsonBody } from '../read-json-body.js';
import type { AppEnv } from '../services.js';
import { respond, target } from './deliveries.js';

/**
 * `PUT /v1/burrows/:id/tickets` (Burrow bearer): the SHA-256 hashes of every paired phone's relay tickets for
 * the previous, current and next epoch, as one set that replaces the last (issue 16.5). A phone that presents
 * one of those tickets when it connects gets past the shared connect bucket. [SPEC: RL-TICKET-2]
 */
export function ticketRoutes(app: Hono<AppEnv>): void {
  app.put('/v1/burrows/:id/tickets', async (c) => {
    const t = target(c);
    if (t instanceof Response) return t;
    const body = await readJsonBody(c.req.raw, MAX_TICKET_SET_BODY_BYTES);
    if (!body.ok) return jsonError(body.code, body.message);
    let set: ReturnType<typeof decodeRelayTicketSet>;
    try {
      set = decodeRelayTicketSet(body.json);
    } catch (error) {
      if (error instanceof RelayCodecError) return jsonError(ErrorCode.BAD_REQUEST, error.message);
      throw error;
    }
    return respond(await t.burrow.putTickets(t.token, set), () => new Response(null, { status: 204 }));
  });
}
