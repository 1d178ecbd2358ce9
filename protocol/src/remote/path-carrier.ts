/**
 * One Noise session carried over two paths — the relay socket and, when it forms, a direct WebRTC data channel
 * — without losing, repeating or reordering a message (SPEC "The direct path", R-PATH-*). Shared by the
 * Burrow and the phone; pure: the links and the clock are injected.
 *
 * The session keeps its transport keys on the new path: a message's number is its Noise nonce, so the
 * receiver decrypts strictly in number order whichever path brought it, and anything a path loses, repeats or
 * reorders that reached decryption fails closed (R-CHAN-1) instead of being mis-delivered. Each direction
 * moves on its own:
 *
 *   - onto the direct path when the channel opens: START(first) there, then DATA; the receiver takes relay
 *     messages up to `first`, then the channel's (R-PATH-3);
 *   - back to the relay when the channel closes, fails, or stops acknowledging: RESUME(first) on the relay,
 *     then every message the other side has not acknowledged again, then new ones (R-PATH-4, R-PATH-5). The
 *     receiver skips what it already has, by number, without decrypting it.
 *
 * The relay socket stays open as the control and fallback path; losing it while the direct path carries both
 * directions ends nothing (R-PATH-8).
 */
import { fatalError } from './errors.js';
import {
  decodeDirectFrame,
  decodeRelayCarrierFrame,
  encodeDirectAck,
  encodeDirectData,
  encodeDirectStart,
  encodeRelayResume,
  isRelayCarrierFrame,
} from './path-frames.js';
import type { SecureChannel } from './secure-channel.js';

/** Timing and bounds of the carrier, one named object (tests pass smaller ones). */
export interface PathCarrierPolicy {
  /** R-PATH-4: acknowledge at least every this many direct messages … */
  readonly ackEveryMessages: number;
  /** … or this many bytes of them … */
  readonly ackEveryBytes: number;
  /** … and within this long of the first unacknowledged one (ms). */
  readonly ackDelayMs: number;
  /** R-PATH-5: a direct message unacknowledged this long means the path is gone (ms). */
  readonly ackTimeoutMs: number;
  /** R-PATH-5: bytes sent on the direct path but not acknowledged; more means the path is gone. */
  readonly maxUnackedBytes: number;
  /** R-PATH-7: bytes of direct messages held while the relay's earlier ones are still on their way. */
  readonly maxAheadBytes: number;
}

export const PATH_CARRIER: PathCarrierPolicy = Object.freeze({
  ackEveryMessages: 32,
  ackEveryBytes: 256 * 1024,
  ackDelayMs: 10,
  // The phone pings every 5 s and the Burrow answers: an idle direct path is checked that often, and a
  // stalled one is left within 2 s of the first message it failed to deliver (Wi-Fi gone, ICE consent lost).
  ackTimeoutMs: 2_000,
  maxUnackedBytes: 8 * 1024 * 1024,
  maxAheadBytes: 8 * 1024 * 1024,
});

export interface CarrierClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface CarrierLinks {
  /** One relay frame (a Noise message or a carrier frame); false when the socket cannot take it. */
  sendRelay(bytes: Uint8Array): boolean;
  /** One direct-channel message; false when the channel cannot take it. */
  sendDirect(bytes: Uint8Array): boolean;
}

export interface CarrierEvents {
  /** This side left the direct path (why, in words): close the channel; the relay carries on. */
  directLeft(reason: string): void;
  /** Neither path can carry this side's messages any more: the connection is over. */
  noPath(reason: string): void;
  /** The relay answered a REJOIN (R-PATH-8): the new socket carries this session. */
  rejoined?(): void;
}

export type PathName = 'relay' | 'direct';

/** Bytes and messages this side sent on each path (for `burrow status`, the bench and tests). */
export interface PathCounters {
  relayMessages: number;
  relayBytes: number;
  directMessages: number;
  directBytes: number;
  /** Messages sent again on the relay after the direct path was left (R-PATH-5). */
  resent: number;
  /** Times this side moved onto the direct path, and back to the relay. */
  toDirect: number;
  toRelay: number;
}

interface Logged {
  readonly n: number;
  readonly message: Uint8Array;
  readonly at: number;
}

