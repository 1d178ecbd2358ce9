/**
 * Every phone connection that reaches this Burrow through the relay link, keyed by the relay's connId
 * (protocol/SPEC-relay.md). A connection goes: message 1 → (message 2 sent) → key confirmation → pairing or
 * the remote API. Handshakes that do not confirm within HANDSHAKE_BUDGET_MS are closed; at most
 * MAX_PENDING_HANDSHAKES may be in flight, and each holds one HandshakeState-sized object (the phone can only
 * send one message before confirmation, so nothing is buffered).
 */
import {
  type Aead,
  confirmationCode,
  type KeyPair,
  NoiseError,
  type NoiseTransport,
  randomBytes,
} from '@burrow/crypto';
import {
  type BuildFile,
  type BurrowMessage,
  CLOSE_MESSAGES,
  CloseCode,
  decodePairClientMessage,
  decodeRejoin,
  encodeBase64url,
  encodeBurrowMessage,
  encodeCloseClientFrame,
  encodeDataFrame,
  encodePairBurrowMessage,
  type NetworkPolicy,
  type PairBurrowMessage,
  PathCarrier,
  ProtocolError,
  RELAY_REJOINED,
  type RelayToAgentFrame,
  SecureChannel,
} from '@burrow/protocol';
import type { DeviceRecord, DeviceRegistry } from '../devices/device-registry.js';
import { DirectAnswerer, DirectPeerBudget } from '../direct/direct-answerer.js';
import type { DirectPeerFactory } from '../direct/ndc-peer.js';
import type { PairingOffer, PairingOffers } from '../pairing/pairing-offer.js';
import type { SessionRegistry } from '../session/session-registry.js';
import type { ResumePort } from './api-connection.js';
import { ApiConnection } from './api-connection.js';
import type { AttentionPort } from './attention-port.js';
import { respondToMessage1 } from './handshake-responder.js';
import type { RemoteSettingsPort } from './remote-settings-port.js';

/** From the phone's message 1 to its first transport message (the key confirmation), ms. */
export const HANDSHAKE_BUDGET_MS = 10_000;
/** Handshakes in flight at once; more are closed at once (an active relay could otherwise make us work). */
export const MAX_PENDING_HANDSHAKES = 16;
/** How long the owner has to compare the code and answer, ms (the phone shows a spinner meanwhile). */
export const PAIR_CONFIRM_BUDGET_MS = 5 * 60_000;
/** Authenticated connections at once (the relay bounds client sockets too). */
export const MAX_LIVE_CONNECTIONS = 64;

/** The carrier's clock: real timers that never keep the daemon alive on their own. */
const carrierClock = {
  now: () => performance.now(),
  setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle: unknown) => clearTimeout(handle as NodeJS.Timeout),
};
/** A Burrow without the direct path: no peer may ever exist. */
const NO_DIRECT_BUDGET = new DirectPeerBudget(0);

export interface PairRequest {
  readonly code: string;
  readonly label: string;
  readonly platform: string;
}

export type PairingResult =
  | { readonly outcome: 'paired'; readonly deviceId: string; readonly label: string }
  | { readonly outcome: 'declined' | 'timeout' | 'failed'; readonly message: string };

/** The owner's side of pairing (`burrow pair` asks y/N, or `--yes`). */
export type PairApprover = (request: PairRequest) => Promise<boolean>;

/** Registers a phone's delivery at the relay (PUT /v1/burrows/:id/deliveries/:deliveryId with tokenHash). */
export interface DeliveryRegistrar {
  register(deliveryId: string, deliveryToken: Uint8Array): Promise<void>;
  revoke(deliveryId: string): Promise<void>;
}

