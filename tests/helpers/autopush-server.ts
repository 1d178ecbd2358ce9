/**
 * A local stand-in for Mozilla's autopush, the push service Firefox speaks to, so Firefox's real Push API can
 * run offline (DESIGN §8: a fake only at a boundary we cannot reach, speaking the real protocol). Firefox is
 * pointed at it with `dom.push.serverURL = ws://127.0.0.1:<port>/` (plus `dom.push.testing.
 * allowInsecureServerURL`); its side of the protocol is PushServiceWebSocket.sys.mjs:
 *  - hello {uaid?, use_webpush} → hello {status 200, uaid, use_webpush: true} (a new uaid unless it sent one
 *    this server knows);
 *  - register {channelID, key} → register {status 200, channelID, pushEndpoint}; the endpoint is a
 *    LocalPushService endpoint for a browser-held subscription, so the relay's VAPID and RFC 8030 headers are
 *    checked by the same code as every other push;
 *  - each accepted push → notification {channelID, version, data (base64url aes128gcm body), headers
 *    {encoding}}, which Firefox decrypts itself and hands to the service worker, then acks with a code
 *    (100 delivered, 101 decryption error, 102 not delivered);
 *  - unregister → unregister {status 200}; `{}` is a ping, answered `{}`.
 * Pushes for a browser that is not connected wait (bounded) for its next hello, as autopush stores them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { LocalPushService } from './push-service.js';

/** Largest client message accepted (Firefox's are a few hundred bytes). */
export const AUTOPUSH_MAX_MESSAGE_BYTES = 64 * 1024;
/** Channels (subscriptions) one browser may hold here. */
export const AUTOPUSH_MAX_CHANNELS = 100;
/** Pushes kept for a browser while it is not connected. */
export const AUTOPUSH_MAX_PENDING = 100;
/** Acks kept for the tests to read. */
export const AUTOPUSH_MAX_ACKS = 1000;

export interface Ack {
  readonly channelID: string;
  readonly version: string;
  /** nsIPushErrorReporter: 100 delivered, 101 decryption error, 102 not delivered (or a nack's code). */
  readonly code: number;
}

interface Browser {
  socket: WebSocket | null;
  readonly channels: Map<string, string>; // channelID → endpoint
  readonly pending: object[];
  /** The last push handed on, for `replayLast`. */
  last: { readonly channelID: string; readonly body: Uint8Array; readonly version: string } | null;
}

export class AutopushServer {
  readonly acks: Ack[] = [];
  readonly #browsers = new Map<string, Browser>();

  private constructor(
    private readonly wss: WebSocketServer,
    private readonly service: LocalPushService,
    /** For Firefox's dom.push.serverURL. */
    readonly url: string,
  ) {}

  static async start(service: LocalPushService): Promise<AutopushServer> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: AUTOPUSH_MAX_MESSAGE_BYTES });
    await new Promise<void>((resolve, reject) => {
      wss.once('listening', resolve);
      wss.once('error', reject);
    });
    const { port } = wss.address() as AddressInfo;
    const server = new AutopushServer(wss, service, `ws://127.0.0.1:${port}/`);
    wss.on('connection', (socket) => server.#accept(socket));
    return server;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  #accept(socket: WebSocket): void {
    let uaid: string | null = null;
    const send = (message: object) => socket.send(JSON.stringify(message));
    socket.on('message', (raw) => {
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(raw.toString()) as Record<string, unknown>;
      } catch {
        return socket.close(1002, 'not JSON');
      }
      if (typeof m !== 'object' || m === null) return socket.close(1002, 'not an object');
      if (m.messageType === undefined) return send({}); // ping
      if (m.messageType === 'hello') {
        const asked = typeof m.uaid === 'string' ? m.uaid : '';
        uaid = this.#browsers.has(asked) ? asked : randomUUID().replaceAll('-', '');
        const browser = this.#browsers.get(uaid) ?? {
          socket: null,
          channels: new Map(),
          pending: [],
          last: null,
        };
        browser.socket?.terminate();
        browser.socket = socket;
        this.#browsers.set(uaid, browser);
        send({ messageType: 'hello', status: 200, uaid, use_webpush: true, broadcasts: {} });
        for (const message of browser.pending.splice(0)) send(message);
        return;
      }
      const browser = uaid === null ? undefined : this.#browsers.get(uaid);
      if (browser === undefined) return socket.close(1002, 'hello first');
      const channelID = typeof m.channelID === 'string' ? m.channelID : null;
      switch (m.messageType) {
        case 'register': {
          if (channelID === null || browser.channels.size >= AUTOPUSH_MAX_CHANNELS)
            return send({ messageType: 'register', channelID, status: 409 });
          // Firefox sends the key padded (its "the Push server requires padding"); VAPID's k is unpadded.
          const key = typeof m.key === 'string' ? m.key.replace(/=+$/, '') : null;
          const endpoint = this.service.subscribeForBrowser(key, (body) =>
            this.#deliver(browser, channelID, body),
          );
          browser.channels.set(channelID, endpoint);
          return send({ messageType: 'register', channelID, status: 200, pushEndpoint: endpoint, uaid });
        }
        case 'unregister': {
          const endpoint = channelID === null ? undefined : browser.channels.get(channelID);
          if (endpoint !== undefined) this.service.unsubscribe(endpoint);
          if (channelID !== null) browser.channels.delete(channelID);
          return send({ messageType: 'unregister', channelID, status: 200 });
        }
        case 'ack':
        case 'nack': {
          const updates = m.messageType === 'ack' ? m.updates : [m];
          for (const u of Array.isArray(updates) ? updates : []) {
            const update = u as Partial<Ack>;
            if (typeof update.channelID !== 'string' || typeof update.version !== 'string') continue;
            this.acks.push({
              channelID: update.channelID,
              version: update.version,
              code: Number(update.code),
            });
            if (this.acks.length > AUTOPUSH_MAX_ACKS) this.acks.shift();
          }
          return;
        }
        default:
          return; // broadcast_subscribe and the like: nothing to do here
      }
    });
    socket.on('close', () => {
      const browser = uaid === null ? undefined : this.#browsers.get(uaid);
      if (browser?.socket === socket) browser.socket = null;
    });
  }

  /**
   * Hands the last push on again under a new version, as a push service that lost an ack re-delivers it: the
   * browser cannot tell it from a new push, so what it shows is the app's own replay check.
   */
  replayLast(): void {
    const browser = [...this.#browsers.values()].find((b) => b.last !== null);
    if (browser?.last === null || browser === undefined) throw new Error('autopush: nothing pushed yet');
    this.#deliver(browser, browser.last.channelID, browser.last.body);
  }

  /** The version (message id) of the last push handed on to a browser, or null. */
  lastVersion(): string | null {
    let last: string | null = null;
    for (const b of this.#browsers.values()) if (b.last !== null) last = b.last.version;
    return last;
  }

  /** The browser's ack for the push `version`, once it arrived. */
  ackFor(version: string): Ack | undefined {
    return this.acks.find((a) => a.version === version);
  }

  #deliver(browser: Browser, channelID: string, body: Uint8Array): void {
    const version = randomBytes(12).toString('base64url');
    browser.last = { channelID, body, version };
    const message = {
      messageType: 'notification',
      channelID,
      version,
      data: Buffer.from(body).toString('base64url'),
      headers: { encoding: 'aes128gcm' },
    };
    if (browser.socket !== null) {
      browser.socket.send(JSON.stringify(message));
      return;
    }
    browser.pending.push(message);
    if (browser.pending.length > AUTOPUSH_MAX_PENDING) browser.pending.shift();
  }
}
