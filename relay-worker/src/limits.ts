/**
 * Every limit the relay enforces, with units, in one place (DESIGN §4.1). [SPEC: RL-LIM-1]
 * Frame sizes come from the protocol package because both ends must agree on them.
 */
import {
  MAX_AGENT_FRAME_BYTES,
  MAX_CLIENT_FRAME_BYTES,
  MAX_PAIRING_TICKETS,
  MAX_PUSH_TARGETS,
  MAX_RELAY_TICKETS,
} from '@burrow/protocol';
import { MAX_PUSH_SEND_BODY_BYTES } from './push/push-send.js';
import type { TokenBucketConfig } from './token-bucket.js';

export { MAX_PUSH_SEND_BODY_BYTES };

/** A phone frame is one Noise message: at most 65535 bytes. Over it → close FRAME_TOO_LARGE (4003). */
export const CLIENT_FRAME_MAX_BYTES = MAX_CLIENT_FRAME_BYTES;
/** An agent frame is a 5-byte header plus one Noise message. */
export const AGENT_FRAME_MAX_BYTES = MAX_AGENT_FRAME_BYTES;

/** Phone sockets open at once per Burrow. One more → close TOO_MANY_CLIENTS (4004). */
export const MAX_CLIENTS_PER_BURROW = 16;

/**
 * Phone sockets open at once per Burrow from one source address (RL-LIM-4's key): all but four of the Burrow's
 * slots, so one address (a household behind one NAT, or an attacker) can never take the last four. A handshake
 * that never finishes holds its slot until the Burrow's budget closes it (10 s); at this cap the next socket
 * from that address is closed TOO_MANY_CLIENTS (4004) before the per-Burrow connect bucket is touched, so a
 * one-address flood can neither fill every slot nor spend the tokens the owner's phone needs.
 */
export const MAX_CLIENTS_PER_SOURCE = MAX_CLIENTS_PER_BURROW - 4;

/**
 * A phone socket that has sent no frame for this long (ms) may be displaced by a newcomer when every slot is
 * taken (closed TOO_MANY_CLIENTS). A phone sends its message 1 as soon as the socket opens, so two seconds is
 * generous even on a slow network, and a silent socket keeps no handshake state anywhere.
 */
export const SILENT_CLIENT_DISPLACEABLE_AFTER_MS = 2_000;

/** New phone sockets per Burrow: burst of 20 (above MAX_CLIENTS_PER_BURROW), then one per second. Over → RATE_LIMITED (4005). */
export const CLIENT_CONNECT_RATE_PER_BURROW: TokenBucketConfig = { capacity: 20, refillIntervalMs: 1_000 };

/**
 * New phone sockets per Burrow that present a relay ticket the Burrow published (RL-TICKET-3): their own
 * bucket, burst 20 then one per second, so sockets without a ticket, from any number of addresses, can never
 * spend what the owner's phones need (issue 16.5). The relay cannot tell the owner's phone from an attacker's
 * socket (Noise authenticates inside the Burrow), so the shared bucket alone let 8 addresses keep the owner
 * out for 29.8 s.
 */
export const TICKETED_CONNECT_RATE_PER_BURROW: TokenBucketConfig = { capacity: 20, refillIntervalMs: 1_000 };

/**
 * New phone sockets per Burrow that present the open pairing link's ticket (RL-TICKET-5): their own bucket,
 * burst 10 then one every two seconds. A pairing phone tries once and retries on backoff; this is only ever
 * spent by whoever holds the link (issue 24.5: pairing under an 8-address flood used to fail in 1.7 s on the
 * shared bucket).
 */
export const PAIRING_CONNECT_RATE_PER_BURROW: TokenBucketConfig = { capacity: 10, refillIntervalMs: 2_000 };

/** Ticket hashes a Burrow may publish at once: 3 epochs × 64 phones (RL-TICKET-2). */
export const MAX_RELAY_TICKETS_PER_BURROW = MAX_RELAY_TICKETS;
/** Pairing ticket hashes in a published set: the one open `burrow pair` (RL-TICKET-5). */
export { MAX_PAIRING_TICKETS };

/** Largest `PUT /v1/burrows/:id/tickets` body (bytes): 192 hashes of 43 characters in JSON is ~9 KB. */
export const MAX_TICKET_SET_BODY_BYTES = 16 * 1024;

/**
 * Frames a phone socket may send before the agent has sent it anything (RL-LIM-6). A phone sends exactly one,
 * its Noise message 1, and waits for message 2; four leave room and nothing more. Over it the socket is closed
 * TOO_MUCH_DATA (4009) and the frame is not forwarded. Without it, one unauthenticated socket pushed 387 MB
 * in 3 s through the relay to the Burrow before the Burrow's refusal of message 1 arrived (issue 16.4).
 */
export const UNANSWERED_CLIENT_MAX_FRAMES = 4;
/** Bytes a phone socket may send before the agent's first reply (RL-LIM-6); a message 1 is 96 or 104 bytes. */
export const UNANSWERED_CLIENT_MAX_BYTES = 4 * 1024;

