/**
 * One phone connection's direct path, on the Burrow's side (protocol/SPEC.md "The direct path"): answers the
 * phone's `direct-offer` inside the Noise session, trickles candidates both ways, and hands the open channel
 * to the connection's PathCarrier, which moves the session onto it and back.
 *
 * The answerer decides nothing about bytes; it enforces who may open a path and how much of one:
 *  - R-DIRECT-1: only while the network policy allows it, only for a device still in the ACL (a revoked
 *    device's offer closes its connection), only where WebRTC loaded, at most MAX_DIRECT_PEERS at once;
 *  - R-DIRECT-4: at most MAX_DIRECT_CANDIDATES from the phone per offer;
 *  - R-DIRECT-7: a path that does not open within DIRECT_CONNECT_TIMEOUT_MS is closed (the relay carries
 *    on; the phone may offer again later).
 */
import {
  type BurrowMessage,
  checkDirectSdp,
  ErrorCode,
  MAX_DIRECT_CANDIDATES,
  type NetworkPolicy,
} from '@burrow/protocol';
import { type DirectPeer, type DirectPeerFactory, isMdnsCandidate } from './ndc-peer.js';

/** R-DIRECT-7: from the answer to the channel open (ms): ICE, DTLS and SCTP on a slow home network. */
export const DIRECT_CONNECT_TIMEOUT_MS = 20_000;
/** R-DIRECT-1: direct paths this Burrow keeps open at once (each holds sockets and threads in the addon). */
export const MAX_DIRECT_PEERS = 16;

/** What the answerer drives on the connection's PathCarrier. */
export interface DirectCarrierPort {
  directAttached(): void;
  directOpened(): void;
  directClosed(reason: string): void;
  /** Whole application frames a channel message completes; throws when the stream is broken. */
  directFrame(bytes: Uint8Array): Uint8Array[];
}

/** Shared by every connection: how many direct paths exist. */
export class DirectPeerBudget {
  active = 0;
  constructor(readonly max = MAX_DIRECT_PEERS) {}
}

export interface DirectAnswererOptions {
  readonly policy: () => NetworkPolicy;
  /** Whether the device is still in the ACL. */
  readonly authorized: () => boolean;
  /** null: WebRTC is not available here (the addon did not load). */
  readonly factory: () => DirectPeerFactory | null;
  readonly budget: DirectPeerBudget;
  readonly carrier: DirectCarrierPort;
  /** Sends one message to the phone inside the session. */
  readonly send: (message: BurrowMessage) => void;
  /** A whole frame from the phone that came over the direct path. */
  readonly deliver: (frame: Uint8Array) => void;
  /** A direct message broke the stream (a failed decryption, a fatal R-PATH error): close the connection. */
  readonly fail: (error: unknown) => void;
  /** The device was revoked: close the connection DEVICE_REVOKED. */
  readonly revoked: () => void;
  /** R-DIRECT-6: this connection's rejoin id (base64url). */
  readonly rejoinId: string;
  readonly log: (line: string) => void;
  readonly connectTimeoutMs?: number;
}

interface Current {
  readonly generation: number;
  peer: DirectPeer | null;
  answered: boolean;
  opened: boolean;
  /** Our candidates gathered before the answer went out (sent right after it). */
  readonly localQueue: { candidate: string; mid: string }[];
  /** The phone's candidates that arrived before the peer existed. */
  readonly remoteQueue: { candidate: string; mid: string }[];
  remoteCount: number;
  /** The phone's candidates by kind: an mDNS name (not resolved here, R-DIRECT-5) or an address. */
  mdns: number;
  addresses: number;
  timer: NodeJS.Timeout | null;
  counted: boolean;
}

export class DirectAnswerer {
  readonly #o: DirectAnswererOptions;
  #generation = 0;
  #current: Current | null = null;
  #disposed = false;

  constructor(options: DirectAnswererOptions) {
    this.#o = options;
  }

  /** The open channel's queued bytes (the connection's backlog while the session is on the direct path). */
  bufferedAmount(): number {
    return this.#current?.peer?.bufferedAmount() ?? 0;
  }

  /** One message on the open channel; false when there is none or it cannot take it. */
  send(bytes: Uint8Array): boolean {
    const current = this.#current;
    return current?.opened === true && current.peer !== null && current.peer.send(bytes);
  }

  /** Whether a channel is open. */
  get open(): boolean {
    return this.#current?.opened === true;
  }

