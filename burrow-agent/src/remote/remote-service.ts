/**
 * The daemon's remote side in one object (DESIGN §6: "the daemon owns sessions, the relay link and the
 * attention engine"): relay link + remote endpoint + pairing offers + device registry, built from the state
 * directory. The daemon constructs one, calls `start()`, and routes the control-socket verbs for `burrow pair`,
 * `burrow devices` and `burrow status` to its methods. Sessions never wait on it: with no enrollment or with
 * the relay down, it only reports why.
 */
import { type KeyPair, keyPairFromPrivate } from '@burrow/crypto';
import { nodeAead } from '@burrow/crypto/node-aead';
import { CloseCode, decodeBase64url } from '@burrow/protocol';
import { openDeviceActivityStore } from '../devices/device-activity.js';
import { DeviceRegistry, type DeviceView } from '../devices/device-registry.js';
import { PushSeqStore } from '../devices/push-seq-store.js';
import { DirectPeerBudget } from '../direct/direct-answerer.js';
import { type DirectPeerFactory, loadNodeDatachannel, ndcPeerFactory } from '../direct/ndc-peer.js';
import { NetworkPolicyStore } from '../direct/network-policy-store.js';
import { pairingLink, pairingQr } from '../pairing/pairing-link.js';
import { PairingOffers } from '../pairing/pairing-offer.js';
import { PushDispatch } from '../push/push-dispatch.js';
import type { PushRequest, PushSendReport } from '../push/push-sender.js';
import { PushSender } from '../push/push-sender.js';
import { describeLinkStatus, type LinkStatus } from '../relay-link/link-status.js';
import { RelayLink, systemTimers } from '../relay-link/relay-link.js';
import { RelayTicketPublisher } from '../relay-link/relay-tickets.js';
import { type EnrollArgs, enrollCommand } from '../remote-cli/enroll-command.js';
import { HttpDeliveryRegistrar, putRelayTickets } from '../remote-cli/relay-http.js';
import { newSessionId } from '../session/session-id.js';
import type { SessionRegistry } from '../session/session-registry.js';
import { openStateStore } from '../state/burrow-state.js';
import type { ResumePort } from './api-connection.js';
import type { AttentionPort } from './attention-port.js';
import {
  type ConnectionPath,
  type PairApprover,
  type PairingResult,
  type PairRequest,
  RemoteEndpoint,
} from './remote-endpoint.js';
import type { RemoteSettingsPort } from './remote-settings-port.js';
import { describeVouchedBuild, loadVouchedBuild, type VouchedBuild } from './vouched-build.js';

/** Longest `burrow pair` waits for the relay to hold the link's pairing ticket before showing the link (ms). */
export const PAIRING_TICKET_PUBLISH_WAIT_MS = 5_000;

/** `promise`, or undefined after `ms`, whichever comes first (the timer does not keep the process alive). */
function waitAtMost<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    timer.unref?.();
    void promise.then((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });
}
export interface RemoteServiceOptions {
  readonly stateDir: string;
  readonly burrowName: string;
  readonly registry: SessionRegistry;
  readonly attention: AttentionPort;
  readonly log: (line: string) => void;
  readonly now?: () => number;
  /** Alarm settings and WATCHING rules (the attention host); absent: the phone's settings screen is refused. */
  readonly alarms?: Pick<RemoteSettingsPort, 'settings' | 'updateSettings' | 'watchRules' | 'setWatchRules'>;
  /** R-B-BUILD-1: the Pocket build to vouch for; default: the manifest of the Pocket package installed with it. */
  readonly vouchedBuild?: VouchedBuild;
  /** Agent recovery's `resume` (src/recovery/); absent: the phone's Resume is refused. */
  readonly resume?: ResumePort;
  /** The direct path's WebRTC (default: node-datachannel, loaded at start; null when it cannot load). */
  readonly directPeers?: DirectPeerFactory | null;
}

export interface PairingStarted {
  readonly link: string;
  readonly qr: string;
  readonly expiresAt: number;
}

/** One row of `burrow devices`: the ACL joined with the relay's delivery list. */
export interface DeviceRow extends DeviceView {
  readonly connected: boolean;
  /** Whether the relay holds a Web Push subscription for it; null when the relay could not be asked. */
  readonly subscribed: boolean | null;
  /** When the phone last sent its subscription to the relay (ms), null if never or unknown. */
  readonly subscriptionUpdatedAt: number | null;
}