export class PathCarrier {
  readonly #channel: SecureChannel;
  readonly #links: CarrierLinks;
  readonly #events: CarrierEvents;
  readonly #clock: CarrierClock;
  readonly #policy: PathCarrierPolicy;
  readonly counters: PathCounters = {
    relayMessages: 0,
    relayBytes: 0,
    directMessages: 0,
    directBytes: 0,
    resent: 0,
    toDirect: 0,
    toRelay: 0,
  };

  // Sending.
  #sent = 0;
  #sending: PathName = 'relay';
  #relayUp = true;
  /** The direct channel of this moment: 'none' before one is attached, 'fresh' until it opens. */
  #direct: 'none' | 'fresh' | 'open' | 'closed' = 'none';
  readonly #log: Logged[] = [];
  #logBytes = 0;
  #acked = 0;
  #ackTimer: unknown = null;

  // Receiving.
  #taken = 0;
  #relayNext = 0;
  /** The other side's relay messages end here (its START); a RESUME lifts it. */
  #relayEnd = Number.POSITIVE_INFINITY;
  /** Number of the other side's next DATA; -1 before its START (or after its RESUME: DATA then ignored). */
  #directNext = -1;
  #directIgnore = false;
  readonly #ahead: Uint8Array[] = [];
  #aheadFirst = 0;
  #aheadBytes = 0;
  #ackedUpTo = 0;
  #unackedMessages = 0;
  #unackedBytes = 0;
  #ackDelay: unknown = null;
  #ended = false;

  constructor(
    channel: SecureChannel,
    links: CarrierLinks,
    events: CarrierEvents,
    clock: CarrierClock,
    policy: PathCarrierPolicy = PATH_CARRIER,
  ) {
    this.#channel = channel;
    this.#links = links;
    this.#events = events;
    this.#clock = clock;
    this.#policy = policy;
  }

  /** The path this side's messages take now. */
  get sendingOn(): PathName {
    return this.#sending;
  }
  /** Whether the relay socket is still there. */
  get relayUp(): boolean {
    return this.#relayUp;
  }
  /** Bytes sent on the direct path and not yet acknowledged. */
  get unackedBytes(): number {
    return this.#logBytes;
  }

