/**
 * Small test-side clients for the relay: enrollment, WebSockets with an awaitable message queue, and the push
 * surface (register a delivery, put its subscription as the phone would, the Burrow's push send).
 * Exported for the relay's tests, its bench and the integration tests.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  decodeEnrollResponse,
  decodeRelayToAgentFrame,
  type EnrollResponse,
  encodeBase64url,
  type PushSendRequest,
  type PushUrgency,
  type RelayToAgentFrame,
} from '@burrow/protocol';
import WebSocket from 'ws';

/** Bound on queued unread messages per test socket; a test that lets more pile up has a bug. */
const MAX_QUEUED_MESSAGES = 10_000;
const DEFAULT_WAIT_MS = 10_000;

let sourceCounter = 0;
/**
 * A fresh simulated source address. `wrangler dev` passes a client's `CF-Connecting-IP` through (Cloudflare's
 * edge overwrites it in production), so tests can give each scenario its own per-source rate limits.
 */
export function freshSource(): string {
  sourceCounter += 1;
  // 198.18.0.0/15 is reserved for benchmarking (RFC 2544): never a real client.
  return `198.18.${(sourceCounter >> 8) & 0xff}.${sourceCounter & 0xff}`;
}

export async function enroll(
  url: string,
  init: { source?: string; secret?: string } = {},
): Promise<EnrollResponse> {
  const headers: Record<string, string> = { 'CF-Connecting-IP': init.source ?? freshSource() };
  if (init.secret !== undefined) headers.Authorization = `Bearer ${init.secret}`;
  const response = await fetch(`${url}/v1/burrows`, { method: 'POST', headers });
  if (response.status !== 201) throw new Error(`enroll: HTTP ${response.status} ${await response.text()}`);
  return decodeEnrollResponse(await response.json());
}

export type Received =
  | { readonly kind: 'binary'; readonly data: Uint8Array }
  | { readonly kind: 'text'; readonly data: string };

export interface TestSocket {
  readonly ws: WebSocket;
  /** The next message (waits up to `timeoutMs`). */
  next(timeoutMs?: number): Promise<Received>;
  /** Resolves with the close code once the socket closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Messages received and not yet read. */
  pending(): number;
  send(data: Uint8Array | string): void;
  close(code?: number): void;
}

export interface OpenOptions {
  readonly headers?: Record<string, string>;
  readonly source?: string;
  /** Subprotocols to offer (`Sec-WebSocket-Protocol`), as a phone does with its relay ticket (RL-TICKET-4). */
  readonly protocols?: readonly string[];
}

/** Opens a WebSocket; rejects with the HTTP status when the upgrade is refused. */
export function openSocket(url: string, options: OpenOptions = {}): Promise<TestSocket> {
  const headers = { 'CF-Connecting-IP': options.source ?? freshSource(), ...options.headers };
  const ws = new WebSocket(url, options.protocols ? [...options.protocols] : [], {
    headers,
    maxPayload: 1 << 20,
  });
  const queue: Received[] = [];
  const waiters: Array<(m: Received) => void> = [];
  let overflow = false;
  ws.on('message', (data, isBinary) => {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    const m: Received = isBinary
      ? { kind: 'binary', data: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) }
      : { kind: 'text', data: buf.toString('utf8') };
    const waiter = waiters.shift();
    if (waiter) waiter(m);
    else if (queue.length < MAX_QUEUED_MESSAGES) queue.push(m);
    else overflow = true;
  });
  const closed = new Promise<{ code: number; reason: string }>((r) => {
    ws.on('close', (code, reason) => r({ code, reason: reason.toString('utf8') }));
    // `ws` reports 'close' only when TCP ends. Local workerd keeps a connection whose close the Durable Object
    // started open until the object hibernates (~10 s), although the close frame (with its code) arrives at
    // once; a browser shows the code from that frame. So resolve on the close frame, via ws's receiver.
    ws.once('open', () => {
      const receiver = (ws as unknown as { _receiver?: NodeJS.EventEmitter })._receiver;
      receiver?.once('conclude', (code: number, reason: Buffer) =>
        r({ code, reason: reason.toString('utf8') }),
      );
    });
  });
  const socket: TestSocket = {
    ws,
    closed,
    pending: () => queue.length,
    next(timeoutMs = DEFAULT_WAIT_MS) {
      if (overflow) return Promise.reject(new Error('test socket queue overflowed'));
      const queued = queue.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise((resolveNext, reject) => {
        const timer = setTimeout(() => {
          const i = waiters.indexOf(deliver);
          if (i >= 0) waiters.splice(i, 1);
          reject(new Error(`no message within ${timeoutMs} ms`));
        }, timeoutMs);
        const deliver = (m: Received) => {
          clearTimeout(timer);
          resolveNext(m);
        };
        waiters.push(deliver);
        void closed.then(({ code }) => {
          if (waiters.includes(deliver)) {
            waiters.splice(waiters.indexOf(deliver), 1);
            clearTimeout(timer);
            reject(new Error(`socket closed (${code}) while waiting for a message`));
          }
        });
      });
    },
    send: (data) => ws.send(data),
    close: (code = 1000) => ws.close(code),
  };
  return new Promise((resolveOpen, reject) => {
    ws.once('open', () => resolveOpen(socket));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      res.on('end', () => reject(new UpgradeRefused(res.statusCode ?? 0, body)));
    });
    ws.once('error', (error) => reject(error));
  });
}