/**
 * Bytes all phone sockets of one Burrow may send to its agent (RL-LIM-7): a burst of 4 MiB, then 1 MiB/s.
 * Typing is bytes a second and a large paste a few hundred KB. The bucket bounds what phones, answered ones
 * included, can make the relay and the Burrow carry. A frame over it closes its socket TOO_MUCH_DATA (4009)
 * and is not forwarded. In memory, like the connect bucket (RL-DO-4).
 */
export const INBOUND_BYTES_PER_BURROW: TokenBucketConfig = {
  capacity: 4 * 1024 * 1024,
  refillIntervalMs: 1_000 / (1024 * 1024),
};

/** New sockets (agent or phone, any Burrow) per source address: burst of 30, then one per second. */
export const CONNECT_RATE_PER_SOURCE: TokenBucketConfig = { capacity: 30, refillIntervalMs: 1_000 };

/** Enrollments per source address: burst of 5, then one every 12 minutes (5 per hour). */
export const ENROLL_RATE_PER_SOURCE: TokenBucketConfig = { capacity: 5, refillIntervalMs: 12 * 60_000 };

/** Registered deliveries (paired phones) per Burrow. */
export const MAX_DELIVERIES_PER_BURROW = 64;

/**
 * Push sends (`POST /v1/burrows/:id/push`) per Burrow per minute, after its bearer is checked. A Burrow sends
 * one per alert (all its phones in one send), so 60 is far above real use; it bounds what a leaked or buggy
 * Burrow can make the relay POST: at most 60 × MAX_PUSH_TARGETS pushes a minute. [SPEC: RL-PUSH-5]
 */
export const PUSH_SENDS_PER_MINUTE_PER_BURROW = 60;
/** The bucket for it: a burst of the whole minute, then one send back every second. In memory, like RL-DO-4. */
export const PUSH_SEND_RATE_PER_BURROW: TokenBucketConfig = {
  capacity: PUSH_SENDS_PER_MINUTE_PER_BURROW,
  refillIntervalMs: 60_000 / PUSH_SENDS_PER_MINUTE_PER_BURROW,
};

/** Largest JSON request body accepted on any `/v1` route (bytes). A subscription is ~600 bytes. */
export const MAX_JSON_BODY_BYTES = 4_096;

/**
 * Most of a request body the Worker reads away unread before it answers (bytes; drain-body.ts says why): the
 * request body limit of Cloudflare's Free and Pro plans, 100 MB. The platform refuses a larger body before
 * the Worker sees it, so deployed, every body is read to its end; only under `wrangler dev`, which has no such
 * limit, is a larger one cut off here. Read a chunk at a time, never held.
 */
export const MAX_UNREAD_BODY_DRAIN_BYTES = 100_000_000;

/** Longest `Authorization` header read (characters); a bearer token is 43. */
export const MAX_AUTHORIZATION_CHARS = 256;

/** Longest operator enrollment secret compared (characters). */
export const MAX_ENROLL_SECRET_CHARS = 256;

/** Limits published by `GET /v1/info` so clients can size themselves. */
export const PUBLISHED_LIMITS: Readonly<Record<string, number>> = {
  clientFrameMaxBytes: CLIENT_FRAME_MAX_BYTES,
  agentFrameMaxBytes: AGENT_FRAME_MAX_BYTES,
  maxClientsPerBurrow: MAX_CLIENTS_PER_BURROW,
  maxClientsPerSource: MAX_CLIENTS_PER_SOURCE,
  silentClientDisplaceableAfterMs: SILENT_CLIENT_DISPLACEABLE_AFTER_MS,
  connectBurstPerSource: CONNECT_RATE_PER_SOURCE.capacity,
  connectRefillMsPerSource: CONNECT_RATE_PER_SOURCE.refillIntervalMs,
  maxDeliveriesPerBurrow: MAX_DELIVERIES_PER_BURROW,
  maxJsonBodyBytes: MAX_JSON_BODY_BYTES,
  maxPushTargets: MAX_PUSH_TARGETS,
  maxPushSendBodyBytes: MAX_PUSH_SEND_BODY_BYTES,
  pushSendsPerMinutePerBurrow: PUSH_SENDS_PER_MINUTE_PER_BURROW,
  unansweredClientMaxFrames: UNANSWERED_CLIENT_MAX_FRAMES,
  unansweredClientMaxBytes: UNANSWERED_CLIENT_MAX_BYTES,
  inboundBytesBurstPerBurrow: INBOUND_BYTES_PER_BURROW.capacity,
  inboundBytesPerSecondPerBurrow: Math.round(1_000 / INBOUND_BYTES_PER_BURROW.refillIntervalMs),
  maxRelayTicketsPerBurrow: MAX_RELAY_TICKETS_PER_BURROW,
  pairingConnectBurstPerBurrow: PAIRING_CONNECT_RATE_PER_BURROW.capacity,
  pairingConnectRefillMsPerBurrow: PAIRING_CONNECT_RATE_PER_BURROW.refillIntervalMs,
};