export interface RemoteEndpointOptions {
  readonly burrowId: string;
  readonly burrowName: string;
  readonly relayUrl: string;
  readonly staticKeyPair: KeyPair;
  readonly devices: DeviceRegistry;
  readonly offers: PairingOffers;
  readonly registry: SessionRegistry;
  readonly attention: AttentionPort;
  readonly deliveries: DeliveryRegistrar;
  /** Revokes a device completely (ACL, live connections, relay delivery): used when a phone sends forget-me. */
  readonly revokeDevice: (deviceId: string) => Promise<unknown>;
  /** Who answers pairing requests; null when no `burrow pair` is waiting (then pairing is refused). */
  readonly approver: () => PairApprover | null;
  /** How a pairing ended once the owner answered (for `burrow pair` to print). */
  readonly pairingDone?: (result: PairingResult) => void;
  /** Sends one agent frame on the relay link; false when the link is down. */
  readonly sendFrame: (frame: Uint8Array) => boolean;
  readonly linkBacklog: () => number;
  readonly now: () => number;
  readonly log: (line: string) => void;
  readonly aead?: Aead;
  /** Push status / test, alarm settings, WATCHING rules for the phone's settings screen. */
  readonly settings?: RemoteSettingsPort;
  /** R-B-BUILD-1: the Pocket build this Burrow vouches for (null: none). */
  readonly pocketBuild?: readonly BuildFile[] | null;
  /** R-C-RESUME-1: agent recovery's resume; absent: `resume` is answered unknown_message. */
  readonly resume?: ResumePort;
  /** The direct path (SPEC "The direct path"); absent: every offer is refused `direct_unavailable`. */
  readonly direct?: DirectOptions;
}

/** What the endpoint needs for the direct path: the policy, the WebRTC factory, the shared budget. */
export interface DirectOptions {
  readonly policy: {
    get(): NetworkPolicy;
    set(value: unknown): NetworkPolicy;
  };
  /** null: WebRTC is unavailable on this computer. */
  readonly factory: () => DirectPeerFactory | null;
  readonly budget: DirectPeerBudget;
}

/** One live connection's paths, for `burrow status --json` (what the Burrow sent on each, in bytes). */
export interface ConnectionPath {
  /** Stable for the connection's life (its first connId), across relay sockets. */
  readonly id: number;
  readonly deviceId: string;
  readonly path: 'relay' | 'direct';
  readonly relay: boolean;
  readonly sent: {
    readonly relayBytes: number;
    readonly directBytes: number;
    readonly resent: number;
    readonly toDirect: number;
    readonly toRelay: number;
  };
}

/** Where a live connection's relay frames go: its current connId, or none while the relay is gone. */
interface RelayRoute {
  connId: number | null;
}

type Conn =
  | { state: 'new'; timer: NodeJS.Timeout }
  | {
      state: 'confirming-connect';
      timer: NodeJS.Timeout;
      channel: SecureChannel<NoiseTransport>;
      device: DeviceRecord;
      timestamp: number;
    }
  | {
      state: 'confirming-pair';
      timer: NodeJS.Timeout;
      channel: SecureChannel<NoiseTransport>;
      offer: PairingOffer;
      clientPublicKey: Uint8Array;
    }
  | { state: 'pairing'; channel: SecureChannel<NoiseTransport> }
  | {
      state: 'live';
      channel: SecureChannel<NoiseTransport>;
      api: ApiConnection;
      deviceId: string;
      carrier: PathCarrier;
      direct: DirectAnswerer;
      route: RelayRoute;
      /** Its first connId, kept across relay sockets. */
      id: number;
      /** R-DIRECT-6 / R-PATH-8: names this connection to a new relay socket (base64url). */
      rejoinId: string;
    };

export class RemoteEndpoint {
  readonly #o: RemoteEndpointOptions;
  readonly #conns = new Map<number, Conn>();
  /** Keys for connections whose relay socket is gone (they live on the direct path): below zero. */
  #detachedKey = 0;

  constructor(options: RemoteEndpointOptions) {
    this.#o = options;
  }

  /** The session list changed: every live phone gets the directory difference at once. */
  listChanged(): void {
    for (const c of this.#conns.values()) if (c.state === 'live') c.api.listChanged();
  }

  /**
   * The network policy changed (R-NET-3): every phone hears it; with the direct path off, open ones close
   * and their sessions carry on over the relay.
   */
  policyChanged(policy: NetworkPolicy): void {
    for (const c of this.#conns.values()) {
      if (c.state !== 'live') continue;
      if (policy.direct === 'off') c.direct.close('the direct path was turned off');
      c.api.policyChanged(policy);
    }
  }

  /** The live connections' paths (for `burrow status` and tests). */
  paths(): ConnectionPath[] {
    return [...this.#conns.values()].flatMap((c) => {
      if (c.state !== 'live') return [];
      const n = c.carrier.counters;
      return [
        {
          id: c.id,
          deviceId: c.deviceId,
          path: c.carrier.sendingOn,
          relay: c.carrier.relayUp,
          sent: {
            relayBytes: n.relayBytes,
            directBytes: n.directBytes,
            resent: n.resent,
            toDirect: n.toDirect,
            toRelay: n.toRelay,
          },
        },
      ];
    });
  }

