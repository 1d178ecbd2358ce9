/**
 * What the route modules need from the runtime, as an interface, so routes stay runtime-neutral (Hono
 * handlers over Web `Request`/`Response`) and the Workers bindings live in one place (`worker-services.ts`).
 */
import type {
  DeliveryListResponse,
  PushSendResponse,
  PushSubscriptionBody,
  RelayTicketSet,
} from '@burrow/protocol';
import type { ApiResult } from './api-result.js';
import type { BurrowStatus } from './burrow-object.js';
import type { EnrollmentPolicy } from './env.js';
import type { SourceLimitKind, SourceTakeOutcome } from './source-limiter.js';

/** One Burrow's Durable Object, as the routes call it. */
export interface BurrowApi {
  enroll(tokenHash: string): Promise<boolean>;
  status(burrowToken: string): Promise<ApiResult<BurrowStatus>>;
  listDeliveries(burrowToken: string): Promise<ApiResult<DeliveryListResponse>>;
  putDelivery(
    burrowToken: string,
    deliveryId: string,
    tokenHash: string,
  ): Promise<ApiResult<'created' | 'updated'>>;
  deleteDelivery(burrowToken: string, deliveryId: string): Promise<ApiResult<null>>;
  /** `PUT /v1/burrows/:id/tickets`: replaces the published relay ticket hashes. [SPEC: RL-TICKET-2] */
  putTickets(burrowToken: string, set: RelayTicketSet): Promise<ApiResult<null>>;
  putSubscription(
    deliveryId: string,
    deliveryToken: string,
    subscription: PushSubscriptionBody,
  ): Promise<ApiResult<null>>;
  deleteSubscription(deliveryId: string, deliveryToken: string): Promise<ApiResult<null>>;
  /** `POST /v1/burrows/:id/push` with the already size-bounded JSON body. [SPEC: RL-PUSH-1..6] */
  push(burrowToken: string, json: unknown): Promise<ApiResult<PushSendResponse>>;
  /**
   * Whether `credential` is this Burrow's own: its token (`agent`) or a ticket it published (`ticket`).
   * Asked only for an upgrade whose address spent its per-source budget. [SPEC: RL-LIM-4]
   */
  ownerCredential(kind: 'agent' | 'ticket', credential: string): Promise<boolean>;
  /** WebSocket upgrades for `/agent` and `/client`. */
  fetch(request: Request): Promise<Response>;
}

export interface RelayServices {
  burrow(burrowId: string): BurrowApi;
  takeSourceToken(sourceKey: string, kind: SourceLimitKind): Promise<SourceTakeOutcome>;
  /**
   * A WebSocket upgrade answered by accepting and closing at once with `code` (what a browser can read), with
   * `headers` on the 101 (the selected subprotocol, RL-TICKET-4).
   */
  refuseSocket(code: number, reason: string, headers: Record<string, string>): Response;
  fetchAsset(request: Request): Promise<Response>;
  /** Secret-gated, open (development flag only) or closed. [SPEC: RL-HTTP-3] */
  readonly enrollment: EnrollmentPolicy;
  /** The application server key (base64url, 65-byte point) of the configured VAPID secret, or null. */
  vapidPublicKey(): Promise<string | null>;
  /** Development only (env.ts `DEV_ALLOW_LOOPBACK_PUSH`): subscriptions may name loopback endpoints. */
  readonly allowLoopbackPushForDev: boolean;
  /** Push service host patterns the operator added (env.ts `EXTRA_PUSH_SERVICE_HOSTS`). [SPEC: RL-HTTP-8] */
  readonly extraPushServiceHosts: readonly string[];
}

export interface AppEnv {
  Variables: { services: RelayServices };
}
