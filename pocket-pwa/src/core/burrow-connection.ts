/**
 * One paired Burrow, kept connected (DESIGN §4.3, §7): connect-mode handshake with a fresh timestamp, the
 * directory (snapshot + deltas), attached terminals with byte offsets that resume after a reconnect without
 * loss or duplication, reconnection with POCKET_BACKOFF, and end-to-end liveness (POCKET_KEEPALIVE) so a
 * silently dead path is noticed. Runtime-neutral: socket, storage, clock injected.
 */
import {
  ikpsk2ResponderEphemeral,
  NoiseError,
  nextHandshakeTimestamp,
  relayTicket,
  relayTicketEpoch,
} from '@burrow/crypto';
import {
  type BuildFile,
  type BurrowMessage,
  CLOSE_MESSAGES,
  type ClientControlMessage,
  type ClientMessage,
  CloseCode,
  clientSubprotocols,
  decodeBase64url,
  decodeBurrowMessage,
  ErrorCode,
  encodeBase64url,
  encodeClientMessage,
  encodeRejoin,
  FLOW_ACK_EVERY_BYTES,
  KEEPALIVE_INTERVAL_MS,
  KEEPALIVE_PING,
  MAX_RID,
  MIN_NOISE_MESSAGE_BYTES,
  type NetworkPolicy,
  PathCarrier,
  type PathName,
  type PresenceState,
  ProtocolError,
  type PushTestOutcome,
  type SizeChangeCause,
  type SizeHolder,
  type TodoAction,
  type ViewerKind,
} from '@burrow/protocol';
import { type BackoffPolicy, backoffDelayMs, POCKET_BACKOFF } from './backoff.js';
import { clientStaticKey, WebCryptoStaticKey } from './client-static.js';
import { type Clock, systemClock } from './clock.js';
import { DirectLink, type DirectState } from './direct/direct-link.js';
import type { RtcFactory } from './direct/rtc.js';
import { applyDirectoryMessage, type Directory, EMPTY_DIRECTORY } from './directory-state.js';
import { InputPacer } from './input-pacer.js';
import { OutputCursor } from './output-cursor.js';
import type { PairingRecord, PairingStorage } from './pairing-storage.js';
import { clientSocketUrl, type SecureChannel, startHandshake } from './secure-channel.js';
import { frameBytes, SOCKET_OPEN, type SocketFactory, type SocketLike } from './socket.js';

/** Budget from socket open to the Burrow's hello (ms). */
export const CONNECT_TIMEOUT_MS = 15_000;

export interface KeepalivePolicy {
  /** While connected, an end-to-end `ping` this often (ms), whatever else is going on. */
  readonly pingIntervalMs: number;
  /** Nothing at all from the Burrow for this long (a `pong` counts): the connection is dead (ms). */
  readonly deadAfterMs: number;
  /**
   * When the deadline fires a ping interval late or more, this page was frozen (phone locked, tab in the
   * background) and messages that arrived meanwhile may not have been delivered yet: one ping, and this long
   * to hear anything, before calling the connection dead (ms).
   */
  readonly wakeProbeMs: number;
}

/**
 * Liveness of the whole path phone → relay → Burrow (issue 8 "network cut without a close"; protocol/SPEC.md
 * `ping`: the relay's keep-alive only covers one hop). A cut without a FIN, a dead relay link or a suspended
 * computer shows as "reconnecting" at most `deadAfterMs` after the last message: two unanswered pings plus
 * 5 s of slack. The ping is sent even while output streams, because the Burrow closes a phone that sent
 * nothing for PHONE_SILENCE_CLOSE_MS (burrow-agent api-connection.ts, 20 s: four of these intervals).
 */
export const POCKET_KEEPALIVE: KeepalivePolicy = Object.freeze({
  pingIntervalMs: 5_000,
  deadAfterMs: 15_000,
  wakeProbeMs: 5_000,
});
/** Requests awaiting an answer at once. */
export const MAX_PENDING_REQUESTS = 256;
/** Codes after which retrying cannot help: stop and tell the user. */
const TERMINAL_CODES: ReadonlySet<number> = new Set([CloseCode.DEVICE_REVOKED, CloseCode.UNKNOWN_DEVICE]);

export type ConnectionStatus =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'connected' }
  | { readonly kind: 'reconnecting'; readonly atMs: number; readonly reason: string }
  | { readonly kind: 'closed'; readonly reason: string };

