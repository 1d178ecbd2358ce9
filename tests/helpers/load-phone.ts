/**
 * A phone for the load tests (issue 8 "Load"): Pocket's real client core (`BurrowConnection`) on Node `ws`,
 * from its own simulated source address, counting every socket it opened and every drop, and able to stop
 * reading its socket (TCP backpressure) to play the slow phone.
 *
 * Why a source per phone: the relay bounds phone sockets per source address (relay-worker/src/limits.ts
 * MAX_CLIENTS_PER_SOURCE = 8) and `wrangler dev` passes `CF-Connecting-IP` through. Ten real phones come from
 * ten addresses (or at least not all from one); giving each its own keeps the per-Burrow limits in force.
 */
import type {
  BurrowConnection,
  BurrowConnectionOptions,
  PairingRecord,
  PairingStorage,
  SocketFactory,
  SocketLike,
} from '@burrow/pocket/core';
import WebSocket from 'ws';
import { freshSource } from '../../relay-worker/test/relay-client.js';
import { phoneConnection } from './phone-connection.js';

type KeepalivePolicy = NonNullable<BurrowConnectionOptions['keepalive']>;

/** Largest message a load phone's socket accepts (bytes): above any agent frame (65 KiB). */
const MAX_PHONE_PAYLOAD_BYTES = 1 << 20;

/** A socket factory whose sockets all come from `source` and are kept for the test to inspect. */
export function sourcedSocketFactory(source: string): { factory: SocketFactory; sockets: WebSocket[] } {
  const sockets: WebSocket[] = [];
  const factory: SocketFactory = (url: string) => {
    const ws = new WebSocket(url, {
      headers: { 'CF-Connecting-IP': source },
      maxPayload: MAX_PHONE_PAYLOAD_BYTES,
      perMessageDeflate: false,
    });
    sockets.push(ws);
    return ws as unknown as SocketLike;
  };
  return { factory, sockets };
}

export interface LoadPhoneOptions {
  readonly label: string;
  readonly pairing: PairingRecord;
  readonly storage: PairingStorage;
  /** Pocket's end-to-end keep-alive; the slow phone stretches `deadAfterMs` so its pause is not a "dead link". */
  readonly keepalive?: KeepalivePolicy;
}

/** One phone connection and what happened to it. */
export class LoadPhone {
  readonly conn: BurrowConnection;
  readonly label: string;
  readonly #sockets: WebSocket[];
  #reconnects = 0;
  #connectedOnce = false;

  constructor(options: LoadPhoneOptions) {
    this.label = options.label;
    const { factory, sockets } = sourcedSocketFactory(freshSource());
    this.#sockets = sockets;
    this.conn = phoneConnection(options, {
      socketFactory: factory,
      backoff: { initialDelayMs: 100, growthFactor: 2, maxDelayMs: 1000, jitter: 0 },
      ...(options.keepalive === undefined ? {} : { keepalive: options.keepalive }),
    });
    this.conn.subscribe((e) => {
      if (e.type !== 'status') return;
      if (e.status.kind === 'connected') this.#connectedOnce = true;
      else if (e.status.kind === 'reconnecting' && this.#connectedOnce) this.#reconnects++;
    });
  }

  /** Sockets opened beyond the first: each one is a drop the phone recovered from (or is recovering from). */
  get drops(): number {
    return Math.max(this.#sockets.length - 1, this.#reconnects);
  }

  get connected(): boolean {
    return this.conn.status.kind === 'connected';
  }

  /** The live socket (the slow phone pauses it). */
  get socket(): WebSocket {
    const ws = this.#sockets.at(-1);
    if (ws === undefined) throw new Error(`${this.label} has no socket yet`);
    return ws;
  }

  start(): void {
    this.conn.start();
  }

  stop(): void {
    this.conn.stop();
  }
}