  offer(rid: number, sdp: string): void {
    if (this.#disposed) return;
    if (!this.#o.authorized()) {
      this.#o.log('direct: an offer from a revoked device; closing its connection');
      this.#o.revoked();
      return;
    }
    const refuse = (code: ErrorCode, message: string) => this.#o.send({ type: 'error', rid, code, message });
    if (this.#o.policy().direct !== 'allowed') {
      refuse(ErrorCode.DIRECT_UNAVAILABLE, 'the direct path is off on this computer (burrow settings)');
      return;
    }
    const factory = this.#o.factory();
    if (factory === null) {
      refuse(ErrorCode.DIRECT_UNAVAILABLE, 'this computer cannot open direct connections');
      return;
    }
    this.close('the phone offered a new direct path');
    if (this.#o.budget.active >= this.#o.budget.max) {
      refuse(ErrorCode.DIRECT_UNAVAILABLE, 'too many direct connections are open on this computer');
      return;
    }
    const current: Current = {
      generation: ++this.#generation,
      peer: null,
      answered: false,
      opened: false,
      localQueue: [],
      remoteQueue: [],
      remoteCount: 0,
      mdns: 0,
      addresses: 0,
      timer: null,
      counted: true,
    };
    for (const c of checkDirectSdp(sdp, 'offer').candidates) this.#count(current, c);
    this.#o.budget.active++;
    this.#current = current;
    const live = () => this.#current === current && !this.#disposed;
    factory(sdp, {
      iceServers: this.#o.policy().iceServers,
      events: {
        candidate: (candidate, mid) => {
          if (!live()) return;
          if (current.answered) this.#o.send({ type: 'direct-candidate', candidate, mid });
          else if (current.localQueue.length < MAX_DIRECT_CANDIDATES)
            current.localQueue.push({ candidate, mid });
        },
        open: (remoteType) => {
          if (!live()) return;
          current.opened = true;
          if (current.timer) clearTimeout(current.timer);
          current.timer = null;
          // How the path formed: `prflx` when the phone's checks arrived before (or instead of) an address.
          this.#o.log(`direct: the direct path is open (phone candidate: ${remoteType ?? 'unknown'})`);
          this.#o.carrier.directOpened();
        },
        message: (bytes) => {
          if (!live()) return;
          try {
            for (const frame of this.#o.carrier.directFrame(bytes)) this.#o.deliver(frame);
          } catch (error) {
            this.#o.fail(error);
          }
        },
        closed: (reason) => {
          if (!live()) return;
          this.#drop(current);
          this.#o.log(`direct: ${reason}`);
          this.#o.carrier.directClosed(reason);
        },
      },
    }).then(
      (peer) => {
        if (!live()) {
          peer.close();
          return;
        }
        try {
          checkDirectSdp(peer.answer, 'answer');
        } catch (error) {
          peer.close();
          this.#drop(current);
          this.#o.log(`direct: the WebRTC stack's answer failed our own checks: ${(error as Error).message}`);
          refuse(ErrorCode.DIRECT_FAILED, 'this computer could not answer the direct offer');
          return;
        }
        current.peer = peer;
        this.#o.carrier.directAttached();
        for (const c of current.remoteQueue.splice(0)) peer.addRemoteCandidate(c.candidate, c.mid);
        this.#o.send({ type: 'direct-answer', rid, sdp: peer.answer, rejoin: this.#o.rejoinId });
        current.answered = true;
        for (const c of current.localQueue.splice(0)) this.#o.send({ type: 'direct-candidate', ...c });
        current.timer = setTimeout(() => {
          if (live() && !current.opened) this.close('the direct path did not form in time');
        }, this.#o.connectTimeoutMs ?? DIRECT_CONNECT_TIMEOUT_MS);
        current.timer.unref();
      },
      (error: Error) => {
        if (!live()) return;
        this.#drop(current);
        this.#o.log(`direct: could not answer the offer: ${error.message}`);
        refuse(ErrorCode.DIRECT_FAILED, 'this computer could not answer the direct offer');
      },
    );
  }

  candidate(candidate: string, mid: string): void {
    const current = this.#current;
    if (current === null || this.#disposed) return; // late, for a path already closed
    if (++current.remoteCount > MAX_DIRECT_CANDIDATES) {
      if (current.remoteCount === MAX_DIRECT_CANDIDATES + 1) {
        this.#o.send({
          type: 'error',
          rid: null,
          code: ErrorCode.LIMIT_EXCEEDED,
          message: `R-DIRECT-4: at most ${MAX_DIRECT_CANDIDATES} candidates per direct path`,
        });
      }
      return;
    }
    this.#count(current, candidate);
    if (current.peer) current.peer.addRemoteCandidate(candidate, mid);
    else current.remoteQueue.push({ candidate, mid });
  }

  /** Counts the phone's candidates by kind, and says the first of each kind (diagnostics, tests). */
  #count(current: Current, candidate: string): void {
    if (isMdnsCandidate(candidate)) {
      if (current.mdns++ === 0)
        this.#o.log(
          'direct: the phone hides its address behind an mDNS name (left unresolved; peer-reflexive)',
        );
    } else if (current.addresses++ === 0) this.#o.log('direct: the phone named an address candidate');
  }

  /** Closes the direct path (policy turned off, a new offer, the connection ending); the relay carries on. */
  close(reason: string): void {
    const current = this.#current;
    if (current === null) return;
    const peer = current.peer;
    const wasAttached = peer !== null;
    this.#drop(current);
    peer?.close();
    if (wasAttached) this.#o.carrier.directClosed(reason);
  }

  dispose(): void {
    this.close('the connection ended');
    this.#disposed = true;
  }

  #drop(current: Current): void {
    if (current.timer) clearTimeout(current.timer);
    current.timer = null;
    if (current.counted) {
      current.counted = false;
      this.#o.budget.active--;
    }
    if (this.#current === current) this.#current = null;
  }
}
