/**
 * Relay tickets (issue 16.5, SPEC RL-TICKET-1..4). They let a paired phone past the shared per-Burrow connect
 * bucket without the relay learning which phone it is. Attackers from several addresses can keep that bucket
 * empty, and the relay cannot tell the owner's phone from theirs: Noise authenticates inside the Burrow, not at
 * the relay.
 *
 * - A ticket is 32 bytes. The phone and its Burrow both derive it from the device psk, the burrowId and the
 *   hour (`@burrow/crypto` `relayTicket`): issued with the psk at pairing, new every epoch.
 * - The Burrow publishes the SHA-256 hashes of every paired phone's tickets for the previous, current and next
 *   epoch: `PUT /v1/burrows/:id/tickets` (Burrow bearer), as one sorted set with no deliveryId or device id
 *   attached. It publishes again at every epoch boundary, and at once when a phone is paired or revoked.
 * - The phone offers the ticket as a WebSocket subprotocol, `burrow-ticket.<base64url>`, next to
 *   `burrow.v1`. A browser cannot set `Authorization` on a WebSocket, and a URL must never carry a secret.
 *   The relay answers `burrow.v1` and never echoes the ticket.
 * - The relay hashes the ticket and looks it up in the set. It learns that some paired phone of this Burrow is
 *   connecting, and which ticket it used within this hour. Tickets of different hours and different phones
 *   cannot be linked to each other, and none to a deliveryId.
 * - While `burrow pair` is open the set also names the pairing link's ticket (`pairingTicketHashes`, issue
 *   24.5, RL-TICKET-5; `@burrow/crypto` `pairingTicket`), which the pairing phone offers the same way. Such a
 *   socket has its own small per-Burrow connect budget, so pairing works while others flood the Burrow.
 */
import * as v from 'valibot';
import { isBase64urlOfLength } from './base64url.js';
import { TOKEN_HASH_BYTES } from './http-bodies.js';
import { RelayCodecError } from './relay-codec-error.js';

/** The subprotocol every Burrow phone socket may offer; the relay selects it whenever it is offered. */
export const BURROW_SUBPROTOCOL = 'burrow.v1';
/** A subprotocol `burrow-ticket.<43 base64url characters>` carries the phone's relay ticket. */
export const RELAY_TICKET_SUBPROTOCOL_PREFIX = 'burrow-ticket.';
/** A relay ticket's length (bytes). */
export const RELAY_TICKET_BYTES = 32;
/** Epochs whose tickets the Burrow publishes at once: the previous, the current and the next. */
export const RELAY_TICKET_EPOCHS_PUBLISHED = 3;
/** Paired phones a Burrow may have (the relay's MAX_DELIVERIES_PER_BURROW, the Burrow's MAX_ACL_ENTRIES). */
export const MAX_RELAY_TICKET_DEVICES = 64;
/** Most ticket hashes in one published set. */
export const MAX_RELAY_TICKETS = RELAY_TICKET_EPOCHS_PUBLISHED * MAX_RELAY_TICKET_DEVICES;
/** Pairing tickets in one set: the one open `burrow pair` offer (only one is open at a time). */
export const MAX_PAIRING_TICKETS = 1;
/** Longest `Sec-WebSocket-Protocol` header the relay reads (characters): two entries fit in 80. */
export const MAX_SUBPROTOCOL_HEADER_CHARS = 256;

/** The subprotocols a paired phone offers: `burrow.v1`, then its ticket if it has one. */
export function clientSubprotocols(ticket: string | null): string[] {
  if (ticket === null) return [BURROW_SUBPROTOCOL];
  if (!isBase64urlOfLength(ticket, RELAY_TICKET_BYTES))
    throw new RangeError('ticket must be base64url of 32 bytes');
  return [BURROW_SUBPROTOCOL, `${RELAY_TICKET_SUBPROTOCOL_PREFIX}${ticket}`];
}

export interface OfferedSubprotocols {
  /** The phone offered `burrow.v1`: the 101 answer must select it, or the browser fails the socket. */
  readonly burrow: boolean;
  /** The ticket it offered (base64url of 32 bytes), or null. */
  readonly ticket: string | null;
}

/** Reads a `Sec-WebSocket-Protocol` request header (null when absent). Never throws on a string. */
export function parseClientSubprotocols(header: string | null): OfferedSubprotocols {
  if (header !== null && typeof header !== 'string') throw new TypeError('header must be a string or null');
  if (header === null || header.length > MAX_SUBPROTOCOL_HEADER_CHARS) return { burrow: false, ticket: null };
  let burrow = false;
  let ticket: string | null = null;
  for (const entry of header.split(',')) {
    const name = entry.trim();
    if (name === BURROW_SUBPROTOCOL) burrow = true;
    else if (name.startsWith(RELAY_TICKET_SUBPROTOCOL_PREFIX) && ticket === null) {
      const value = name.slice(RELAY_TICKET_SUBPROTOCOL_PREFIX.length);
      if (isBase64urlOfLength(value, RELAY_TICKET_BYTES)) ticket = value;
    }
  }
  return { burrow, ticket };
}

/** `PUT /v1/burrows/:id/tickets` (Burrow bearer) body: the whole set, replacing the last one. [RL-TICKET-2] */
export const RelayTicketSetSchema = v.strictObject({
  ticketHashes: v.pipe(
    v.array(
      v.pipe(
        v.string(),
        v.check(
          (s) => isBase64urlOfLength(s, TOKEN_HASH_BYTES),
          'a ticket hash must be base64url of 32 bytes',
        ),
      ),
    ),
    v.maxLength(MAX_RELAY_TICKETS, `at most ${MAX_RELAY_TICKETS} ticket hashes`),
    v.check((list) => new Set(list).size === list.length, 'ticket hashes must be distinct'),
  ),
  // Absent from a Burrow that predates pairing tickets: none.
  pairingTicketHashes: v.optional(
    v.pipe(
      v.array(
        v.pipe(
          v.string(),
          v.check(
            (s) => isBase64urlOfLength(s, TOKEN_HASH_BYTES),
            'a ticket hash must be base64url of 32 bytes',
          ),
        ),
      ),
      v.maxLength(MAX_PAIRING_TICKETS, `at most ${MAX_PAIRING_TICKETS} pairing ticket hash`),
    ),
  ),
});
export interface RelayTicketSet {
  readonly ticketHashes: readonly string[];
  /** The open pairing link's ticket hash (RL-TICKET-5); absent or empty when no `burrow pair` is open. */
  readonly pairingTicketHashes?: readonly string[];
}

/** @throws RelayCodecError('bad_body') */
export function decodeRelayTicketSet(json: unknown): RelayTicketSet {
  const result = v.safeParse(RelayTicketSetSchema, json);
  if (!result.success) {
    throw new RelayCodecError('bad_body', `ticket set: ${result.issues[0]?.message ?? 'invalid'}`);
  }
  return result.output;
}
