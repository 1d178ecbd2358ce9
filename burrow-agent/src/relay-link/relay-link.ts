/**
 * The Burrow's one WebSocket to the relay: `GET /v1/burrows/:id/agent` with `Authorization: Bearer <token>`
 * (DESIGN §4.1, protocol/SPEC-relay.md). It reconnects by itself (RELAY_LINK_BACKOFF), pings a silent socket
 * (the relay auto-responds with KEEPALIVE_PONG without waking its Durable Object, RL-KEEP-1) and treats a
 * socket that has been silent for RELAY_LINK_KEEPALIVE.deadAfterMs as dead, so a blackholed connection (no
 * FIN, no RST) is noticed and `burrow status` never stays on "connected" for a dead link. Sessions never
 * depend on it: everything here is best effort and reported through `status`.
 */
import {
  CloseCode,
  decodeRelayToAgentFrame,
  KEEPALIVE_PING,
  MAX_AGENT_FRAME_BYTES,
  RelayCodecError,
  type RelayToAgentFrame,
} from '@burrow/protocol';
import WebSocket from 'ws';
import { type BackoffPolicy, backoffDelayMs, RELAY_LINK_BACKOFF } from './backoff.js';
import { closeReasonInWords, type LinkStatus, upgradeRefusalInWords } from './link-status.js';

export interface LinkTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: LinkTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface KeepalivePolicy {
  /** Ping after this long without receiving anything, and again every this long while it stays silent (ms). */
  readonly pingIntervalMs: number;
  /** No frame at all (a pong counts) for this long: the link is dead (ms). */
  readonly deadAfterMs: number;
  /**
   * When the dead deadline fires a ping interval late or more, the process was frozen (suspend, SIGSTOP) and
   * frames that arrived meanwhile are still unread (Linux ends epoll_wait with EINTR on SIGCONT, so timers
   * run before I/O). Instead of dropping a link that may be fine: one ping, and this long to hear anything.
   */
  readonly wakeProbeMs: number;
  /** Budget for the TCP+TLS+upgrade (ms). */
  readonly connectTimeoutMs: number;
}

/**
 * The liveness policy (issue 8 "network cut without a close"): a dead link is noticed at most `deadAfterMs`
 * after the last frame received, i.e. after two unanswered pings and 5 s of slack for a slow pong. Pings go
 * more often than RL-KEEP-1's 30 s so a cut shows in `burrow status` within 15 s; they are answered by the
 * relay's auto-response and never wake its Durable Object. After a suspend (laptop lid, SIGSTOP) the overdue
 * deadline does not drop the link at once: one ping, and `wakeProbeMs` for anything to arrive (the frames
 * queued while frozen count), so a live link survives the wake and a dead one is noticed 5 s after it.
 */
export const RELAY_LINK_KEEPALIVE: KeepalivePolicy = Object.freeze({
  pingIntervalMs: 5_000,
  deadAfterMs: 15_000,
  wakeProbeMs: 5_000,
  connectTimeoutMs: 15_000,
});

/** A failure count at which any sane policy is at its cap. */
const MAX_BACKOFF_ATTEMPT = 64;

/** Frames queued while a send is in flight are bounded by ws's own buffer; beyond this we drop the socket. */
export const MAX_LINK_BUFFERED_BYTES = 16 * 1024 * 1024;

export interface RelayLinkOptions {
  readonly relayUrl: string;
  readonly burrowId: string;
  readonly burrowToken: string;
  readonly onFrame: (frame: RelayToAgentFrame) => void;
  /** The link went down (all phone connections through it are gone). */
  readonly onDown?: () => void;
  readonly onStatus?: (status: LinkStatus) => void;
  readonly timers?: LinkTimers;
  readonly random?: () => number;
  readonly backoff?: BackoffPolicy;
  readonly keepalive?: KeepalivePolicy;
}

/** `https://relay` → `wss://relay/v1/burrows/<id>/agent` (http → ws for loopback development). */
export function agentSocketUrl(relayUrl: string, burrowId: string): string {
  const base = relayUrl.replace(/\/+$/, '').replace(/^http/, 'ws');
  return `${base}/v1/burrows/${encodeURIComponent(burrowId)}/agent`;
}