export class RemoteService {
  readonly #o: RemoteServiceOptions;
  readonly #now: () => number;
  #store: ReturnType<typeof openStateStore>;
  #devices: DeviceRegistry;
  readonly #offers: PairingOffers;
  #link: RelayLink | null = null;
  #endpoint: RemoteEndpoint | null = null;
  #deliveries: HttpDeliveryRegistrar | null = null;
  /** Publishes the paired phones' relay ticket hashes (issue 16.5, RL-TICKET-2). */
  #tickets: RelayTicketPublisher | null = null;
  #approver: PairApprover | null = null;
  #pairingDone: ((r: PairingResult) => void) | null = null;
  #sender: PushSender | null = null;
  #offListChange: (() => void) | null = null;
  readonly #pushSeq: PushSeqStore;
  /** Pushes go through here (the attention host's push-due hook, `burrow push test`, the remote API). */
  readonly push: PushDispatch;
  /** R-B-BUILD-1: the Pocket build phones are told to trust, read once at start. */
  readonly vouchedBuild: VouchedBuild;
  /** R-NET-1: whether phones may use the direct path, and with which ICE servers (`burrow settings`). */
  readonly network: NetworkPolicyStore;
  /** WebRTC for the direct path, once loaded; null while loading or where it cannot load. */
  #directPeers: DirectPeerFactory | null = null;
  readonly #directBudget = new DirectPeerBudget();