  /** Live connections per device (for `burrow devices` and revocation). */
  liveDevices(): string[] {
    return [...this.#conns.values()].flatMap((c) => (c.state === 'live' ? [c.deviceId] : []));
  }

  onFrame(frame: RelayToAgentFrame) {
    switch (frame.type) {
      case 'client_open':
        return this.#open(frame.connId);
      case 'client_closed':
        // A phone that closes because what it received failed to open is evidence of a tampering path.
        if (frame.code === CloseCode.DECRYPT_FAILED || frame.code === CloseCode.PROTOCOL_VIOLATION) {
          this.#o.log(
            `remote: connection ${frame.connId} was closed by the phone: ${CLOSE_MESSAGES[frame.code]}`,
          );
        }
        return this.#relayGone(frame.connId);
      case 'data':
        this.#data(frame.connId, frame.payload);
        return;
    }
  }

  /** The relay link went down: every phone connection through it is gone, but those on the direct path. */
  onLinkDown() {
    for (const id of [...this.#conns.keys()]) this.#relayGone(id);
  }

  /**
   * A connection's relay socket ended. One whose session the direct path carries lives on (R-PATH-8),
   * under a key of its own until a REJOIN gives it a new socket; any other is gone.
   */
  #relayGone(connId: number) {
    const c = this.#conns.get(connId);
    if (c?.state !== 'live' || c.route.connId !== connId) return this.#forget(connId);
    c.route.connId = null;
    this.#conns.delete(connId);
    const key = --this.#detachedKey;
    this.#conns.set(key, c);
    c.carrier.relayLost(); // ends the connection (noPath) unless the direct path carries it
    if (this.#conns.get(key) === c)
      this.#o.log(`remote: connection ${connId} lost its relay socket; the direct path carries it on`);
  }

  /** Closes every live connection of a device at once (revocation, DESIGN §2). */
  closeDevice(deviceId: string, code: CloseCode = CloseCode.DEVICE_REVOKED): number {
    let n = 0;
    for (const [id, c] of this.#conns) {
      if (
        (c.state === 'live' && c.deviceId === deviceId) ||
        (c.state === 'confirming-connect' && c.device.deviceId === deviceId)
      ) {
        this.#closeClient(id, code);
        n++;
      }
    }
    return n;
  }

  closeAll(code: CloseCode) {
    for (const id of [...this.#conns.keys()]) this.#closeClient(id, code);
  }

  #pending(): number {
    let n = 0;
    for (const c of this.#conns.values()) if (c.state === 'new' || c.state.startsWith('confirming')) n++;
    return n;
  }

  #open(connId: number) {
    if (this.#conns.has(connId)) return this.#closeClient(connId, CloseCode.PROTOCOL_VIOLATION);
    if (this.#pending() >= MAX_PENDING_HANDSHAKES) {
      this.#o.sendFrame(encodeCloseClientFrame(connId, CloseCode.HANDSHAKE_TIMEOUT));
      return;
    }
    this.#conns.set(connId, { state: 'new', timer: this.#budget(connId) });
  }

  #budget(connId: number): NodeJS.Timeout {
    const t = setTimeout(() => this.#closeClient(connId, CloseCode.HANDSHAKE_TIMEOUT), HANDSHAKE_BUDGET_MS);
    t.unref();
    return t;
  }

  #forget(connId: number) {
    const c = this.#conns.get(connId);
    if (!c) return;
    this.#conns.delete(connId);
    if ('timer' in c) clearTimeout(c.timer);
    if (c.state === 'live') {
      c.direct.dispose();
      c.carrier.dispose();
      c.api.dispose();
    }
  }

  #closeClient(connId: number, code: CloseCode) {
    const c = this.#conns.get(connId);
    this.#forget(connId);
    // A connection without a relay socket has nobody there to tell; closing its direct path is the close.
    if (c?.state === 'live' && c.route.connId === null) return;
    if (c?.state === 'live') connId = c.route.connId ?? connId;
    let frame: Uint8Array;
    try {
      frame = encodeCloseClientFrame(connId, code);
    } catch (err) {
      // Often called from a timer: a bad code must not take the daemon down. Close normally instead.
      this.#o.log(`remote: close code ${code} refused (${(err as Error).message}); closing normally`);
      frame = encodeCloseClientFrame(connId, CloseCode.NORMAL);
    }
    this.#o.sendFrame(frame);
  }

  #sendSealed(connId: number, channel: SecureChannel<NoiseTransport>, frame: Uint8Array) {
    for (const ct of channel.seal(frame)) {
      if (!this.#o.sendFrame(encodeDataFrame(connId, ct))) return;
    }
  }

  #data(connId: number, payload: Uint8Array) {
    const c = this.#conns.get(connId);
    if (!c) return this.#closeClient(connId, CloseCode.PROTOCOL_VIOLATION);
    try {
      switch (c.state) {
        case 'new': {
          const rejoin = decodeRejoin(payload);
          if (rejoin !== null) return this.#rejoin(connId, c.timer, rejoin);
          return this.#message1(connId, c.timer, payload);
        }
        case 'confirming-connect':
          return this.#confirmConnect(connId, c, payload);
        case 'confirming-pair':
          return this.#confirmPair(connId, c, payload);
        case 'pairing':
          // The phone has nothing to say while the owner decides.
          return this.#closeClient(connId, CloseCode.PROTOCOL_VIOLATION);
        case 'live':
          for (const frame of c.carrier.relayFrame(payload)) c.api.receive(frame);
          return;
      }
    } catch (error) {
      this.#refused(connId, error);
    }
  }

  /** A message that broke the stream, from either path: log why (never its bytes) and close. */
  #refused(connId: number, error: unknown) {
    // A message that fails to open after the handshake means a path altered it (DESIGN §2: the relay is not
    // trusted): say so in the log, without any byte of it, so the owner can see a tampering relay.
    if (error instanceof NoiseError) {
      this.#o.log(`remote: connection ${connId}: a message failed to decrypt (altered in transit?); closing`);
      return this.#closeClient(connId, CloseCode.DECRYPT_FAILED);
    }
    if (error instanceof ProtocolError) {
      this.#o.log(`remote: connection ${connId}: a message broke the protocol (${error.rule}); closing`);
      return this.#closeClient(connId, CloseCode.PROTOCOL_VIOLATION);
    }
    this.#o.log(`remote: connection ${connId} failed: ${(error as Error).message}`);
    this.#closeClient(connId, CloseCode.HANDSHAKE_FAILED);
  }

