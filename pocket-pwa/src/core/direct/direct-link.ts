/**
 * The phone's side of the direct path (protocol/SPEC.md "The direct path"): when the Burrow's network policy
 * allows it and this engine has WebRTC, offer a data channel inside the Noise session, trickle candidates,
 * and hand the open channel to the connection's PathCarrier, which moves the session onto it and back. A path
 * that fails or closes is offered again later (POCKET_DIRECT), sooner when the network changes.
 *
 * Nothing here trusts the channel: every message on it is a Noise message of the same session (DTLS below is
 * bound to this session by the fingerprints the offer and answer carry inside Noise, but is not relied on).
 */
import { checkIceCandidate, MAX_DIRECT_CANDIDATES, type NetworkPolicy } from '@burrow/protocol';
import type { Clock } from '../clock.js';
import type { RtcDataChannelLike, RtcFactory, RtcPeerConnectionLike } from './rtc.js';

export interface DirectTiming {
  /** The Burrow's answer to an offer, at most (ms). */
  readonly answerTimeoutMs: number;
  /** From the offer to the open channel, at most (ms): ICE, DTLS and SCTP. */
  readonly connectTimeoutMs: number;
  /** After a failed or lost path, the first new offer, then doubling up to `maxRetryMs`. */
  readonly firstRetryMs: number;
  readonly maxRetryMs: number;
}

export const POCKET_DIRECT: DirectTiming = Object.freeze({
  answerTimeoutMs: 10_000,
  connectTimeoutMs: 20_000,
  // A phone away from home fails every offer (no route): retrying every few minutes costs one small offer
  // through the relay each time, and a network change (`retryNow`) tries at once anyway.
  firstRetryMs: 5_000,
  maxRetryMs: 5 * 60_000,
});

/** The label both ends give the session's channel (negotiated, id 0: no DCEP round trip). */
export const DIRECT_CHANNEL_LABEL = 'burrow';

export type DirectState =
  /** This engine has no RTCPeerConnection: the relay carries everything. */
  | { readonly kind: 'unsupported' }
  /** Waiting for the Burrow's network policy. */
  | { readonly kind: 'unknown' }
  /** The Burrow's network policy says no. */
  | { readonly kind: 'off' }
  | { readonly kind: 'connecting' }
  | { readonly kind: 'open' }
  /** The last attempt failed or the path went; the next offer is due at `retryAtMs`. */
  | { readonly kind: 'waiting'; readonly reason: string; readonly retryAtMs: number };

/** What the link drives on the connection's PathCarrier. */
export interface DirectCarrierPort {
  directAttached(): void;
  directOpened(): void;
  directClosed(reason: string): void;
  directFrame(bytes: Uint8Array): Uint8Array[];
}

export interface DirectLinkOptions {
  /** null: the engine has no WebRTC. */
  readonly rtc: RtcFactory | null;
  readonly carrier: DirectCarrierPort;
  /** Sends `direct-offer` and resolves with the Burrow's `direct-answer` (rejects with its error). */
  offer(sdp: string): Promise<{ sdp: string; rejoin: string }>;
  /** Sends one `direct-candidate`. */
  candidate(candidate: string, mid: string): void;
  /** A whole frame that came over the direct path. */
  deliver(frame: Uint8Array): void;
  /** A direct message broke the stream: the connection must close. */
  fail(error: unknown): void;
  /** The state changed (the UI shows the path). */
  changed(): void;
  readonly clock: Clock;
  readonly timing?: DirectTiming;
}

interface Attempt {
  readonly pc: RtcPeerConnectionLike;
  readonly dc: RtcDataChannelLike;
  timer: unknown;
  offered: boolean;
  answered: boolean;
  opened: boolean;
  closed: boolean;
  localSent: number;
  readonly localQueue: { candidate: string; mid: string }[];
  readonly remoteQueue: { candidate: string; mid: string }[];
}

/** Whether the engine's candidate passes R-DIRECT-3 (one that would not is not sent: the Burrow would refuse it). */
function isCandidate(candidate: string): boolean {
  try {
    checkIceCandidate(candidate);
    return true;
  } catch {
    return false;
  }
}