export type ConnectionEvent =
  | { readonly type: 'status'; readonly status: ConnectionStatus }
  | { readonly type: 'directory'; readonly directory: Directory }
  | { readonly type: 'error'; readonly code: string; readonly message: string }
  | { readonly type: 'revoked' }
  /** R-B-BUILD-1: the Pocket build this Burrow vouches for (null: it has none), once per connection. */
  | { readonly type: 'pocket-build'; readonly files: readonly BuildFile[] | null }
  /** The path in use, the direct path's state or the Burrow's network policy changed (`conn.path` …). */
  | { readonly type: 'path' };

export interface Snapshot {
  readonly kind: 'attached' | 'resync';
  readonly data: string;
  readonly cols: number;
  readonly rows: number;
  readonly offset: number;
  readonly firstLine: number;
  readonly hasOlder: boolean;
}

/** Who holds a session's size, as this phone is told (protocol R-SIZE-8). */
export interface SizeAuthorityInfo {
  readonly cause: SizeChangeCause;
  /** `you`: this phone; `local`: a `burrow attach` on the computer; `remote`: another phone; null: nobody. */
  readonly holder: SizeHolder | null;
  /** The holder is a phone whose connection dropped (R-SIZE-5). */
  readonly holderAway: boolean;
}

export interface TerminalCallbacks {
  onSnapshot(snapshot: Snapshot): void;
  onOutput(data: Uint8Array, offset: number): void;
  /** The PTY's size or its holder changed, in stream order with the output (R-SIZE-8). */
  onSizeChanged?(cols: number, rows: number, info: SizeAuthorityInfo): void;
}

export interface TerminalHandle {
  readonly session: string;
  readonly offset: number;
  input(data: string | Uint8Array): void;
  reply(data: Uint8Array): void;
  resize(cols: number, rows: number): void;
  fit(cols: number, rows: number): void;
  detach(): void;
  /** Older lines of this session before absolute line `beforeLine` (see `BurrowConnection.history`). */
  history(
    beforeLine: number,
    maxLines: number,
  ): Promise<{ firstLine: number; endLine: number; hasOlder: boolean; data: string }>;
}

export interface BurrowConnectionOptions {
  readonly pairing: PairingRecord;
  readonly socketFactory: SocketFactory;
  readonly storage: PairingStorage;
  readonly viewer: ViewerKind;
  readonly appVersion: string;
  readonly cols: number;
  readonly rows: number;
  readonly clock?: Clock;
  readonly backoff?: BackoffPolicy;
  readonly keepalive?: KeepalivePolicy;
  readonly random?: () => number;
  /**
   * WebRTC for the direct path (protocol/SPEC.md "The direct path"): in Pocket the engine's
   * (`engineRtc()`), in Node node-datachannel's polyfill; absent or null: the relay carries everything.
   */
  readonly rtc?: RtcFactory | null;
}

interface Terminal {
  cols: number;
  rows: number;
  cursor: OutputCursor | null;
  /**
   * First absolute line of the last snapshot: the oldest line this phone's scrollback holds (xterm keeps
   * MAX_HISTORY_LINES, the most a refill brings), sent as `scrollbackFrom` so a resync keeps them (R-ATTACH-8).
   */
  firstLine: number | null;
  readonly callbacks: TerminalCallbacks;
}

type Pending = { resolve(m: BurrowMessage): void; reject(e: Error): void };

export function statusText(status: ConnectionStatus, nowMs: number): string {
  switch (status.kind) {
    case 'connecting':
      return 'connecting';
    case 'connected':
      return 'connected';
    case 'reconnecting':
      return `reconnecting in ${Math.max(0, Math.ceil((status.atMs - nowMs) / 1000))} s: ${status.reason}`;
    case 'closed':
      return status.reason;
  }
}

export class BurrowConnection {
  readonly #o: BurrowConnectionOptions;
  readonly #clock: Clock;
  #pairing: PairingRecord;
  #socket: SocketLike | null = null;
  /** One connection attempt, from its socket to its teardown; timers of an older one do nothing. */
  #token: object | null = null;
  /** The session over the relay and, when it forms, the direct path (protocol PathCarrier). */
  #carrier: PathCarrier | null = null;
  #direct: DirectLink | null = null;
  #policy: NetworkPolicy | null = null;
  #rejoinTimer: unknown = null;
  #rejoinFailures = 0;
  /** When the relay socket last carried a keep-alive while the direct path carried the session. */
  #relayPingAt = 0;
  /** R-FLOW-1: whole-frame bytes received on this connection, and the total last acknowledged. */
  #receivedBytes = 0;
  #ackedBytes = 0;
  /** Clock reading of the last authentic message from the Burrow (liveness, POCKET_KEEPALIVE). */
  #lastHeardAt = 0;
  #channel: SecureChannel | null = null;
  #live = false;
  #running = false;
  #failures = 0;
  #timer: unknown = null;
  #pingTimer: unknown = null;
  #deadTimer: unknown = null;
  #status: ConnectionStatus = { kind: 'closed', reason: 'not started' };
  #directory: Directory = EMPTY_DIRECTORY;
  #nextRid = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #terminals = new Map<string, Terminal>();
  readonly #listeners = new Set<(e: ConnectionEvent) => void>();
  /** Input in order, paced by the Burrow's `input-ack` and the relay's byte budget (R-FLOW-2). */
  readonly #pacer: InputPacer;

