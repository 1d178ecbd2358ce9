/**
 * The relay's whole job for `POST /v1/burrows/:id/push` (DESIGN §4.4 step 4), runtime-neutral so the route is
 * a few lines: validate the Burrow's send, intersect its named targets with the subscriptions held for that
 * Burrow, encrypt and send each envelope, delete subscriptions the push service reports gone, and answer one
 * result per named target in request order. Authentication (the Burrow bearer) is the route's.
 */
import {
  decodePushSendRequest,
  ErrorCode,
  MAX_PUSH_TARGETS,
  type PushSendRequest,
  type PushSendResponse,
  type PushTargetResult,
  pushMessageFromText,
  RelayCodecError,
} from '@burrow/protocol';
import { type ApiResult, fail, ok } from '../api-result.js';
import { type Clock, type FetchFn, sendWebPush, type WebPushSubscription } from './send-web-push.js';
import type { VapidSigner } from './vapid-signer.js';

/** Largest push-send body: MAX_PUSH_TARGETS envelopes in base64url plus JSON framing (bytes). */
export const MAX_PUSH_SEND_BODY_BYTES = 128 * 1024;

export interface HeldSubscription extends WebPushSubscription {
  readonly deliveryId: string;
}

export interface PushSendDeps {
  /** The subscriptions held for these deliveryIds of this Burrow (missing ones are simply absent). */
  subscriptionsFor(
    deliveryIds: readonly string[],
  ): Promise<readonly HeldSubscription[]> | readonly HeldSubscription[];
  /** Deletes the subscription of `deliveryId` if it still has `endpoint` (a phone may have re-subscribed meanwhile). */
  deleteSubscription(deliveryId: string, endpoint: string): Promise<unknown> | unknown;
  /** null when the relay has no VAPID key configured: every send is refused with push_unavailable. */
  readonly vapid: VapidSigner | null;
  readonly fetch: FetchFn;
  readonly clock: Clock;
  /** Development only: allow loopback push endpoints (see endpoint-policy.ts). */
  readonly allowLoopbackForDev?: boolean;
  /** The operator's extra push service hosts (see push-service-hosts.ts). */
  readonly extraServiceHosts?: readonly string[];
}

export async function handlePushSend(
  json: unknown,
  deps: PushSendDeps,
): Promise<ApiResult<PushSendResponse>> {
  if (deps.vapid === null) return fail(ErrorCode.PUSH_UNAVAILABLE, 'push is not configured on this relay');
  const targets = (json as { targets?: unknown } | null)?.targets;
  if (Array.isArray(targets) && targets.length > MAX_PUSH_TARGETS) {
    return fail(ErrorCode.LIMIT_EXCEEDED, `a push send names at most ${MAX_PUSH_TARGETS} targets`);
  }
  let send: PushSendRequest;
  try {
    send = decodePushSendRequest(json);
  } catch (error) {
    if (error instanceof RelayCodecError) return fail(ErrorCode.BAD_REQUEST, error.message);
    throw error;
  }
  // RL-PUSH-TEXT: the push message is the envelope's base64url text as sent (already bounded by the schema).
  const messages = send.targets.map((t) => pushMessageFromText(t.envelope));
  const held = new Map<string, HeldSubscription>();
  for (const s of await deps.subscriptionsFor(send.targets.map((t) => t.deliveryId)))
    held.set(s.deliveryId, s);
  const vapid = deps.vapid;
  const results = await Promise.all(
    send.targets.map(async (target, i): Promise<PushTargetResult> => {
      const { deliveryId } = target;
      const subscription = held.get(deliveryId);
      if (subscription === undefined) return { deliveryId, outcome: 'no_subscription' };
      const result = await sendWebPush(
        subscription,
        messages[i]!,
        {
          vapid,
          ttlSeconds: send.ttlSeconds,
          urgency: send.urgency,
          topic: send.sessionTopic,
          allowLoopbackForDev: deps.allowLoopbackForDev === true,
          extraServiceHosts: deps.extraServiceHosts ?? [],
        },
        deps.fetch,
        deps.clock,
      );
      if (result.outcome === 'gone') {
        await deps.deleteSubscription(deliveryId, subscription.endpoint);
        return { deliveryId, outcome: 'gone' };
      }
      // Only the outcome: the push service's status stays here (issue 16.1, RL-PUSH-2).
      return { deliveryId, outcome: result.outcome === 'failed' ? 'failed' : 'accepted' };
    }),
  );
  return ok({ results });
}