  constructor(options: RemoteServiceOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.vouchedBuild = options.vouchedBuild ?? loadVouchedBuild();
    options.log(describeVouchedBuild(this.vouchedBuild));
    this.#store = openStateStore(options.stateDir);
    this.#devices = new DeviceRegistry(this.#store, openDeviceActivityStore(options.stateDir));
    this.#offers = new PairingOffers(this.#now);
    this.#pushSeq = new PushSeqStore(options.stateDir);
    this.push = new PushDispatch({ sender: () => this.#sender, log: options.log, now: this.#now });
    this.network = new NetworkPolicyStore(options.stateDir, options.log);
    this.network.onChange((policy) => this.#endpoint?.policyChanged(policy));
    if (options.directPeers !== undefined) this.#directPeers = options.directPeers;
    else {
      loadNodeDatachannel().then(
        () => {
          this.#directPeers = ndcPeerFactory;
        },
        (error: Error) =>
          options.log(`direct path unavailable: node-datachannel did not load (${error.message})`),
      );
    }
  }

  /** The live connections' paths (`burrow status`). */
  paths(): ConnectionPath[] {
    return this.#endpoint?.paths() ?? [];
  }

  /** Connects to the relay if enrolled (call again after `burrow enroll` to switch to the new enrollment). */
  start(): void {
    this.stop();
    // Fresh stores: JsonFileStore caches what it read, and `burrow enroll` may have rewritten the file from
    // another process. (Everything else that changes the ACL goes through this object.)
    this.#store = openStateStore(this.#o.stateDir);
    this.#devices = new DeviceRegistry(this.#store, openDeviceActivityStore(this.#o.stateDir));
    const state = this.#store.load();
    const e = state.enrollment;
    if (!e || !state.staticKey) return;
    this.#deliveries = new HttpDeliveryRegistrar(e.relayUrl, e.burrowId, e.burrowToken);
    const staticKeyPair: KeyPair = keyPairFromPrivate(decodeBase64url(state.staticKey.privateKey));
    const devices = this.#devices;
    this.#sender = new PushSender({
      relayUrl: e.relayUrl,
      burrowId: e.burrowId,
      burrowToken: e.burrowToken,
      staticKeyPair,
      // Read at send time (a revocation during a delay takes effect); seq persisted before it is used.
      devices: {
        activeDevices: () => devices.records(),
        reservePushSeq: (id) =>
          this.#pushSeq.reserve(id, new Set(devices.records().map((d) => d.deliveryId))),
      },
      fetch: (url, init) => fetch(url, init),
      clock: this.#now,
    });
    const endpoint = new RemoteEndpoint({
      burrowId: e.burrowId,
      burrowName: this.#o.burrowName,
      relayUrl: e.relayUrl,
      staticKeyPair,
      devices: this.#devices,
      offers: this.#offers,
      registry: this.#o.registry,
      attention: this.#o.attention,
      deliveries: this.#deliveries,
      revokeDevice: (id) => this.revokeDevice(id),
      approver: () => this.#approver,
      pairingDone: (r) => {
        const done = this.#pairingDone;
        this.#approver = null;
        this.#pairingDone = null;
        // The new phone's tickets, so it too gets past the relay's shared connect bucket; the used link's
        // pairing ticket goes (the offer is burnt or gone either way).
        this.#tickets?.devicesChanged();
        done?.(r);
      },
      sendFrame: (f) => this.#link?.send(f) ?? false,
      linkBacklog: () => this.#link?.bufferedAmount ?? 0,
      now: this.#now,
      log: this.#o.log,
      aead: nodeAead,
      ...(this.#o.alarms !== undefined ? { settings: this.#settingsPort(this.#o.alarms) } : {}),
      ...(this.#o.resume !== undefined ? { resume: this.#o.resume } : {}),
      pocketBuild: this.vouchedBuild.kind === 'build' ? this.vouchedBuild.files : null,
      direct: { policy: this.network, factory: () => this.#directPeers, budget: this.#directBudget },
    });
    this.#endpoint = endpoint;
    // One registry listener for every phone (the registry bounds its list listeners, MAX_LIST_LISTENERS).
    this.#offListChange = this.#o.registry.onListChange(() => endpoint.listChanged());
    this.#link = new RelayLink({
      relayUrl: e.relayUrl,
      burrowId: e.burrowId,
      burrowToken: e.burrowToken,
      onFrame: (f) => endpoint.onFrame(f),
      onDown: () => endpoint.onLinkDown(),
      onStatus: (s) => {
        if (s.kind === 'reconnecting') this.#o.log(`relay link: ${describeLinkStatus(s, this.#now())}`);
      },
    });
    this.#link.start();
    this.#tickets = new RelayTicketPublisher({
      burrowId: e.burrowId,
      psks: () => devices.records().map((d) => d.psk),
      pairingSecrets: () => {
        const offer = this.#offers.current();
        return offer === null ? [] : [offer.secret];
      },
      publish: (hashes, pairing) =>
        putRelayTickets(e.relayUrl, e.burrowId, e.burrowToken, hashes, fetch, pairing),
      timers: { ...systemTimers, now: this.#now },
      log: this.#o.log,
    });
    this.#tickets.start();
  }

  stop(): void {
    this.#offListChange?.();
    this.#offListChange = null;
    this.#endpoint?.closeAll(CloseCode.SHUTTING_DOWN);
    this.#tickets?.stop();
    this.#tickets = null;
    this.#link?.stop();
    this.#link = null;
    this.#endpoint = null;
    this.#sender = null;
  }

  /** `burrow enroll` through the daemon: enroll at the relay, store it, and connect with the new identity. */
  async enroll(
    args: EnrollArgs,
    fetchFn: typeof fetch = fetch,
  ): Promise<{ burrowId: string; relayUrl: string }> {
    const result = await enrollCommand(args, this.#store, this.#now, fetchFn);
    this.start();
    return result;
  }

  /** What `burrow status` says about enrollment; read through this object's store, so never stale. */
  enrollment(): { readonly relayUrl: string; readonly burrowId: string } | null {
    const e = this.#store.load().enrollment;
    return e ? { relayUrl: e.relayUrl, burrowId: e.burrowId } : null;
  }

  /**
   * `burrow push test` and the phone's "send a test": one push to every active device, naming a session the
   * phone can open (the first running one, else a fresh id it will not find). null when not enrolled.
   */
  pushTest(): Promise<PushSendReport | null> {
    const s = this.#o.registry.list().find((x) => x.status === 'running');
    const target = s ? { sessionId: s.id, label: s.name } : { sessionId: newSessionId(), label: 'Burrow' };
    return this.sendPush({ ...target, reason: 'test' });
  }

  #settingsPort(alarms: NonNullable<RemoteServiceOptions['alarms']>): RemoteSettingsPort {
    return {
      ...alarms,
      pushStatus: async (deliveryId) => {
        let subscribed: boolean | null = null;
        try {
          const list = await this.#deliveries?.list();
          const d = list?.deliveries.find((x) => x.deliveryId === deliveryId);
          subscribed = list === undefined ? null : d !== undefined && d.subscriptionUpdatedAt !== null;
        } catch (error) {
          this.#o.log(`push-status: could not ask the relay: ${(error as Error).message}`);
        }
        return { pushEnabled: alarms.settings().pushEnabled, subscribed };
      },
      pushTest: async () => {
        const r = await this.pushTest();
        if (r === null) return { outcome: 'no_devices', targets: 0, delivered: 0 };
        return { outcome: r.outcome, targets: r.targets, delivered: r.delivered };
      },
    };
  }

  /** Sends one push to every active device (null when not enrolled). */
  sendPush(request: PushRequest): Promise<PushSendReport | null> {
    return this.push.send(request);
  }

  /**
   * `burrow devices`: the ACL, live connections, and the relay's subscription list (one GET; when the relay
   * cannot be reached the push columns are null and `relayError` says why).
   */
  async deviceRows(): Promise<{ devices: DeviceRow[]; relayError: string | null }> {
    const local = this.listDevices();
    let byDelivery: Map<string, number | null> | null = null;
    let relayError: string | null = null;
    if (this.#deliveries !== null) {
      try {
        const list = await this.#deliveries.list();
        byDelivery = new Map(list.deliveries.map((d) => [d.deliveryId, d.subscriptionUpdatedAt]));
      } catch (error) {
        relayError = (error as Error).message;
      }
    } else relayError = 'not enrolled';
    const devices = local.map((d) => {
      const updated = byDelivery?.get(d.deliveryId);
      return {
        ...d,
        subscribed: byDelivery === null ? null : updated !== undefined && updated !== null,
        subscriptionUpdatedAt: updated ?? null,
      };
    });
    return { devices, relayError };
  }

  get linkStatus(): LinkStatus {
    return this.#link?.status ?? { kind: 'not-enrolled' };
  }

  /** For `burrow status`. */
  statusText(): string {
    return describeLinkStatus(this.linkStatus, this.#now());
  }

  /**
   * For `burrow pair`: opens a new offer (replacing any open one) and says who answers the phone's request.
   * `approve` is called with the code once a phone proved it holds the link's secret.
   */
  async startPairing(options: {
    label: string | null;
    ttlMs?: number;
    approve: (r: PairRequest) => Promise<boolean>;
    done: (r: PairingResult) => void;
  }): Promise<PairingStarted> {
    const state = this.#store.load();
    const e = state.enrollment;
    if (!e || !state.staticKey) throw new RangeError('not enrolled: run `burrow enroll --relay <url>` first');
    const offer = this.#offers.create({
      label: options.label,
      ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}),
    });
    this.#approver = options.approve;
    this.#pairingDone = options.done;
    // The link's pairing ticket at the relay before the link is shown, so the phone that opens it has its own
    // budget there (issue 24.5). Bounded: a relay that does not answer delays the link, never blocks it.
    await waitAtMost(this.#tickets?.changed() ?? Promise.resolve(false), PAIRING_TICKET_PUBLISH_WAIT_MS);
    const link = pairingLink({
      relayUrl: e.relayUrl,
      burrowId: e.burrowId,
      burrowPublicKey: decodeBase64url(state.staticKey.publicKey),
      secret: offer.secret,
      expiresAt: offer.expiresAt,
    });
    return { link, qr: await pairingQr(link), expiresAt: offer.expiresAt };
  }

  /** `burrow pair` was interrupted: the link stops working at once. */
  cancelPairing(): void {
    this.#offers.cancel();
    this.#approver = null;
    this.#pairingDone = null;
    this.#tickets?.devicesChanged();
  }

  listDevices(): (DeviceView & { readonly connected: boolean })[] {
    const live = new Set(this.#endpoint?.liveDevices() ?? []);
    return this.#devices.list().map((d) => ({ ...d, connected: live.has(d.deviceId) }));
  }

  /**
   * Revocation (DESIGN §2): out of the ACL first (no new connect can succeed), then its live connections are
   * closed, then its delivery is revoked at the relay (no later push reaches it). Returns false for an
   * unknown id. A relay that cannot be reached leaves the delivery registered; that is reported, not hidden.
   */
  async revokeDevice(
    deviceId: string,
  ): Promise<{ revoked: boolean; closed: number; deliveryRevoked: boolean }> {
    const removed = this.#devices.revoke(deviceId);
    if (!removed) return { revoked: false, closed: 0, deliveryRevoked: false };
    const closed = this.#endpoint?.closeDevice(deviceId) ?? 0;
    // Its tickets leave the relay's set (it still cannot connect: its key is out of the ACL).
    this.#tickets?.devicesChanged();
    let deliveryRevoked = false;
    try {
      await this.#deliveries?.revoke(removed.deliveryId);
      deliveryRevoked = this.#deliveries !== null;
    } catch (error) {
      this.#o.log(`revoke: could not revoke the delivery at the relay: ${(error as Error).message}`);
    }
    return { revoked: true, closed, deliveryRevoked };
  }
}