export class RelayLink {
  readonly #o: RelayLinkOptions;
  readonly #timers: LinkTimers;
  readonly #backoff: BackoffPolicy;
  readonly #keepalive: KeepalivePolicy;
  #socket: WebSocket | null = null;
  #status: LinkStatus = { kind: 'stopped' };
  #failures = 0;
  #openedAt = 0;
  #retryTimer: unknown = null;
  #pingTimer: unknown = null;
  #deadTimer: unknown = null;
  /** Clock reading of the last frame received on the current socket (a pong counts). */
  #lastHeardAt = 0;
  #connectTimer: unknown = null;
  #running = false;

  constructor(options: RelayLinkOptions) {
    this.#o = options;
    this.#timers = options.timers ?? systemTimers;
    this.#backoff = options.backoff ?? RELAY_LINK_BACKOFF;
    this.#keepalive = options.keepalive ?? RELAY_LINK_KEEPALIVE;
  }

  get status(): LinkStatus {
    return this.#status;
  }

  /** Bytes accepted by `send` and not yet written to the network (every phone shares this one socket). */
  get bufferedAmount(): number {
    return this.#socket?.bufferedAmount ?? 0;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#connect();
  }

  stop(): void {
    this.#running = false;
    this.#clearTimers();
    const socket = this.#socket;
    this.#socket = null;
    if (socket) {
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.close(1001);
    }
    this.#setStatus({ kind: 'stopped' });
  }

  /** Sends one agent frame; false when the link is down (the caller treats the phone connection as gone). */
  send(frame: Uint8Array): boolean {
    const socket = this.#socket;
    if (!socket || socket.readyState !== WebSocket.OPEN || this.#status.kind !== 'connected') return false;
    if (socket.bufferedAmount > MAX_LINK_BUFFERED_BYTES) {
      this.#drop(socket, 'the relay is not reading fast enough');
      return false;
    }
    socket.send(frame, { binary: true });
    return true;
  }

  #setStatus(status: LinkStatus): void {
    this.#status = status;
    this.#o.onStatus?.(status);
  }

