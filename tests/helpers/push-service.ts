/**
 * A faithful local stand-in for a Web Push service (FCM / Mozilla autopush style), for tests: real HTTP on
 * 127.0.0.1, subscriptions issued the way a browser gets them (this service generates the UA's P-256 key
 * pair and 16-byte auth secret, RFC 8291 §2), and every push checked with independent code:
 *  - VAPID (RFC 8292): `Authorization: vapid t=…, k=…`, JWT verified by `jose` as ES256 against `k`, `aud` =
 *    this service's origin, `exp` present and at most 24 h ahead (§2), `sub` a mailto:/https: URL; when the
 *    subscription was made with an applicationServerKey, `k` must be that key (RFC 8292 §4.2, 403 otherwise).
 *  - RFC 8030: `TTL` required (§5.2), `Urgency` one of the four values (§5.3), `Topic` ≤ 32 base64url (§5.4).
 *  - RFC 8291: `Content-Encoding: aes128gcm`, body ≤ 4096 bytes, decrypted by `http_ece` with the UA private
 *    key; a body that does not decrypt is refused.
 * Accepted pushes are recorded (headers and plaintext) and answered 201 with a Location, or with the status
 * a test forced for that endpoint (404 / 410 / 500 …). Refusals are recorded too, with their reason.
 *
 * A subscription can also belong to a real browser that holds its own keys (`subscribeForBrowser`, used by
 * autopush-server.ts for Firefox): its pushes get every check above except decryption, and their encrypted
 * body is handed on to the browser, as Mozilla's autopush does; they are recorded in `forwarded`.
 */
import { createECDH, type ECDH, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { decodePushMessage } from '@burrow/protocol';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';

/** RFC 8030 §7.2 / RFC 8291 §4: the largest push message body a service must accept. */
export const PUSH_SERVICE_MAX_BODY_BYTES = 4096;
/** RFC 8292 §2: exp no more than 24 hours after the request. */
export const PUSH_SERVICE_MAX_VAPID_LIFETIME_SECONDS = 24 * 60 * 60;
/** Pushes (accepted or refused) kept in memory before the oldest are dropped. */
export const PUSH_SERVICE_MAX_RECORDS = 1000;
/** Subscriptions issued by one service. */
export const PUSH_SERVICE_MAX_SUBSCRIPTIONS = 1000;
const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);
const TOPIC = /^[A-Za-z0-9_-]{1,32}$/;
const AUTHORIZATION = /^vapid t=([A-Za-z0-9_.-]+), *k=([A-Za-z0-9_-]+)$/;

interface HttpEce {
  decrypt(buffer: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: Buffer }): Buffer;
}
const ece = createRequire(import.meta.url)('http_ece') as HttpEce;

/** `PushSubscription.toJSON()` as a browser would produce it. */
export interface IssuedSubscription {
  readonly endpoint: string;
  readonly expirationTime: null;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

export interface ReceivedPush {
  readonly endpoint: string;
  readonly ttl: number;
  readonly urgency: string | null;
  readonly topic: string | null;
  /** The VAPID `k` and verified claims. */
  readonly vapidPublicKey: string;
  readonly claims: { readonly aud: string; readonly exp: number; readonly sub: string };
  /** The RFC 8291 plaintext: for Burrow, the sealed envelope's base64url text (RL-PUSH-TEXT). */
  readonly plaintext: Uint8Array;
  /** The sealed envelope inside `plaintext` (decodePushMessage), or null when it is not a push message. */
  readonly envelope: Uint8Array | null;
  readonly bodyBytes: number;
  /** `Date.now()` when the request reached the service (before verifying it): "the relay's POST". */
  readonly arrivedAt: number;
}

export interface RefusedPush {
  readonly endpoint: string;
  readonly status: number;
  readonly reason: string;
}

/** A push handed on to a browser that holds the keys (the service cannot read it). */
export interface ForwardedPush {
  readonly endpoint: string;
  readonly ttl: number;
  readonly vapidPublicKey: string;
  readonly bodyBytes: number;
  readonly arrivedAt: number;
}

/** Hands an encrypted push body on to the browser that owns the subscription. */
export type ForwardToBrowser = (body: Uint8Array) => void;

interface Held {
  /** The UA's keys when this service issued the subscription; null for a browser's own (see forward). */
  readonly keys: { readonly ua: ECDH; readonly auth: Buffer } | null;
  readonly forward: ForwardToBrowser | null;
  readonly applicationServerKey: string | null;
  forcedStatus: number | 'stall' | null;
}

export interface LocalPushServiceOptions {
  /** Clock for the exp check (ms since the epoch); defaults to Date.now. */
  readonly clock?: () => number;
}

export class LocalPushService {
  readonly received: ReceivedPush[] = [];
  readonly refused: RefusedPush[] = [];
  readonly forwarded: ForwardedPush[] = [];
  readonly #subscriptions = new Map<string, Held>();
  readonly #waiters = new Set<() => void>();
  readonly #clock: () => number;

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    options: LocalPushServiceOptions,
  ) {
    this.#clock = options.clock ?? Date.now;
  }

