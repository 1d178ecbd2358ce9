/**
 * Every limit the relay enforces, with units, in one place (DESIGN §4.1). [SPEC: RL-LIM-1]
 * Frame sizes come from the protocol package because both ends must agree on them.
 */
import { MAX_AGENT_FRAME_BYTES, MAX_CLIENT_FRAME_BYTES } from '@burrow/protocol';
import type { TokenBucketConfig } from './token-bucket.js';

/** A phone frame is one Noise message: at most 65535 bytes. Over it → close FRAME_TOO_LARGE (4003). */
export const CLIENT_FRAME_MAX_BYTES = MAX_CLIENT_FRAME_BYTES;
/** An agent frame is a 5-byte header plus one Noise message. */
export const AGENT_FRAME_MAX_BYTES = MAX_AGENT_FRAME_BYTES;

/** Phone sockets open at once per Burrow. One more → close TOO_MANY_CLIENTS (4004). */
export const MAX_CLIENTS_PER_BURROW = 16;

/** New phone sockets per Burrow: burst of 20 (above MAX_CLIENTS_PER_BURROW), then one per second. Over → RATE_LIMITED (4005). */
export const CLIENT_CONNECT_RATE_PER_BURROW: TokenBucketConfig = { capacity: 20, refillIntervalMs: 1_000 };

/** New sockets (agent or phone, any Burrow) per source address: burst of 30, then one per second. */
export const CONNECT_RATE_PER_SOURCE: TokenBucketConfig = { capacity: 30, refillIntervalMs: 1_000 };

/** Enrollments per source address: burst of 5, then one every 12 minutes (5 per hour). */
export const ENROLL_RATE_PER_SOURCE: TokenBucketConfig = { capacity: 5, refillIntervalMs: 12 * 60_000 };

/** Registered deliveries (paired phones) per Burrow. */
export const MAX_DELIVERIES_PER_BURROW = 64;

/** Largest JSON request body accepted on any `/v1` route (bytes). A subscription is ~600 bytes. */
export const MAX_JSON_BODY_BYTES = 4_096;

/** Most of a refused request's unread body the Worker reads away before answering (bytes). */
export const MAX_UNREAD_BODY_DRAIN_BYTES = 64 * 1024;

/** Longest `Authorization` header read (characters); a bearer token is 43. */
export const MAX_AUTHORIZATION_CHARS = 256;

/** Longest operator enrollment secret compared (characters). */
export const MAX_ENROLL_SECRET_CHARS = 256;

/** Limits published by `GET /v1/info` so clients can size themselves. */
export const PUBLISHED_LIMITS: Readonly<Record<string, number>> = {
  clientFrameMaxBytes: CLIENT_FRAME_MAX_BYTES,
  agentFrameMaxBytes: AGENT_FRAME_MAX_BYTES,
  maxClientsPerBurrow: MAX_CLIENTS_PER_BURROW,
  maxDeliveriesPerBurrow: MAX_DELIVERIES_PER_BURROW,
  maxJsonBodyBytes: MAX_JSON_BODY_BYTES,
};