  /** Seals one whole frame and sends its messages on the current path; false when no path took them. */
  send(frame: Uint8Array): boolean {
    if (this.#ended) return false;
    for (const message of this.#channel.seal(frame)) if (!this.#route(message)) return false;
    return true;
  }

  #route(message: Uint8Array): boolean {
    const n = this.#sent++;
    if (this.#sending === 'direct') {
      this.#log.push({ n, message, at: this.#clock.now() });
      this.#logBytes += message.length;
      if (this.#log.length === 1) this.#armAckTimeout();
      if (!this.#links.sendDirect(encodeDirectData(message))) {
        this.#leaveDirect('the direct channel refused a message');
      } else {
        this.counters.directMessages++;
        this.counters.directBytes += message.length + 1;
        if (this.#logBytes > this.#policy.maxUnackedBytes)
          this.#leaveDirect('the direct path stopped acknowledging');
      }
      return !this.#ended;
    }
    return this.#relaySend(message);
  }

  #relaySend(bytes: Uint8Array): boolean {
    if (!this.#relayUp || !this.#links.sendRelay(bytes)) {
      this.#end('the relay connection is gone');
      return false;
    }
    this.counters.relayMessages++;
    this.counters.relayBytes += bytes.length;
    return true;
  }

  /** A new direct channel exists (not open yet): its frames are accepted from now on. */
  directAttached(): void {
    if (this.#direct === 'fresh' || this.#direct === 'open')
      throw new RangeError('the previous direct channel was not closed');
    this.#direct = 'fresh';
  }

  /** The direct channel opened: this side's messages take it from now on (R-PATH-3). */
  directOpened(): void {
    if (this.#ended || this.#direct !== 'fresh') return;
    this.#direct = 'open';
    if (!this.#links.sendDirect(encodeDirectStart(this.#sent))) {
      this.#leaveDirect('the direct channel refused START');
      return;
    }
    this.#sending = 'direct';
    this.counters.toDirect++;
  }

  /** The direct channel closed or failed (why, in words). */
  directClosed(reason: string): void {
    if (this.#direct === 'none' || this.#direct === 'closed') return;
    this.#direct = 'closed';
    this.#clock.clearTimeout(this.#ackDelay);
    this.#ackDelay = null;
    if (this.#sending === 'direct') this.#leaveDirect(reason);
    else if (!this.#relayUp) this.#end(reason);
  }

  /** The relay socket is gone: fine while the direct path carries this side's messages (R-PATH-8). */
  relayLost(): void {
    this.#relayUp = false;
    if (this.#sending !== 'direct') this.#end('the relay connection is gone');
    // The other side moved to the direct path, but relay messages before its START are still missing.
    else if (Number.isFinite(this.#relayEnd) && this.#taken < this.#relayEnd)
      this.#end('the relay connection went with messages still on it');
  }

  /**
   * A new relay socket carries this session (R-PATH-8, after REJOIN): every Noise message the other side
   * sends on it comes after a RESUME.
   */
  relayAttached(): void {
    if (this.#ended) return;
    this.#relayUp = true;
    this.#relayEnd = this.#relayNext;
  }

  /** One frame from the relay socket: the whole application frames it completes, in order. */
  relayFrame(bytes: Uint8Array): Uint8Array[] {
    if (this.#ended) return [];
    if (isRelayCarrierFrame(bytes)) {
      const f = decodeRelayCarrierFrame(bytes);
      if (f.kind === 'rejoined') {
        this.#events.rejoined?.();
        return [];
      }
      // R-PATH-5: the other side left the direct path; what it had not seen acknowledged comes again here.
      if (f.first > this.#taken) throw fatalError('R-PATH-5', 'RESUME skips messages never received');
      this.#relayNext = f.first;
      this.#relayEnd = Number.POSITIVE_INFINITY;
      this.#directNext = -1;
      this.#directIgnore = true;
      this.#dropAhead();
      if (this.#sending === 'direct') this.#leaveDirect('the other side left the direct path');
      return [];
    }
    const n = this.#relayNext++;
    if (n >= this.#relayEnd)
      throw fatalError('R-PATH-6', 'a relay message after the sender moved to the direct path');
    if (n < this.#taken) return []; // sent again after a RESUME, and already taken from the direct path
    if (n > this.#taken) throw fatalError('R-PATH-5', 'a relay message out of order');
    const out: Uint8Array[] = [];
    this.#take(bytes, out);
    this.#drainAhead(out);
    return out;
  }

  /** One message from the direct channel: the whole application frames it completes, in order. */
  directFrame(bytes: Uint8Array): Uint8Array[] {
    if (this.#ended || (this.#direct !== 'fresh' && this.#direct !== 'open')) return [];
    const f = decodeDirectFrame(bytes);
    switch (f.kind) {
      case 'start':
        if (f.first < this.#taken || f.first < this.#relayNext)
          throw fatalError('R-PATH-3', 'START names a message already received');
        if (this.#directNext !== -1) throw fatalError('R-PATH-3', 'one START per direct path');
        this.#directNext = f.first;
        this.#directIgnore = false;
        this.#relayEnd = f.first;
        return [];
      case 'ack':
        this.#acknowledged(f.received);
        return [];
      case 'data': {
        if (this.#directIgnore) return []; // in flight when the sender left the path; it resends on the relay
        if (this.#directNext === -1) throw fatalError('R-PATH-3', 'DATA before START');
        const n = this.#directNext++;
        const out: Uint8Array[] = [];
        if (n === this.#taken) {
          this.#take(f.message, out);
          this.#countForAck(f.message.length);
          this.#drainAhead(out);
        } else if (n > this.#taken) {
          // R-PATH-7: ahead of relay messages still on their way; held (a copy: the view is the channel's).
          if (this.#ahead.length === 0) this.#aheadFirst = n;
          this.#ahead.push(f.message.slice());
          this.#aheadBytes += f.message.length;
          if (this.#aheadBytes > this.#policy.maxAheadBytes)
            throw fatalError('R-PATH-7', 'too many direct messages ahead of the relay');
        } else throw fatalError('R-PATH-3', 'a direct message already received');
        return out;
      }
    }
  }

  /** Stops timers; nothing is sent or taken after this. */
  dispose(): void {
    this.#ended = true;
    this.#clock.clearTimeout(this.#ackTimer);
    this.#clock.clearTimeout(this.#ackDelay);
    this.#ackTimer = this.#ackDelay = null;
    this.#log.length = 0;
    this.#logBytes = 0;
    this.#dropAhead();
  }

  #take(message: Uint8Array, out: Uint8Array[]): void {
    const frame = this.#channel.open(message);
    this.#taken++;
    if (frame) out.push(frame);
  }

  #drainAhead(out: Uint8Array[]): void {
    while (this.#ahead.length > 0 && this.#aheadFirst === this.#taken) {
      const message = this.#ahead.shift()!;
      this.#aheadFirst++;
      this.#aheadBytes -= message.length;
      this.#take(message, out);
      this.#countForAck(message.length);
    }
  }

  #dropAhead(): void {
    this.#ahead.length = 0;
    this.#aheadBytes = 0;
  }

  /** R-PATH-4: an ACK now and then, and soon after any direct message. */
  #countForAck(bytes: number): void {
    this.#unackedMessages++;
    this.#unackedBytes += bytes;
    if (
      this.#unackedMessages >= this.#policy.ackEveryMessages ||
      this.#unackedBytes >= this.#policy.ackEveryBytes
    ) {
      this.#sendAck();
    } else if (this.#ackDelay === null) {
      this.#ackDelay = this.#clock.setTimeout(() => {
        this.#ackDelay = null;
        this.#sendAck();
      }, this.#policy.ackDelayMs);
    }
  }

  #sendAck(): void {
    this.#clock.clearTimeout(this.#ackDelay);
    this.#ackDelay = null;
    this.#unackedMessages = this.#unackedBytes = 0;
    if (this.#ended || this.#direct !== 'open' || this.#ackedUpTo === this.#taken) return;
    this.#ackedUpTo = this.#taken;
    this.#links.sendDirect(encodeDirectAck(this.#taken));
  }

  #acknowledged(received: number): void {
    if (received > this.#sent) throw fatalError('R-PATH-4', 'ACK of messages never sent');
    if (received < this.#acked) throw fatalError('R-PATH-4', 'ACK going backwards');
    this.#acked = received;
    let dropped = 0;
    while (dropped < this.#log.length && this.#log[dropped]!.n < received) {
      this.#logBytes -= this.#log[dropped]!.message.length;
      dropped++;
    }
    if (dropped > 0) {
      this.#log.splice(0, dropped);
      this.#armAckTimeout();
    }
  }

  #armAckTimeout(): void {
    this.#clock.clearTimeout(this.#ackTimer);
    this.#ackTimer = null;
    const oldest = this.#log[0];
    if (oldest === undefined) return;
    const left = oldest.at + this.#policy.ackTimeoutMs - this.#clock.now();
    this.#ackTimer = this.#clock.setTimeout(
      () => {
        this.#ackTimer = null;
        const first = this.#log[0];
        if (first === undefined || this.#sending !== 'direct') return;
        if (this.#clock.now() - first.at >= this.#policy.ackTimeoutMs)
          this.#leaveDirect('the direct path stopped acknowledging');
        else this.#armAckTimeout();
      },
      Math.max(0, left),
    );
  }

  /** R-PATH-5: back to the relay with everything not acknowledged. */
  #leaveDirect(reason: string): void {
    if (this.#sending !== 'direct' || this.#ended) return;
    this.#sending = 'relay';
    this.counters.toRelay++;
    this.#clock.clearTimeout(this.#ackTimer);
    this.#ackTimer = null;
    if (this.#direct === 'open' || this.#direct === 'fresh') this.#direct = 'closed';
    const log = this.#log.splice(0);
    this.#logBytes = 0;
    this.#events.directLeft(reason);
    if (!this.#relayUp) {
      this.#end(`${reason}, and the relay connection is gone`);
      return;
    }
    if (!this.#relaySend(encodeRelayResume(log[0]?.n ?? this.#sent))) return;
    for (const entry of log) {
      if (!this.#relaySend(entry.message)) return;
      this.counters.resent++;
    }
  }

  #end(reason: string): void {
    if (this.#ended) return;
    this.dispose();
    this.#events.noPath(reason);
  }
}
