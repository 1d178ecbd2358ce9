/**
 * One Durable Object per Burrow: a thin shell around `RelayRouter` (socket routing) and `BurrowStore`
 * (SQLite record). Uses the WebSocket Hibernation API so idle sockets cost nothing: every socket is accepted
 * with `ctx.acceptWebSocket`, carries only its `SocketMeta` (routing metadata: role, connId, open time, and for a
 * phone its source key, whether it has spoken, holds a ticket, was answered, and what it sent before that) as
 * attachment, and keep-alive pings are answered by the runtime's auto-response without waking the object. On
 * wake, the constructor rebuilds routing from `ctx.getWebSockets()`. [SPEC: RL-DO-1..4]
 */

import { DurableObject } from 'cloudflare:workers';
import {
  CLOSE_MESSAGES,
  CloseCode,
  type DeliveryListResponse,
  ErrorCode,
  KEEPALIVE_PING,
  KEEPALIVE_PONG,
  type PushSendResponse,
  type PushSubscriptionBody,
  parseClientSubprotocols,
  type RelayTicketSet,
} from '@burrow/protocol';
import { type ApiResult, fail, ok } from './api-result.js';
import { BurrowStore } from './burrow-store.js';
import { allowsLoopbackPushForDev, type Env, extraPushServiceHosts } from './env.js';
import { jsonError } from './json-error.js';
import { PUSH_SEND_RATE_PER_BURROW } from './limits.js';
import { handlePushSend } from './push/push-send.js';
import { vapidSignerFromConfig } from './push/vapid-config.js';
import { RelayRouter, type SocketMeta } from './relay-router.js';
import { sourceKey } from './source-key.js';
import { subprotocolHeaders } from './subprotocol.js';
import { type TokenBucketState, take } from './token-bucket.js';
import { bearerToken, constantTimeEqual, hashToken } from './tokens.js';

/**
 * Compared against when a deliveryId is unknown, so that case costs what a wrong token costs. 43 characters
 * like every token hash; '~' is outside base64url, so no token's hash ever equals it.
 */
const NO_DELIVERY_HASH = '~'.repeat(43);

/** Hibernation tags, so a socket's role is visible to `getWebSockets(tag)` too. */
const TAG = { agent: 'agent', client: 'client' } as const;

export interface BurrowStatus {
  readonly agentConnected: boolean;
  readonly clients: number;
  /** When this instance of the object was constructed (ms); a later value means it was evicted and woke. */
  readonly objectStartedAt: number;
}