  constructor(options: BurrowConnectionOptions) {
    this.#o = options;
    this.#pairing = options.pairing;
    this.#clock = options.clock ?? systemClock;
    this.#pacer = new InputPacer({
      clock: this.#clock,
      send: (session, kind, data) => this.#send({ type: 'input', session, kind, data }),
    });
  }

  get status(): ConnectionStatus {
    return this.#status;
  }
  get statusText(): string {
    return statusText(this.#status, this.#clock.now());
  }
  /** The path this phone's messages take now (null when not connected). */
  get path(): PathName | null {
    return this.#live ? (this.#carrier?.sendingOn ?? null) : null;
  }
  /** The direct path's state ('unsupported' in an engine without WebRTC). */
  get directState(): DirectState {
    return this.#direct?.state ?? (this.#o.rtc ? { kind: 'unknown' } : { kind: 'unsupported' });
  }
  /** The Burrow's network policy, once it said (R-NET-3). */
  get networkPolicy(): NetworkPolicy | null {
    return this.#policy;
  }
  /** Whether the relay socket is there (it may be gone while the direct path carries the session). */
  get relayConnected(): boolean {
    return this.#carrier?.relayUp ?? false;
  }
  /** Bytes and messages this phone sent on each path (the bench, tests). */
  get pathCounters() {
    return this.#carrier?.counters ?? null;
  }
  get sessions(): Directory {
    return this.#directory;
  }

  subscribe(listener: (e: ConnectionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  start() {
    if (this.#running) return;
    this.#running = true;
    void this.#connect();
  }

  stop() {
    this.#running = false;
    this.#clock.clearTimeout(this.#timer);
    this.#teardown('stopped');
    this.#setStatus({ kind: 'closed', reason: 'disconnected' });
  }

  attach(
    session: string,
    size: { cols: number; rows: number },
    callbacks: TerminalCallbacks,
  ): TerminalHandle {
    const term: Terminal = { cols: size.cols, rows: size.rows, cursor: null, firstLine: null, callbacks };
    this.#terminals.set(session, term);
    if (this.#live) this.#sendAttach(session, term);
    return {
      session,
      get offset() {
        return term.cursor?.offset ?? 0;
      },
      input: (data) =>
        this.#input(session, 'user', typeof data === 'string' ? new TextEncoder().encode(data) : data),
      reply: (data) => this.#input(session, 'reply', data),
      resize: (cols, rows) => {
        term.cols = cols;
        term.rows = rows;
        this.#send({ type: 'resize', session, cols, rows });
      },
      fit: (cols, rows) => {
        term.cols = cols;
        term.rows = rows;
        this.#send({ type: 'fit', session, cols, rows });
      },
      history: (beforeLine, maxLines) => this.history(session, beforeLine, maxLines),
      detach: () => {
        if (this.#terminals.get(session) !== term) return;
        this.#terminals.delete(session);
        this.#send({ type: 'detach', session });
      },
    };
  }

  presence(state: PresenceState, flags: { focused: boolean; visible: boolean }) {
    this.#send({ type: 'presence', state, ...flags });
  }
  focus(session: string | null) {
    this.#send({ type: 'focus', session });
  }
  acknowledge(session: string, withInput: boolean) {
    this.#send({ type: 'acknowledge', session, withInput });
  }
  todo(session: string, action: TodoAction) {
    this.#send({ type: 'todo', session, action });
  }
  dismiss(session: string) {
    this.#send({ type: 'dismiss', session });
  }

  async create(req: {
    argv: string[] | null;
    cwd: string | null;
    name: string | null;
    cols: number;
    rows: number;
  }): Promise<string> {
    const m = await this.#request((rid) => ({ type: 'create', rid, ...req }));
    if (m.type !== 'created') throw new Error('unexpected answer');
    return m.session;
  }
  async rename(session: string, name: string): Promise<void> {
    await this.#request((rid) => ({ type: 'rename', rid, session, name }));
  }
  async kill(session: string): Promise<void> {
    await this.#request((rid) => ({ type: 'kill', rid, session }));
  }

  /** Unpair from this Burrow: it revokes this phone (closing the connection); then the pairing is deleted here. */
  async forgetMe(): Promise<void> {
    await this.#request((rid) => ({ type: 'forget-me', rid }));
    this.stop();
    await this.#o.storage.delete(this.#pairing.burrowId);
  }

  /** This phone's push registration as the Burrow sees it (DESIGN §4.3 "Devices and push"). */
  async pushStatus(): Promise<{ pushEnabled: boolean; subscribed: boolean | null }> {
    const m = await this.#request((rid) => ({ type: 'push-status', rid }));
    if (m.type !== 'push-status') throw new Error('unexpected answer');
    return { pushEnabled: m.pushEnabled, subscribed: m.subscribed };
  }

  /** Asks the Burrow to push a test notification to its devices; resolves with what the relay reported. */
  async pushTest(): Promise<{ outcome: PushTestOutcome; targets: number; delivered: number }> {
    const m = await this.#request((rid) => ({ type: 'push-test', rid }));
    if (m.type !== 'push-test-result') throw new Error('unexpected answer');
    return { outcome: m.outcome, targets: m.targets, delivered: m.delivered };
  }

  /** Changes the Burrow's network policy (R-NET-1); resolves with the policy in force. */
  async setNetworkPolicy(policy: NetworkPolicy): Promise<NetworkPolicy> {
    const m = await this.#request((rid) => ({ type: 'network-policy-set', rid, policy }));
    if (m.type !== 'network-policy') throw new Error('unexpected answer');
    return m.policy;
  }

  /** The network changed (online again, another Wi-Fi): a direct path that failed is offered again now. */
  retryDirect(): void {
    this.#direct?.retryNow();
  }

  async clear(session: string): Promise<void> {
    await this.#request((rid) => ({ type: 'clear', rid, session }));
  }

  /**
   * R-C-RESUME-1: starts a resumable session's coding agent on its conversation again (same id). When it
   * cannot, rejects with the Burrow's reason (what is gone, what to do) and the session stays as it was.
   */
  async resume(session: string): Promise<string> {
    const m = await this.#request((rid) => ({ type: 'resume', rid, session }));
    if (m.type !== 'created') throw new Error('unexpected answer');
    return m.session;
  }

  /** Older scrollback: the lines just before absolute line `beforeLine` (a snapshot's `firstLine`). */
  async history(
    session: string,
    beforeLine: number,
    maxLines: number,
  ): Promise<{ firstLine: number; endLine: number; hasOlder: boolean; data: string }> {
    const m = await this.#request((rid) => ({ type: 'history', rid, session, beforeLine, maxLines }));
    if (m.type !== 'history-page') throw new Error('unexpected answer');
    return { firstLine: m.firstLine, endLine: m.endLine, hasOlder: m.hasOlder, data: m.data };
  }

  #emit(e: ConnectionEvent) {
    for (const l of this.#listeners) l(e);
  }

  #setStatus(status: ConnectionStatus) {
    this.#status = status;
    this.#emit({ type: 'status', status });
  }

  #rid(): number {
    const rid = this.#nextRid;
    this.#nextRid = rid >= MAX_RID ? 1 : rid + 1;
    return rid;
  }

  #request(build: (rid: number) => ClientControlMessage): Promise<BurrowMessage> {
    if (!this.#live) return Promise.reject(new Error('not connected'));
    if (this.#pending.size >= MAX_PENDING_REQUESTS)
      return Promise.reject(new RangeError('too many requests in flight'));
    const rid = this.#rid();
    return new Promise((resolve, reject) => {
      this.#pending.set(rid, { resolve, reject });
      this.#send(build(rid));
    });
  }

  #send(m: ClientMessage): boolean {
    const carrier = this.#carrier;
    if (carrier === null) return false;
    return carrier.send(encodeClientMessage(m));
  }

  /** One relay frame on the current socket; false when there is none to take it. */
  #relaySend(bytes: Uint8Array): boolean {
    const socket = this.#socket;
    if (socket === null || socket.readyState !== SOCKET_OPEN) return false;
    socket.send(bytes);
    return true;
  }

  #input(session: string, kind: 'user' | 'reply', data: Uint8Array) {
    const refused = this.#pacer.push(session, kind, data);
    if (refused === null) return;
    // Refused whole, before any of it was sent: say so, with the limit (issue 24.8).
    const bytes = (n: number) => `${n.toLocaleString('en-US')} bytes`;
    const waiting =
      refused.queuedBytes > 0 ? ` (with ${bytes(refused.queuedBytes)} of a paste still going)` : '';
    this.#emit({
      type: 'error',
      code: ErrorCode.PAYLOAD_TOO_LARGE,
      message: `Paste not sent: ${bytes(refused.bytes)}${waiting} is more than the ${refused.limit / (1024 * 1024)} MiB a paste may be.`,
    });
  }

  /**
   * (Re-)attaches a terminal. A re-attach after a reconnect resumes from the offset its screen reflects (and,
   * being a resume, takes the size from nobody: R-SIZE-6); any attach names the oldest line this terminal
   * keeps, so a snapshot in answer refills the scrollback instead of dropping it (R-ATTACH-8).
   */
  #sendAttach(session: string, term: Terminal) {
    const rid = this.#rid();
    const resumeFrom = term.cursor?.offset;
    this.#send({
      type: 'attach',
      rid,
      session,
      cols: term.cols,
      rows: term.rows,
      ...(resumeFrom !== undefined ? { resumeFrom } : {}),
      ...(term.firstLine !== null ? { scrollbackFrom: term.firstLine } : {}),
    });
  }

  async #connect(): Promise<void> {
    this.#setStatus({ kind: 'connecting' });
    const p = this.#pairing;
    const timestamp = nextHandshakeTimestamp(this.#clock.now(), p.lastHandshakeAt);
    // Persist first: a timestamp must never be reused, even if we crash right after sending it.
    this.#pairing = { ...p, lastHandshakeAt: timestamp };
    try {
      await this.#o.storage.put(this.#pairing);
    } catch {
      this.#retry('could not save the pairing');
      return;
    }
    if (!this.#running) return;
    const burrowPublicKey = decodeBase64url(p.burrowPublicKey);
    const key = clientStaticKey(p.clientPrivateKey, p.clientPublicKey);
    if (key instanceof WebCryptoStaticKey) {
      // Message 1's ss: DH with the Burrow's pinned static, in WebCrypto (client-static.ts).
      await key.prepare(burrowPublicKey);
      if (!this.#running) return;
    }
    const hs = startHandshake({
      mode: 'connect',
      burrowId: p.burrowId,
      burrowPublicKey,
      clientPrivateKey: key,
      psk: decodeBase64url(p.psk),
      timestamp,
    });
    // This hour's relay ticket, derived from the device psk: it lets this phone past the relay's shared connect
    // bucket, which attackers from other addresses can keep empty (issue 16.5, RL-TICKET-1). Never in the URL.
    const ticket = relayTicket(
      decodeBase64url(p.psk),
      decodeBase64url(p.burrowId),
      relayTicketEpoch(Math.max(0, this.#clock.now())),
    );
    const socket = this.#o.socketFactory(
      clientSocketUrl(p.relayUrl, p.burrowId),
      clientSubprotocols(encodeBase64url(ticket)),
    );
    const token = {};
    this.#token = token;
    this.#socket = socket;
    socket.binaryType = 'arraybuffer';
    this.#timer = this.#clock.setTimeout(
      () => this.#fail(token, 'your computer did not answer'),
      CONNECT_TIMEOUT_MS,
    );
    socket.onopen = () => socket.send(hs.message1);
    socket.onerror = () => {};
    socket.onclose = (ev) => this.#closed(token, socket, ev.code);
    /** While a WebCrypto key computes message 2's se (client-static.ts). */
    let finishing = false;
    socket.onmessage = (ev) => {
      if (this.#socket !== socket) return;
      const bytes = frameBytes(ev.data);
      if (!bytes) return;
      if (finishing) {
        // The Burrow says nothing between message 2 and our hello (R-C-HELLO-1): this is not from it.
        this.#fail(token, 'a message failed to decrypt or parse', CloseCode.PROTOCOL_VIOLATION);
        return;
      }
      if (!this.#channel && key instanceof WebCryptoStaticKey) {
        finishing = true;
        void Promise.resolve()
          .then(() => key.prepare(ikpsk2ResponderEphemeral(bytes)))
          .then(
            () => {
              finishing = false;
              if (this.#socket === socket) this.#frame(token, hs, bytes);
            },
            () => this.#fail(token, 'a message failed to decrypt or parse', CloseCode.DECRYPT_FAILED),
          );
        return;
      }
      this.#frame(token, hs, bytes);
    };
  }

  /** One binary frame from the relay: message 2 of the handshake, then Noise transport messages. */
  #frame(token: object, hs: ReturnType<typeof startHandshake>, bytes: Uint8Array) {
    try {
      if (!this.#channel) {
        this.#channel = hs.finish(bytes);
        this.#pacer.reset();
        this.#startCarrier(token, this.#channel);
        this.#send({
          type: 'hello',
          appVersion: this.#o.appVersion,
          viewer: this.#o.viewer,
          cols: this.#o.cols,
          rows: this.#o.rows,
        });
        return;
      }
    } catch (e) {
      this.#refused(token, e);
      return;
    }
    this.#relayIn(token, bytes);
  }

  /** One frame from the relay socket after the handshake. */
  #relayIn(token: object, bytes: Uint8Array) {
    try {
      const frames = this.#carrier!.relayFrame(bytes);
      // Any authentic message proves the whole path alive, a fragment included. Only noted here (this runs
      // for every frame of output); the deadline timer reads it when it fires.
      if (bytes.length >= MIN_NOISE_MESSAGE_BYTES) this.#lastHeardAt = this.#clock.now();
      for (const frame of frames) this.#take(frame);
    } catch (e) {
      this.#refused(token, e);
    }
  }

  /** One whole frame from the Burrow, over either path. */
  #take(frame: Uint8Array) {
    this.#countReceived(frame.length);
    this.#message(decodeBurrowMessage(frame));
  }

  /** A message that broke the stream, from either path. */
  #refused(token: object, e: unknown) {
    if (e instanceof NoiseError || e instanceof ProtocolError) {
      // The close code tells the Burrow why (RL-ROUTE-5): its log then shows a tampering relay.
      const code = e instanceof NoiseError ? CloseCode.DECRYPT_FAILED : CloseCode.PROTOCOL_VIOLATION;
      this.#fail(token, 'a message failed to decrypt or parse', code);
      return;
    }
    throw e;
  }

  /**
   * The session's carrier and its direct path (protocol/SPEC.md "The direct path"): the relay socket carries
   * it until a direct channel opens; the carrier moves it there and back without losing a byte.
   */
  #startCarrier(token: object, channel: SecureChannel) {
    const carrier = new PathCarrier(
      channel,
      {
        sendRelay: (bytes) => this.#relaySend(bytes),
        sendDirect: (bytes) => this.#direct?.send(bytes) ?? false,
      },
      {
        directLeft: (reason) => {
          this.#direct?.left(reason);
          this.#emit({ type: 'path' });
        },
        noPath: (reason) => {
          // Called from inside the carrier: tear down once it has returned.
          void Promise.resolve().then(() => this.#fail(token, reason));
        },
        rejoined: () => {
          this.#rejoinFailures = 0;
          this.#emit({ type: 'path' });
        },
      },
      this.#clock,
    );
    this.#carrier = carrier;
    this.#direct = new DirectLink({
      rtc: this.#o.rtc ?? null,
      carrier,
      offer: async (sdp) => {
        const m = await this.#request((rid) => ({ type: 'direct-offer', rid, sdp }));
        if (m.type !== 'direct-answer') throw new Error('unexpected answer');
        return { sdp: m.sdp, rejoin: m.rejoin };
      },
      candidate: (candidate, mid) => this.#send({ type: 'direct-candidate', candidate, mid }),
      deliver: (frame) => {
        if (this.#token !== token) return;
        this.#lastHeardAt = this.#clock.now();
        this.#take(frame);
      },
      fail: (error) => {
        if (this.#token === token) this.#refused(token, error);
      },
      changed: () => this.#emit({ type: 'path' }),
      clock: this.#clock,
    });
  }

  /**
   * R-PATH-8: the relay socket went while the direct path carries the session: a new socket rejoins it, so the
   * relay is there again to fall back to. Until then only the direct path carries it.
   */
  #scheduleRejoin(token: object) {
    const rejoinId = this.#direct?.rejoinId;
    if (rejoinId === null || rejoinId === undefined) return;
    const delay = backoffDelayMs(
      this.#o.backoff ?? POCKET_BACKOFF,
      this.#rejoinFailures++,
      (this.#o.random ?? Math.random)(),
    );
    this.#clock.clearTimeout(this.#rejoinTimer);
    this.#rejoinTimer = this.#clock.setTimeout(() => {
      if (this.#token !== token || this.#socket !== null || !this.#carrier) return;
      const p = this.#pairing;
      const ticket = relayTicket(
        decodeBase64url(p.psk),
        decodeBase64url(p.burrowId),
        relayTicketEpoch(Math.max(0, this.#clock.now())),
      );
      const socket = this.#o.socketFactory(
        clientSocketUrl(p.relayUrl, p.burrowId),
        clientSubprotocols(encodeBase64url(ticket)),
      );
      socket.binaryType = 'arraybuffer';
      socket.onerror = () => {};
      socket.onopen = () => {
        if (this.#token !== token || !this.#carrier) return socket.close(1000);
        socket.send(encodeRejoin(decodeBase64url(rejoinId)));
        this.#socket = socket;
        this.#carrier.relayAttached();
      };
      socket.onmessage = (ev) => {
        const bytes = frameBytes(ev.data);
        if (bytes && this.#socket === socket && this.#token === token) this.#relayIn(token, bytes);
      };
      socket.onclose = () => {
        if (this.#token !== token) return;
        if (this.#socket === socket) {
          this.#socket = null;
          this.#carrier?.relayLost();
        }
        if (this.#token === token) this.#scheduleRejoin(token);
      };
    }, delay);
  }

  #message(m: BurrowMessage) {
    switch (m.type) {
      case 'hello':
        this.#clock.clearTimeout(this.#timer);
        this.#live = true;
        this.#failures = 0;
        if (this.#token) {
          this.#armDeadline(this.#token);
          this.#schedulePing(this.#token);
        }
        this.#setStatus({ kind: 'connected' });
        for (const [session, term] of this.#terminals) this.#sendAttach(session, term);
        return;
      case 'network-policy':
        this.#policy = m.policy;
        this.#direct?.policy(m.policy);
        return this.#emit({ type: 'path' });
      case 'direct-candidate':
        return this.#direct?.remoteCandidate(m.candidate, m.mid);
      case 'directory':
      case 'directory-upsert':
      case 'directory-remove':
        this.#directory = applyDirectoryMessage(this.#directory, m);
        return this.#emit({ type: 'directory', directory: this.#directory });
      case 'attached':
      case 'resync': {
        const term = this.#terminals.get(m.session);
        if (!term) return;
        if (term.cursor) term.cursor.reset(m.offset);
        else term.cursor = new OutputCursor(m.offset);
        term.firstLine = m.firstLine;
        term.callbacks.onSnapshot({
          kind: m.type,
          data: m.data,
          cols: m.cols,
          rows: m.rows,
          offset: m.offset,
          firstLine: m.firstLine,
          hasOlder: m.hasOlder,
        });
        return;
      }
      case 'resumed':
        return;
      case 'output': {
        const term = this.#terminals.get(m.session);
        if (!term?.cursor) return;
        const r = term.cursor.accept(m.offset, m.data);
        if (r.kind === 'deliver') term.callbacks.onOutput(r.data, term.cursor.offset - r.data.length);
        else if (r.kind === 'gap') {
          term.cursor = null; // ask for a fresh snapshot
          this.#sendAttach(m.session, term);
        }
        return;
      }
      case 'size-changed':
        return this.#terminals.get(m.session)?.callbacks.onSizeChanged?.(m.cols, m.rows, {
          cause: m.cause,
          holder: m.holder,
          holderAway: m.holderAway,
        });
      case 'pocket-build':
        return this.#emit({ type: 'pocket-build', files: m.files });
      case 'input-ack':
        try {
          this.#pacer.acked(m.received);
        } catch {
          if (this.#socket)
            this.#fail(
              this.#socket,
              'the Burrow acknowledged input it was never sent',
              CloseCode.PROTOCOL_VIOLATION,
            );
        }
        return;
      case 'error': {
        const pending = m.rid !== null ? this.#pending.get(m.rid) : undefined;
        if (pending && m.rid !== null) {
          this.#pending.delete(m.rid);
          return pending.reject(new Error(m.message));
        }
        this.#emit({ type: 'error', code: m.code, message: m.message });
        return;
      }
      default: {
        if ('rid' in m && typeof m.rid === 'number') {
          const pending = this.#pending.get(m.rid);
          if (pending) {
            this.#pending.delete(m.rid);
            pending.resolve(m);
          }
        }
      }
    }
  }

  #keepalive(): KeepalivePolicy {
    return this.#o.keepalive ?? POCKET_KEEPALIVE;
  }

  #armDeadline(token: object, ms = this.#keepalive().deadAfterMs, mayProbe = true) {
    this.#clock.clearTimeout(this.#deadTimer);
    const armedAt = this.#clock.now();
    const dueAt = armedAt + ms;
    this.#deadTimer = this.#clock.setTimeout(() => {
      if (this.#token !== token) return;
      const policy = this.#keepalive();
      if (this.#lastHeardAt > armedAt) {
        // Heard from since: the deadline is that message plus deadAfterMs.
        const left = this.#lastHeardAt + policy.deadAfterMs - this.#clock.now();
        if (left > 0) {
          this.#armDeadline(token, left);
          return;
        }
      }
      if (mayProbe && this.#clock.now() - dueAt >= policy.pingIntervalMs && this.#live) {
        this.#send({ type: 'ping', rid: this.#rid() });
        this.#armDeadline(token, policy.wakeProbeMs, false);
        return;
      }
      this.#fail(token, 'your computer stopped answering');
    }, ms);
  }

  #schedulePing(token: object) {
    this.#clock.clearTimeout(this.#pingTimer);
    this.#pingTimer = this.#clock.setTimeout(() => {
      if (this.#token !== token || !this.#live) return;
      this.#send({ type: 'ping', rid: this.#rid() });
      this.#relayKeepalive();
      this.#schedulePing(token);
    }, this.#keepalive().pingIntervalMs);
  }

  /**
   * While the direct path carries the session the relay socket is idle, and idle sockets get closed by
   * proxies and NATs: RL-KEEP-1's text ping every KEEPALIVE_INTERVAL_MS keeps it there as the fallback (two
   * small frames a minute; the relay answers without waking its object).
   */
  #relayKeepalive() {
    const socket = this.#socket;
    if (this.#carrier?.sendingOn !== 'direct' || socket === null || socket.readyState !== SOCKET_OPEN) return;
    const now = this.#clock.now();
    if (now - this.#relayPingAt < KEEPALIVE_INTERVAL_MS) return;
    this.#relayPingAt = now;
    socket.send(KEEPALIVE_PING);
  }

  #fail(token: object, reason: string, code: CloseCode = CloseCode.NORMAL) {
    if (this.#token !== token) return;
    const socket = this.#socket;
    if (socket) {
      socket.onclose = null;
      socket.close(code);
    }
    this.#teardown(reason);
    this.#retry(reason);
  }

  #closed(token: object, socket: SocketLike, code: number) {
    if (this.#token !== token || this.#socket !== socket) return;
    const reason =
      code === 1006 ? 'the connection dropped' : (CLOSE_MESSAGES[code as CloseCode] ?? `closed (${code})`);
    // R-PATH-8: while the direct path carries the session, losing the relay socket ends nothing.
    if (!TERMINAL_CODES.has(code) && this.#carrier?.sendingOn === 'direct' && this.#live) {
      this.#socket = null;
      this.#carrier.relayLost();
      if (this.#token === token) {
        this.#emit({ type: 'path' });
        this.#scheduleRejoin(token);
      }
      return;
    }
    this.#teardown(reason);
    if (TERMINAL_CODES.has(code)) {
      this.#running = false;
      this.#setStatus({ kind: 'closed', reason });
      this.#emit({ type: 'revoked' });
      return;
    }
    this.#retry(reason);
  }

  /**
   * R-FLOW-1: tell the Burrow how much this connection has taken in, every FLOW_ACK_EVERY_BYTES, so a phone
   * that stops reading (a suspended tab, a stalled radio) stops being fed instead of piling up in the relay.
   */
  #countReceived(bytes: number) {
    this.#receivedBytes += bytes;
    if (this.#receivedBytes - this.#ackedBytes < FLOW_ACK_EVERY_BYTES || !this.#live) return;
    this.#ackedBytes = this.#receivedBytes;
    this.#send({ type: 'ack', received: this.#receivedBytes });
  }

  #teardown(reason: string) {
    this.#receivedBytes = this.#ackedBytes = 0;
    this.#pacer.reset();
    this.#token = null;
    this.#carrier?.dispose();
    this.#carrier = null;
    this.#direct?.dispose();
    this.#direct = null;
    this.#policy = null;
    this.#clock.clearTimeout(this.#rejoinTimer);
    this.#rejoinTimer = null;
    this.#rejoinFailures = 0;
    this.#clock.clearTimeout(this.#timer);
    this.#clock.clearTimeout(this.#pingTimer);
    this.#clock.clearTimeout(this.#deadTimer);
    this.#pingTimer = this.#deadTimer = null;
    const socket = this.#socket;
    this.#socket = null;
    this.#channel = null;
    this.#live = false;
    if (socket) {
      socket.onmessage = null;
      socket.onclose = null;
      if (socket.readyState === SOCKET_OPEN) socket.close(1000);
    }
    for (const p of this.#pending.values()) p.reject(new Error(reason));
    this.#pending.clear();
  }

  #retry(reason: string) {
    if (!this.#running) return;
    const delay = backoffDelayMs(
      this.#o.backoff ?? POCKET_BACKOFF,
      this.#failures++,
      (this.#o.random ?? Math.random)(),
    );
    this.#setStatus({ kind: 'reconnecting', atMs: this.#clock.now() + delay, reason });
    this.#timer = this.#clock.setTimeout(() => {
      if (this.#running) void this.#connect();
    }, delay);
  }
}