  #connect(): void {
    const previous = this.#status;
    this.#setStatus(
      previous.kind === 'reconnecting'
        ? { kind: 'connecting', after: previous.reason }
        : { kind: 'connecting' },
    );
    const socket = new WebSocket(agentSocketUrl(this.#o.relayUrl, this.#o.burrowId), {
      headers: { authorization: `Bearer ${this.#o.burrowToken}` },
      maxPayload: MAX_AGENT_FRAME_BYTES,
      perMessageDeflate: false,
    });
    this.#socket = socket;
    let refusal: string | null = null;
    this.#connectTimer = this.#timers.setTimeout(
      () => this.#drop(socket, 'the relay did not answer in time'),
      this.#keepalive.connectTimeoutMs,
    );
    socket.on('unexpected-response', (_req, res) => {
      refusal = upgradeRefusalInWords(res.statusCode ?? 0);
      res.resume();
      this.#drop(socket, refusal);
    });
    socket.on('open', () => {
      this.#timers.clearTimeout(this.#connectTimer);
      this.#openedAt = this.#timers.now();
      this.#setStatus({ kind: 'connected', sinceMs: this.#openedAt });
      this.#armKeepalive(socket);
    });
    socket.on('message', (data, isBinary) => {
      // Every frame from every phone passes here: only note the time; the keep-alive timers read it.
      this.#lastHeardAt = this.#timers.now();
      if (!isBinary) return; // KEEPALIVE_PONG is the only text frame (R-KEEP-1).
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      let frame: RelayToAgentFrame;
      try {
        frame = decodeRelayToAgentFrame(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      } catch (error) {
        if (error instanceof RelayCodecError) return this.#drop(socket, 'the relay sent a malformed frame');
        throw error;
      }
      this.#o.onFrame(frame);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.#down(
        socket,
        refusal ?? (error.code === 'ECONNREFUSED' ? 'the relay refused the connection' : 'network error'),
      );
    });
    socket.on('close', (code) => {
      // Another process with this Burrow's token took the socket over (a second daemon, or a copied state
      // directory): back off to the cap at once instead of fighting it every second.
      if (code === CloseCode.AGENT_REPLACED) this.#failures = Math.max(this.#failures, MAX_BACKOFF_ATTEMPT);
      this.#down(socket, refusal ?? closeReasonInWords(code));
    });
  }

  /** The link just opened: start the ping schedule and the dead deadline. */
  #armKeepalive(socket: WebSocket): void {
    this.#lastHeardAt = this.#timers.now();
    this.#schedulePing(socket);
    this.#armDeadline(socket, this.#keepalive.deadAfterMs, true);
  }

  #armDeadline(socket: WebSocket, ms: number, mayProbe: boolean): void {
    this.#timers.clearTimeout(this.#deadTimer);
    const armedAt = this.#timers.now();
    const dueAt = armedAt + ms;
    this.#deadTimer = this.#timers.setTimeout(() => {
      if (this.#socket !== socket) return;
      if (this.#lastHeardAt > armedAt) {
        // Heard from since: the deadline is that frame plus deadAfterMs.
        const left = this.#lastHeardAt + this.#keepalive.deadAfterMs - this.#timers.now();
        if (left > 0) return this.#armDeadline(socket, left, true);
      }
      const frozenFor = this.#timers.now() - dueAt;
      if (mayProbe && frozenFor >= this.#keepalive.pingIntervalMs && socket.readyState === WebSocket.OPEN) {
        socket.send(KEEPALIVE_PING);
        this.#armDeadline(socket, this.#keepalive.wakeProbeMs, false);
        return;
      }
      this.#drop(socket, 'the relay stopped answering');
    }, ms);
  }

  /** A ping every pingIntervalMs while nothing arrives (one lost ping must not make the link look dead). */
  #schedulePing(socket: WebSocket, ms = this.#keepalive.pingIntervalMs): void {
    this.#timers.clearTimeout(this.#pingTimer);
    this.#pingTimer = this.#timers.setTimeout(() => {
      if (this.#socket !== socket || socket.readyState !== WebSocket.OPEN) return;
      // Heard from within the interval: no ping needed yet; wait until the link has been silent that long.
      const silentFor = this.#timers.now() - this.#lastHeardAt;
      if (silentFor < this.#keepalive.pingIntervalMs) {
        return this.#schedulePing(socket, this.#keepalive.pingIntervalMs - silentFor);
      }
      socket.send(KEEPALIVE_PING);
      this.#schedulePing(socket);
    }, ms);
  }

  #drop(socket: WebSocket, reason: string): void {
    socket.terminate();
    this.#down(socket, reason);
  }

  /** Runs once per socket, whichever of error / close / drop comes first. */
  #down(socket: WebSocket, reason: string): void {
    if (this.#socket !== socket) return;
    this.#socket = null;
    socket.removeAllListeners();
    socket.on('error', () => {});
    this.#clearTimers();
    const wasUp = this.#status.kind === 'connected';
    if (wasUp && this.#timers.now() - this.#openedAt >= this.#backoff.stableAfterMs) this.#failures = 0;
    if (wasUp) this.#o.onDown?.();
    if (!this.#running) return;
    const delay = backoffDelayMs(this.#backoff, this.#failures, (this.#o.random ?? Math.random)());
    this.#failures++;
    this.#setStatus({ kind: 'reconnecting', atMs: this.#timers.now() + delay, reason });
    this.#retryTimer = this.#timers.setTimeout(() => {
      if (this.#running) this.#connect();
    }, delay);
  }

  #clearTimers(): void {
    for (const t of [this.#retryTimer, this.#pingTimer, this.#deadTimer, this.#connectTimer])
      this.#timers.clearTimeout(t);
    this.#retryTimer = this.#pingTimer = this.#deadTimer = this.#connectTimer = null;
  }
}