export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upgrade refused: HTTP ${status} ${body}`);
  }
}

export function openAgent(wsUrl: string, burrowId: string, burrowToken: string, options: OpenOptions = {}) {
  return openSocket(`${wsUrl}/v1/burrows/${burrowId}/agent`, {
    ...options,
    headers: { Authorization: `Bearer ${burrowToken}`, ...options.headers },
  });
}

export function openClient(wsUrl: string, burrowId: string, options: OpenOptions = {}) {
  return openSocket(`${wsUrl}/v1/burrows/${burrowId}/client`, options);
}

/** Next message, which must be binary. */
export async function nextBinary(socket: TestSocket, timeoutMs?: number): Promise<Uint8Array> {
  const m = await socket.next(timeoutMs);
  if (m.kind !== 'binary') throw new Error(`expected a binary frame, got text ${JSON.stringify(m.data)}`);
  return m.data;
}

/** The next frame the relay sends an agent socket, decoded. */
export async function nextAgentFrame(agent: TestSocket): Promise<RelayToAgentFrame> {
  return decodeRelayToAgentFrame(await nextBinary(agent));
}

/** A Burrow freshly enrolled at `relay`, with its agent socket open. */
export async function enrolledAgent(relay: { readonly url: string; readonly wsUrl: string }) {
  const enrolled = await enroll(relay.url);
  const agent = await openAgent(relay.wsUrl, enrolled.burrowId, enrolled.burrowToken);
  return { ...enrolled, agent };
}

// ---- Push ------------------------------------------------------------------------------------------

export interface Delivery {
  readonly deliveryId: string;
  readonly deliveryToken: string;
}

export interface BurrowCredentials {
  readonly burrowId: string;
  readonly burrowToken: string;
}

const b64 = (n: number) => encodeBase64url(randomBytes(n));
/** RL-ID-2: the hash of the token's decoded bytes. */
const tokenHash = (token: string) =>
  encodeBase64url(createHash('sha256').update(Buffer.from(token, 'base64url')).digest());

const json = (body: unknown, bearer?: string): RequestInit => ({
  headers: {
    'Content-Type': 'application/json',
    'CF-Connecting-IP': freshSource(),
    ...(bearer === undefined ? {} : { Authorization: `Bearer ${bearer}` }),
  },
  body: JSON.stringify(body),
});

/** Registers a fresh delivery for `burrow` (the Burrow's side of pairing a phone). */
export async function registerDelivery(url: string, burrow: BurrowCredentials): Promise<Delivery> {
  const delivery = { deliveryId: b64(16), deliveryToken: b64(32) };
  const response = await fetch(`${url}/v1/burrows/${burrow.burrowId}/deliveries/${delivery.deliveryId}`, {
    method: 'PUT',
    ...json({ tokenHash: tokenHash(delivery.deliveryToken) }, burrow.burrowToken),
  });
  if (response.status !== 201) throw new Error(`register delivery: HTTP ${response.status}`);
  return delivery;
}

/** The phone's `PUT …/subscription`; returns the response so callers can check refusals. */
export function putSubscription(
  url: string,
  burrowId: string,
  delivery: Delivery,
  subscription: unknown,
): Promise<Response> {
  return fetch(`${url}/v1/burrows/${burrowId}/deliveries/${delivery.deliveryId}/subscription`, {
    method: 'PUT',
    ...json(subscription, delivery.deliveryToken),
  });
}

/** A push send body with defaults for the fields a test does not care about. */
export function pushSendBody(
  targets: PushSendRequest['targets'],
  options: { sessionTopic?: string; ttlSeconds?: number; urgency?: PushUrgency } = {},
): PushSendRequest {
  return {
    targets,
    sessionTopic: options.sessionTopic ?? 'c2Vzc2lvbi0x',
    ttlSeconds: options.ttlSeconds ?? 600,
    urgency: options.urgency ?? 'high',
  };
}

/** The Burrow's `POST /v1/burrows/:id/push`; `bearer` null sends no Authorization header. */
export function sendPush(
  url: string,
  burrowId: string,
  body: unknown,
  bearer: string | null,
): Promise<Response> {
  return fetch(`${url}/v1/burrows/${burrowId}/push`, {
    method: 'POST',
    ...json(body, bearer ?? undefined),
  });
}

/** The Burrow's `PUT /v1/burrows/:id/tickets` (RL-TICKET-2); `bearer` null sends no Authorization header. */
export function putTickets(
  url: string,
  burrowId: string,
  body: unknown,
  bearer: string | null,
): Promise<Response> {
  return fetch(`${url}/v1/burrows/${burrowId}/tickets`, {
    method: 'PUT',
    ...json(body, bearer ?? undefined),
  });
}

/** A fresh relay ticket (32 random bytes, base64url) and its hash as the Burrow publishes it (RL-ID-2). */
export function freshTicket(): { ticket: string; hash: string } {
  const ticket = b64(32);
  return { ticket, hash: tokenHash(ticket) };
}