  #message1(connId: number, timer: NodeJS.Timeout, message1: Uint8Array) {
    const outcome = respondToMessage1(
      {
        burrowId: this.#o.burrowId,
        staticKeyPair: this.#o.staticKeyPair,
        now: this.#o.now(),
        findDevice: (k) => this.#o.devices.findByPublicKey(k),
        lastHandshakeAt: (id) => this.#o.devices.lastHandshakeAt(id),
        openOffer: this.#o.offers.current(),
        ...(this.#o.aead ? { aead: this.#o.aead } : {}),
      },
      message1,
    );
    if (outcome.kind === 'reject') {
      this.#o.log(`remote: connection ${connId} refused: ${outcome.why}`);
      this.#closeClient(connId, outcome.code);
      return;
    }
    const channel = new SecureChannel(outcome.transport);
    this.#conns.set(
      connId,
      outcome.kind === 'connect'
        ? {
            state: 'confirming-connect',
            timer,
            channel,
            device: outcome.device,
            timestamp: outcome.timestamp,
          }
        : {
            state: 'confirming-pair',
            timer,
            channel,
            offer: outcome.offer,
            clientPublicKey: outcome.clientPublicKey,
          },
    );
    this.#o.sendFrame(encodeDataFrame(connId, outcome.message2));
  }

  #confirmConnect(
    connId: number,
    c: Extract<Conn, { state: 'confirming-connect' }>,
    payload: Uint8Array,
  ): void {
    const route: RelayRoute = { connId };
    const carrier: PathCarrier = new PathCarrier(
      c.channel,
      {
        sendRelay: (bytes) =>
          route.connId !== null && this.#o.sendFrame(encodeDataFrame(route.connId, bytes)),
        sendDirect: (bytes): boolean => answerer.send(bytes),
      },
      {
        directLeft: (reason) => {
          this.#o.log(
            `remote: connection ${route.connId ?? '(direct only)'} is back on the relay: ${reason}`,
          );
          answerer.close(reason);
        },
        noPath: (reason) => {
          const key = this.#keyOf(live);
          this.#o.log(`remote: a connection ended: ${reason}`);
          if (key !== null) this.#forget(key);
        },
      },
      carrierClock,
    );
    // Decrypting proves the phone holds the device psk (IKpsk2 key confirmation). A wrong psk → NoiseError.
    const frames = carrier.relayFrame(payload);
    clearTimeout(c.timer);
    if (this.#o.devices.findByPublicKey(c.device.clientPublicKey) === undefined) {
      this.#closeClient(connId, CloseCode.DEVICE_REVOKED);
      return;
    }
    if (this.liveDevices().length >= MAX_LIVE_CONNECTIONS) {
      this.#closeClient(connId, CloseCode.PROTOCOL_VIOLATION);
      return;
    }
    // Re-check against the persisted floor: two racing connects with one message 1 must not both win.
    if (c.timestamp <= this.#o.devices.lastHandshakeAt(c.device.deviceId)) {
      this.#closeClient(connId, CloseCode.STALE_HANDSHAKE);
      return;
    }
    this.#o.devices.recordHandshake(c.device.deviceId, c.timestamp, this.#o.now());
    const device = c.device;
    const rejoinId = encodeBase64url(randomBytes(16));
    const closeLive = (code: CloseCode) => {
      const key = this.#keyOf(live);
      if (key !== null) this.#closeClient(key, code);
    };
    const directOptions = this.#o.direct;
    const answerer: DirectAnswerer = new DirectAnswerer({
      policy: () => directOptions?.policy.get() ?? { direct: 'off', iceServers: [] },
      authorized: () => this.#o.devices.findByPublicKey(device.clientPublicKey) !== undefined,
      factory: () => directOptions?.factory() ?? null,
      budget: directOptions?.budget ?? NO_DIRECT_BUDGET,
      carrier,
      send: (m): void => api.send(m),
      deliver: (frame) => api.receive(frame),
      fail: (error) => {
        const key = this.#keyOf(live);
        if (key !== null) this.#refused(key, error);
      },
      revoked: () => closeLive(CloseCode.DEVICE_REVOKED),
      rejoinId,
      log: this.#o.log,
    });
    const api = new ApiConnection({
      viewerId: `${device.deviceId}-${connId}`,
      viewerIdentity: device.deviceId,
      burrowName: this.#o.burrowName,
      registry: this.#o.registry,
      attention: this.#o.attention,
      send: (m: BurrowMessage) => {
        const frame = encodeBurrowMessage(m);
        carrier.send(frame);
        return frame.length;
      },
      // While the session is on the direct path, what queues toward the phone is in the channel, not the link.
      backlog: () => (carrier.sendingOn === 'direct' ? answerer.bufferedAmount() : this.#o.linkBacklog()),
      close: closeLive,
      log: this.#o.log,
      forgetMe: async () => {
        await this.#o.revokeDevice(device.deviceId);
      },
      deliveryId: device.deliveryId,
      ...(this.#o.settings !== undefined ? { settings: this.#o.settings } : {}),
      ...(this.#o.resume !== undefined ? { resume: this.#o.resume } : {}),
      pocketBuild: this.#o.pocketBuild ?? null,
      direct: {
        offer: (rid, sdp) => answerer.offer(rid, sdp),
        candidate: (candidate, mid) => answerer.candidate(candidate, mid),
        policy: () => directOptions?.policy.get() ?? null,
        setPolicy: (value) => {
          if (directOptions === undefined) throw new RangeError('this Burrow has no network policy');
          return directOptions.policy.set(value);
        },
      },
    });
    const live: Extract<Conn, { state: 'live' }> = {
      state: 'live',
      channel: c.channel,
      api,
      deviceId: device.deviceId,
      carrier,
      direct: answerer,
      route,
      id: connId,
      rejoinId,
    };
    this.#conns.set(connId, live);
    for (const frame of frames) api.receive(frame);
  }

  /** The key a live connection is held under now (its connId, or its detached key), or null once gone. */
  #keyOf(conn: Conn): number | null {
    for (const [key, c] of this.#conns) if (c === conn) return key;
    return null;
  }

  /**
   * R-PATH-8: a new relay socket asks to carry a connection whose relay socket ended while the direct path
   * carried it on. The id is a routing hint, not a credential: the socket it names carries only Noise
   * messages of that session, which a relay cannot forge, so a wrong socket can only drop them (as a relay
   * can anyway).
   */
  #rejoin(connId: number, timer: NodeJS.Timeout, id: Uint8Array) {
    clearTimeout(timer);
    const wanted = encodeBase64url(id);
    for (const [key, c] of this.#conns) {
      if (c.state !== 'live' || c.rejoinId !== wanted || c.route.connId !== null) continue;
      this.#conns.delete(connId);
      this.#conns.delete(key);
      this.#conns.set(connId, c);
      c.route.connId = connId;
      c.carrier.relayAttached();
      this.#o.sendFrame(encodeDataFrame(connId, RELAY_REJOINED));
      this.#o.log(`remote: connection ${connId} rejoined a session carried on the direct path`);
      return;
    }
    this.#closeClient(connId, CloseCode.UNKNOWN_REJOIN);
  }

  #confirmPair(connId: number, c: Extract<Conn, { state: 'confirming-pair' }>, payload: Uint8Array) {
    const frame = c.channel.open(payload);
    if (!frame) return; // a fragmented pair-request: wait for the rest (still inside the budget)
    clearTimeout(c.timer);
    const request = decodePairClientMessage(frame);
    // Key confirmation passed: this phone holds the secret. Burn it now, whatever the owner decides.
    if (!this.#o.offers.burn(c.offer)) return this.#closeClient(connId, CloseCode.PAIRING_UNAVAILABLE);
    const approver = this.#o.approver();
    if (!approver) return this.#closeClient(connId, CloseCode.PAIRING_UNAVAILABLE);
    const send = (m: PairBurrowMessage) => this.#sendSealed(connId, c.channel, encodePairBurrowMessage(m));
    this.#conns.set(connId, { state: 'pairing', channel: c.channel });
    send({ type: 'pair-pending' });
    const code = confirmationCode(c.channel.transport.handshakeHash);
    const timeout = new Promise<'timeout'>((r) =>
      setTimeout(() => r('timeout'), PAIR_CONFIRM_BUDGET_MS).unref(),
    );
    Promise.race([
      approver({ code, label: c.offer.label ?? request.label, platform: request.platform }),
      timeout,
    ])
      .then(async (answer) => {
        if (this.#conns.get(connId)?.state !== 'pairing') return; // the phone left
        if (answer !== true) {
          send({ type: 'pair-rejected', reason: answer === 'timeout' ? 'timeout' : 'declined' });
          this.#o.pairingDone?.(
            answer === 'timeout'
              ? { outcome: 'timeout', message: 'nobody answered in time' }
              : { outcome: 'declined', message: 'declined' },
          );
          this.#closeClient(connId, CloseCode.PAIRING_REJECTED);
          return;
        }
        const psk = randomBytes(32);
        const deliveryId = encodeBase64url(randomBytes(16));
        const deliveryToken = randomBytes(32);
        await this.#o.deliveries.register(deliveryId, deliveryToken);
        const device = this.#o.devices.add({
          label: c.offer.label ?? request.label,
          clientPublicKey: c.clientPublicKey,
          psk,
          deliveryId,
          pairedAt: this.#o.now(),
        });
        send({
          type: 'pair-accepted',
          deviceId: device.deviceId,
          psk: encodeBase64url(psk),
          deliveryId,
          deliveryToken: encodeBase64url(deliveryToken),
          burrowId: this.#o.burrowId,
          burrowName: this.#o.burrowName,
          relayUrl: this.#o.relayUrl,
        });
        this.#o.log(`remote: paired device ${device.deviceId}`);
        this.#o.pairingDone?.({ outcome: 'paired', deviceId: device.deviceId, label: device.label });
      })
      .catch((error: Error) => {
        this.#o.log(`remote: pairing failed: ${error.message}`);
        this.#o.pairingDone?.({ outcome: 'failed', message: error.message });
        if (this.#conns.has(connId)) this.#closeClient(connId, CloseCode.HANDSHAKE_FAILED);
      });
  }
}