export class DirectLink {
  readonly #o: DirectLinkOptions;
  readonly #timing: DirectTiming;
  #state: DirectState;
  #policy: NetworkPolicy | null = null;
  #attempt: Attempt | null = null;
  #failures = 0;
  #retryTimer: unknown = null;
  #disposed = false;
  /** The rejoin id of the current path (R-PATH-8), from its answer. */
  rejoinId: string | null = null;

  constructor(options: DirectLinkOptions) {
    this.#o = options;
    this.#timing = options.timing ?? POCKET_DIRECT;
    this.#state = options.rtc === null ? { kind: 'unsupported' } : { kind: 'unknown' };
  }

  get state(): DirectState {
    return this.#state;
  }

  /** The open channel's queued bytes. */
  get bufferedAmount(): number {
    return this.#attempt?.opened ? this.#attempt.dc.bufferedAmount : 0;
  }

  /** R-NET-3: the Burrow's policy arrived or changed. */
  policy(policy: NetworkPolicy): void {
    if (this.#disposed || this.#o.rtc === null) return;
    this.#policy = policy;
    if (policy.direct === 'off') {
      this.#clearRetry();
      this.#close('the direct path was turned off');
      this.#set({ kind: 'off' });
      return;
    }
    if (this.#state.kind === 'off' || this.#state.kind === 'unknown') this.#try();
  }

  /** The network changed (online again, another Wi-Fi): a waiting path is offered at once. */
  retryNow(): void {
    if (this.#state.kind !== 'waiting') return;
    this.#failures = 0;
    this.#clearRetry();
    this.#try();
  }

  /** One candidate the Burrow trickled. */
  remoteCandidate(candidate: string, mid: string): void {
    const a = this.#attempt;
    if (a === null || a.closed) return;
    if (a.answered) void a.pc.addIceCandidate({ candidate, sdpMid: mid }).catch(() => undefined);
    else if (a.remoteQueue.length < MAX_DIRECT_CANDIDATES) a.remoteQueue.push({ candidate, mid });
  }

  /** One message on the open channel; false when there is none or it cannot take it. */
  send(bytes: Uint8Array): boolean {
    const a = this.#attempt;
    if (a === null || !a.opened || a.closed || a.dc.readyState !== 'open') return false;
    try {
      a.dc.send(bytes);
      return true;
    } catch {
      return false; // a full or closing channel: the carrier falls back to the relay
    }
  }

  /** The carrier left the direct path (it stopped acknowledging, or the other side left): close it. */
  left(reason: string): void {
    if (this.#attempt === null) return;
    this.#close(reason);
    this.#scheduleRetry(reason);
  }

  dispose(): void {
    this.#disposed = true;
    this.#clearRetry();
    this.#close('the connection ended');
  }

  #set(state: DirectState): void {
    this.#state = state;
    this.#o.changed();
  }

  #try(): void {
    const rtc = this.#o.rtc;
    const policy = this.#policy;
    if (this.#disposed || rtc === null || policy === null || policy.direct !== 'allowed') return;
    this.#close('a new offer');
    let pc: RtcPeerConnectionLike;
    let dc: RtcDataChannelLike;
    try {
      pc = rtc({
        iceServers: policy.iceServers.map((s) => ({
          urls: s.url,
          ...(s.username !== undefined ? { username: s.username, credential: s.credential ?? '' } : {}),
        })),
      });
      dc = pc.createDataChannel(DIRECT_CHANNEL_LABEL, { negotiated: true, id: 0 });
    } catch (error) {
      this.#scheduleRetry(`this browser refused a direct connection (${(error as Error).message})`);
      return;
    }
    dc.binaryType = 'arraybuffer';
    const a: Attempt = {
      pc,
      dc,
      timer: null,
      offered: false,
      answered: false,
      opened: false,
      closed: false,
      localSent: 0,
      localQueue: [],
      remoteQueue: [],
    };
    this.#attempt = a;
    this.#o.carrier.directAttached();
    this.#set({ kind: 'connecting' });
    a.timer = this.#o.clock.setTimeout(
      () => this.#lost(a, 'the direct path did not form in time'),
      this.#timing.connectTimeoutMs,
    );
    pc.onicecandidate = (e) => {
      // Firefox ends with an empty candidate (end of candidates); nothing to send for it.
      const c = e.candidate;
      if (a.closed || c === null || c.candidate === '' || a.localSent >= MAX_DIRECT_CANDIDATES) return;
      // node-datachannel's polyfill keeps the SDP line's `a=` prefix; the wire form has none (R-DIRECT-3).
      const one = { candidate: c.candidate.replace(/^a=/, ''), mid: c.sdpMid ?? '0' };
      if (!isCandidate(one.candidate)) return;
      if (!a.offered) a.localQueue.push(one);
      else {
        a.localSent++;
        this.#o.candidate(one.candidate, one.mid);
      }
    };
    pc.onconnectionstatechange = () => {
      const s = pc.connectionState;
      if (s === 'failed' || s === 'closed' || s === 'disconnected')
        this.#lost(a, s === 'disconnected' ? 'the direct connection was lost' : `the direct connection ${s}`);
    };
    dc.onopen = () => {
      if (a.closed) return;
      a.opened = true;
      this.#o.clock.clearTimeout(a.timer);
      a.timer = null;
      this.#failures = 0;
      this.#o.carrier.directOpened();
      this.#set({ kind: 'open' });
    };
    dc.onclose = () => this.#lost(a, 'the direct channel closed');
    dc.onerror = () => this.#lost(a, 'the direct channel failed');
    dc.onmessage = (e) => {
      if (a.closed) return;
      const bytes =
        e.data instanceof ArrayBuffer ? new Uint8Array(e.data) : e.data instanceof Uint8Array ? e.data : null;
      if (bytes === null) return this.#o.fail(new TypeError('text on the direct channel'));
      try {
        for (const frame of this.#o.carrier.directFrame(bytes)) this.#o.deliver(frame);
      } catch (error) {
        this.#o.fail(error);
      }
    };
    void this.#negotiate(a);
  }

  async #negotiate(a: Attempt): Promise<void> {
    try {
      await a.pc.setLocalDescription(await a.pc.createOffer());
      const sdp = a.pc.localDescription?.sdp;
      if (a.closed) return;
      if (sdp === undefined) throw new Error('no local description');
      const answer = this.#withTimeout(this.#o.offer(sdp), this.#timing.answerTimeoutMs);
      a.offered = true;
      for (const c of a.localQueue.splice(0)) {
        a.localSent++;
        this.#o.candidate(c.candidate, c.mid);
      }
      const { sdp: answerSdp, rejoin } = await answer;
      if (a.closed) return;
      this.rejoinId = rejoin;
      await a.pc.setRemoteDescription({ type: 'answer', sdp: answerSdp });
      a.answered = true;
      for (const c of a.remoteQueue.splice(0))
        await a.pc.addIceCandidate({ candidate: c.candidate, sdpMid: c.mid }).catch(() => undefined);
    } catch (error) {
      this.#lost(a, `the direct offer failed: ${(error as Error).message}`);
    }
  }

  #withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = this.#o.clock.setTimeout(() => reject(new Error('your computer did not answer')), ms);
      p.then(
        (v) => {
          this.#o.clock.clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          this.#o.clock.clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  /** This attempt's path failed or went away: the relay carries on; offer again later. */
  #lost(a: Attempt, reason: string): void {
    if (a.closed || this.#attempt !== a) return;
    this.#close(reason);
    this.#scheduleRetry(reason);
  }

  #close(reason: string): void {
    const a = this.#attempt;
    if (a === null) return;
    this.#attempt = null;
    a.closed = true;
    this.#o.clock.clearTimeout(a.timer);
    a.dc.onopen = a.dc.onclose = a.dc.onerror = a.dc.onmessage = null;
    a.pc.onicecandidate = a.pc.onconnectionstatechange = null;
    try {
      a.dc.close();
      a.pc.close();
    } catch {
      // already closed
    }
    this.#o.carrier.directClosed(reason);
  }

  #scheduleRetry(reason: string): void {
    if (this.#disposed || this.#policy?.direct !== 'allowed') return;
    this.#clearRetry();
    const delay = Math.min(
      this.#timing.maxRetryMs,
      this.#timing.firstRetryMs * 2 ** Math.min(this.#failures++, 16),
    );
    this.#set({ kind: 'waiting', reason, retryAtMs: this.#o.clock.now() + delay });
    this.#retryTimer = this.#o.clock.setTimeout(() => {
      this.#retryTimer = null;
      this.#try();
    }, delay);
  }

  #clearRetry(): void {
    this.#o.clock.clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
  }
}