export class BurrowObject extends DurableObject<Env> {
  private readonly store: BurrowStore;
  private readonly router: RelayRouter<WebSocket>;
  private readonly startedAt = Date.now();
  /** Push sends per minute (RL-PUSH-5); in memory, starts full after a wake like the connect bucket (RL-DO-4). */
  private pushBucket: TokenBucketState | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new BurrowStore(ctx.storage.sql);
    this.router = new RelayRouter<WebSocket>({
      now: () => Date.now(),
      nextId: (kind) => this.store.nextId(kind),
      saveMeta: (socket, meta) => socket.serializeAttachment(meta),
    });
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(KEEPALIVE_PING, KEEPALIVE_PONG));
    this.router.restore(
      ctx
        .getWebSockets()
        .map((socket) => ({ socket, meta: socket.deserializeAttachment() as SocketMeta | null })),
    );
  }

  // ---- RPC from the Worker (routes/*) -------------------------------------------------------------------

  enroll(tokenHash: string): boolean {
    return this.store.enroll(tokenHash, Date.now());
  }

  async status(burrowToken: string): Promise<ApiResult<BurrowStatus>> {
    const denied = await this.checkBurrow(burrowToken);
    if (denied) return denied;
    return ok({
      agentConnected: this.router.agentConnected,
      clients: this.router.clientCount,
      objectStartedAt: this.startedAt,
    });
  }

  async listDeliveries(burrowToken: string): Promise<ApiResult<DeliveryListResponse>> {
    const denied = await this.checkBurrow(burrowToken);
    if (denied) return denied;
    return ok({ deliveries: this.store.listDeliveries() });
  }

  async putDelivery(
    burrowToken: string,
    deliveryId: string,
    tokenHash: string,
  ): Promise<ApiResult<'created' | 'updated'>> {
    const denied = await this.checkBurrow(burrowToken);
    if (denied) return denied;
    const outcome = this.store.putDelivery(deliveryId, tokenHash, Date.now());
    if (outcome === 'full') return fail(ErrorCode.LIMIT_EXCEEDED, 'too many deliveries for this Burrow');
    return ok(outcome);
  }

  /**
   * `PUT /v1/burrows/:id/tickets`: the Burrow's whole set of relay ticket hashes, replacing the last one. No
   * device is named: the relay only checks membership. [SPEC: RL-TICKET-2]
   */
  async putTickets(burrowToken: string, set: RelayTicketSet): Promise<ApiResult<null>> {
    const denied = await this.checkBurrow(burrowToken);
    if (denied) return denied;
    this.ctx.storage.transactionSync(() =>
      this.store.replaceTickets(set.ticketHashes, set.pairingTicketHashes ?? []),
    );
    return ok(null);
  }

  /**
   * Whether a socket upgrade carries this Burrow's own credential: the Burrow's token on the agent socket, a
   * published ticket on a phone socket. The Worker asks only when the request's address has spent its
   * per-source connect budget (RL-LIM-4): the owner's devices and link are never locked out by whoever
   * shares their address (issue 24.5). A malformed credential is none.
   */
  async ownerCredential(kind: 'agent' | 'ticket', credential: string): Promise<boolean> {
    if (!this.store.isEnrolled()) return false;
    if (kind === 'agent') return (await this.checkBurrow(credential)) === null;
    return this.store.ticketKind(await hashToken(credential)) !== null;
  }

  async deleteDelivery(burrowToken: string, deliveryId: string): Promise<ApiResult<null>> {
    const denied = await this.checkBurrow(burrowToken);
    if (denied) return denied;
    return this.store.deleteDelivery(deliveryId) ? ok(null) : fail(ErrorCode.NOT_FOUND, 'no such delivery');
  }

  async putSubscription(
    deliveryId: string,
    deliveryToken: string,
    subscription: PushSubscriptionBody,
  ): Promise<ApiResult<null>> {
    const denied = await this.checkDelivery(deliveryId, deliveryToken);
    if (denied) return denied;
    this.store.putSubscription(deliveryId, subscription, Date.now());
    return ok(null);
  }

  async deleteSubscription(deliveryId: string, deliveryToken: string): Promise<ApiResult<null>> {
    const denied = await this.checkDelivery(deliveryId, deliveryToken);
    if (denied) return denied;
    return this.store.deleteSubscription(deliveryId)
      ? ok(null)
      : fail(ErrorCode.NOT_FOUND, 'no subscription');
  }

  /**
   * The Burrow's push send (DESIGN §4.4 step 4): token, configuration, rate, then push/push-send.ts does the
   * rest with this Burrow's subscriptions. Gone subscriptions are deleted only if they still name the
   * endpoint that was gone. [SPEC: RL-PUSH-1..6]
   */
  async push(burrowToken: string, json: unknown): Promise<ApiResult<PushSendResponse>> {
    const denied = await this.checkBurrow(burrowToken);
    if (denied) return denied;
    const vapid = await vapidSignerFromConfig(this.env.VAPID_PRIVATE_KEY, this.env.VAPID_SUBJECT);
    if (vapid === null) return fail(ErrorCode.PUSH_UNAVAILABLE, 'push is not configured on this relay');
    const now = Date.now();
    const admitted = take(PUSH_SEND_RATE_PER_BURROW, this.pushBucket, now);
    this.pushBucket = admitted.state;
    if (!admitted.allowed) return fail(ErrorCode.RATE_LIMITED, 'too many push sends for this Burrow');
    return handlePushSend(json, {
      subscriptionsFor: (ids) => this.store.subscriptionsFor(ids),
      deleteSubscription: (id, endpoint) => this.store.deleteSubscriptionIfEndpoint(id, endpoint),
      vapid,
      // A plain arrow: workerd's fetch must not be called with another `this`.
      fetch: (url, init) => fetch(url, init),
      clock: Date.now,
      allowLoopbackForDev: allowsLoopbackPushForDev(this.env),
      extraServiceHosts: extraPushServiceHosts(this.env),
    });
  }

  // ---- WebSocket upgrades (Worker forwards the request; it has checked the path and the source rate) ----

  override async fetch(request: Request): Promise<Response> {
    const role = new URL(request.url).pathname.endsWith('/agent') ? 'agent' : 'client';
    // A phone that offered `burrow.v1` must get it selected on every 101, or its browser drops the socket
    // before it can read the close code (RL-TICKET-4).
    const offered = parseClientSubprotocols(request.headers.get('Sec-WebSocket-Protocol'));
    const headers = subprotocolHeaders(offered);
    if (!this.store.isEnrolled()) {
      // A phone cannot read an HTTP status; tell it in a close code that its Burrow is not (or no longer) here.
      return role === 'agent'
        ? jsonError(ErrorCode.NOT_FOUND, 'unknown burrow')
        : refuseSocket(CloseCode.BURROW_DELETED, headers);
    }
    if (role === 'agent') {
      const token = bearerToken(request.headers.get('Authorization')) ?? '';
      if (await this.checkBurrow(token))
        return jsonError(ErrorCode.UNAUTHORIZED, 'bad or missing burrow token');
      const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
      const meta = this.router.agentMeta();
      this.ctx.acceptWebSocket(server, [TAG.agent]);
      server.serializeAttachment(meta);
      this.router.agentOpened(server, meta);
      return new Response(null, { status: 101, webSocket: client });
    }
    // A ticket lets a paired (or pairing) phone past the shared connect bucket; an unknown one is no ticket.
    const kind = offered.ticket === null ? null : this.store.ticketKind(await hashToken(offered.ticket));
    // The Worker forwarded the request as received, so this is the address its per-source limit used.
    const admission = this.router.admitClient(sourceKey(request.headers.get('CF-Connecting-IP')), {
      ticketed: kind !== null,
      pairing: kind === 'pairing',
    });
    // A browser cannot read an HTTP status from a failed upgrade, so refuse with a close code it can show.
    if (!admission.ok) return refuseSocket(admission.code, headers);
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [TAG.client]);
    server.serializeAttachment(admission.meta);
    this.router.clientOpened(server, admission.meta);
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  // ---- Hibernation handlers ----------------------------------------------------------------------------

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    const meta = ws.deserializeAttachment() as SocketMeta | null;
    if (meta === null) return;
    const data = typeof message === 'string' ? message : new Uint8Array(message);
    if (meta.role === 'agent') {
      this.router.agentMessage(ws, meta, data);
      return;
    }
    // The router stores what must survive a wake (spoke, answered, what it sent before) through saveMeta.
    this.router.clientMessage(meta, data);
  }

  override webSocketClose(ws: WebSocket, code: number): void {
    this.socketEnded(ws, code);
    // Complete the closing handshake (1005/1006 are not sendable codes); without it workerd holds the
    // connection until the object hibernates.
    try {
      ws.close(code === 1005 || code === 1006 ? CloseCode.NORMAL : code, 'closed');
    } catch {
      // Raced with the peer's disconnect.
    }
  }

  override webSocketError(ws: WebSocket): void {
    this.socketEnded(ws, 1006);
  }

  private socketEnded(ws: WebSocket, code: number): void {
    const meta = ws.deserializeAttachment() as SocketMeta | null;
    if (meta === null) return;
    if (meta.role === 'agent') this.router.agentClosed(meta);
    else this.router.clientClosed(meta, code);
  }

  // ---- Authentication ----------------------------------------------------------------------------------

  private async checkBurrow(token: string): Promise<ApiResult<never> | null> {
    const stored = this.store.tokenHash();
    if (stored === null) return fail(ErrorCode.NOT_FOUND, 'unknown burrow');
    return constantTimeEqual(await hashToken(token), stored)
      ? null
      : fail(ErrorCode.UNAUTHORIZED, 'bad burrow token');
  }

  private async checkDelivery(deliveryId: string, token: string): Promise<ApiResult<never> | null> {
    if (!this.store.isEnrolled()) return fail(ErrorCode.NOT_FOUND, 'unknown burrow');
    // Same answer, and the same work (hash, lookup, compare), for an unknown delivery and a wrong token: the
    // caller learns nothing either way, not even from the time it took.
    const presented = await hashToken(token);
    const stored = this.store.deliveryTokenHash(deliveryId);
    const matches = constantTimeEqual(presented, stored ?? NO_DELIVERY_HASH);
    if (stored === null || !matches) return fail(ErrorCode.UNAUTHORIZED, 'bad delivery token');
    return null;
  }
}

/** Accepts the upgrade and closes at once with `code`: how a refused phone learns why. */
function refuseSocket(code: CloseCode, headers: HeadersInit): Response {
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  server.accept();
  server.close(code, CLOSE_MESSAGES[code]);
  return new Response(null, { status: 101, webSocket: client, headers });
}