  static async start(options: LocalPushServiceOptions = {}): Promise<LocalPushService> {
    let service: LocalPushService | undefined;
    const server = createServer((req, res) => {
      void service!.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const { port } = server.address() as AddressInfo;
    service = new LocalPushService(server, `http://127.0.0.1:${port}`, options);
    return service;
  }

  /** Issues a subscription, as `PushManager.subscribe({ applicationServerKey })` would. */
  subscribe(applicationServerKey: string | null = null): IssuedSubscription {
    if (this.#subscriptions.size >= PUSH_SERVICE_MAX_SUBSCRIPTIONS)
      throw new RangeError('too many subscriptions');
    const ua = createECDH('prime256v1');
    ua.generateKeys();
    const auth = randomBytes(16);
    const endpoint = `${this.origin}/push/${randomBytes(16).toString('base64url')}`;
    this.#subscriptions.set(endpoint, {
      keys: { ua, auth },
      forward: null,
      applicationServerKey,
      forcedStatus: null,
    });
    return {
      endpoint,
      expirationTime: null,
      keys: { p256dh: ua.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    };
  }

  /**
   * An endpoint for a subscription whose keys a real browser holds: checked pushes to it are handed to
   * `forward` still encrypted. Returns the endpoint (the browser's PushSubscription.endpoint).
   */
  subscribeForBrowser(applicationServerKey: string | null, forward: ForwardToBrowser): string {
    if (this.#subscriptions.size >= PUSH_SERVICE_MAX_SUBSCRIPTIONS)
      throw new RangeError('too many subscriptions');
    const endpoint = `${this.origin}/push/${randomBytes(16).toString('base64url')}`;
    this.#subscriptions.set(endpoint, { keys: null, forward, applicationServerKey, forcedStatus: null });
    return endpoint;
  }

  /**
   * From now on, answer pushes to `endpoint` with `status` (e.g. 404, 410, 500), or never answer them
   * ('stall', to exercise the sender's timeout); null restores normal.
   */
  respondWith(endpoint: string, status: number | 'stall' | null): void {
    const held = this.#subscriptions.get(endpoint);
    if (!held) throw new RangeError('unknown endpoint');
    held.forcedStatus = status;
  }

  /** Forgets a subscription, as a browser unsubscribing does: later pushes get 410 Gone. */
  unsubscribe(endpoint: string): void {
    this.#subscriptions.delete(endpoint);
  }

  /** Resolves once `count` pushes have been accepted in total, or rejects after `timeoutMs`. */
  async waitForReceived(count: number, timeoutMs = 5_000): Promise<readonly ReceivedPush[]> {
    if (this.received.length >= count) return this.received;
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.received.length < count) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(this.received);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`push service: ${this.received.length}/${count} pushes after ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.add(check);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = Date.now();
    const endpoint = `${this.origin}${req.url ?? ''}`;
    const refuse = (status: number, reason: string) => {
      record(this.refused, { endpoint, status, reason });
      req.resume();
      res.writeHead(status, { 'Content-Type': 'text/plain' }).end(reason);
    };
    if (req.method !== 'POST') return refuse(405, 'POST only');
    const held = this.#subscriptions.get(endpoint);
    if (!held) return refuse(410, 'no such subscription');
    const body = await readBounded(req, PUSH_SERVICE_MAX_BODY_BYTES);
    if (body === null) return refuse(413, `body over ${PUSH_SERVICE_MAX_BODY_BYTES} bytes`);

    const vapid = await this.verifyVapid(req.headers.authorization, held);
    if (typeof vapid === 'string') return refuse(vapid.startsWith('k ') ? 403 : 401, vapid);
    const ttlText = req.headers.ttl;
    if (typeof ttlText !== 'string' || !/^\d{1,10}$/.test(ttlText)) return refuse(400, 'TTL header required');
    const urgency = header(req, 'urgency');
    if (urgency !== null && !URGENCIES.has(urgency)) return refuse(400, 'bad Urgency');
    const topic = header(req, 'topic');
    if (topic !== null && !TOPIC.test(topic)) return refuse(400, 'bad Topic');
    if (header(req, 'content-encoding') !== 'aes128gcm')
      return refuse(415, 'Content-Encoding must be aes128gcm');
    if (held.keys === null) {
      if (held.forcedStatus === 'stall') return;
      if (held.forcedStatus !== null) return refuse(held.forcedStatus, 'forced by the test');
      held.forward?.(new Uint8Array(body));
      record(this.forwarded, {
        endpoint,
        ttl: Number(ttlText),
        vapidPublicKey: vapid.k,
        bodyBytes: body.length,
        arrivedAt,
      });
      return this.#created(res);
    }
    let plaintext: Buffer;
    try {
      plaintext = ece.decrypt(body, {
        version: 'aes128gcm',
        privateKey: held.keys.ua,
        authSecret: held.keys.auth,
      });
    } catch (error) {
      return refuse(400, `does not decrypt: ${(error as Error).message}`);
    }
    if (held.forcedStatus === 'stall') return; // held open until the client gives up or close()
    if (held.forcedStatus !== null) return refuse(held.forcedStatus, 'forced by the test');
    record(this.received, {
      endpoint,
      ttl: Number(ttlText),
      urgency,
      topic,
      vapidPublicKey: vapid.k,
      claims: vapid.claims,
      plaintext: new Uint8Array(plaintext),
      envelope: envelopeIn(new Uint8Array(plaintext)),
      bodyBytes: body.length,
      arrivedAt,
    });
    this.#created(res);
  }

  #created(res: ServerResponse): void {
    res.writeHead(201, { Location: `${this.origin}/message/${randomBytes(8).toString('base64url')}` }).end();
    for (const waiter of [...this.#waiters]) waiter();
  }

  private async verifyVapid(
    authorization: string | undefined,
    held: Held,
  ): Promise<string | { k: string; claims: ReceivedPush['claims'] }> {
    const match = AUTHORIZATION.exec(authorization ?? '');
    if (!match) return 'Authorization must be "vapid t=…, k=…"';
    const [, token, k] = match as unknown as [string, string, string];
    if (held.applicationServerKey !== null && k !== held.applicationServerKey) {
      return 'k does not match the subscription applicationServerKey';
    }
    const point = Buffer.from(k, 'base64url');
    if (point.length !== 65 || point[0] !== 0x04) return 'k is not an uncompressed P-256 point';
    try {
      if (decodeProtectedHeader(token).alg !== 'ES256') return 'JWT alg must be ES256';
      const key = await importJWK(
        {
          kty: 'EC',
          crv: 'P-256',
          x: point.subarray(1, 33).toString('base64url'),
          y: point.subarray(33).toString('base64url'),
        },
        'ES256',
      );
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['ES256'],
        audience: this.origin,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(this.#clock()),
      });
      const now = Math.floor(this.#clock() / 1000);
      if (payload.exp! > now + PUSH_SERVICE_MAX_VAPID_LIFETIME_SECONDS) return 'JWT exp more than 24 h ahead';
      if (typeof payload.sub !== 'string' || !/^(mailto:|https:)/.test(payload.sub)) {
        return 'JWT sub must be a mailto: or https: URL';
      }
      return { k, claims: { aud: payload.aud as string, exp: payload.exp!, sub: payload.sub } };
    } catch (error) {
      return `JWT rejected: ${(error as Error).message}`;
    }
  }
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}

function record<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > PUSH_SERVICE_MAX_RECORDS) list.shift();
}

async function readBounded(req: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function envelopeIn(message: Uint8Array): Uint8Array | null {
  try {
    return decodePushMessage(message);
  } catch {
    return null;
  }
}
