/**
 * The relay's socket routing, pure: no Workers API, an injected clock and id source, and a two-method socket.
 * The Durable Object is a thin shell that feeds it hibernation events. [SPEC: RL-ROUTE-1..9]
 *
 * - One agent socket per Burrow; a newer one replaces the older (closed AGENT_REPLACED).
 * - Each phone socket gets a connId that is never reused within a Burrow, and the agent hears CLIENT_OPEN.
 * - Phone frames go to the agent as DATA with that connId; agent DATA goes only to that connId's socket.
 * - When a phone socket ends, the agent hears CLIENT_CLOSED; when the agent asks, the relay closes that phone.
 * - When the agent goes away, every phone socket is closed AGENT_DISCONNECTED: their Noise sessions lived in
 *   the agent and cannot continue on another agent socket.
 * - Payloads are never parsed: the relay reads only the 5-byte agent header and the frame length.
 * - Phone sockets that have not finished a handshake cost a slot until the Burrow's budget closes them, so one
 *   source holds at most MAX_CLIENTS_PER_SOURCE slots (never all), and when every slot is taken a newcomer
 *   displaces the oldest socket that has never sent a frame (a phone sends message 1 at once; a silent one is
 *   no phone in the middle of a handshake). The owner's phone is never locked out by sockets that say nothing.
 * - A phone that presents a relay ticket its Burrow published (RL-TICKET-3; the Durable Object checks it) uses
 *   its own connect bucket and no per-source cap, and when every slot is taken it displaces the oldest socket
 *   without a ticket that the agent never answered. So no number of attacking addresses, which have no
 *   ticket, can keep a paired phone out (issue 16.5).
 * - A phone pairing through the open `burrow pair` link presents that link's ticket (RL-TICKET-5): it counts as
 *   ticketed for slots and the per-source cap, and takes from a small bucket of its own (issue 24.5).
 * - Until the agent sends a phone socket its first frame, that socket may send only a few small frames
 *   (RL-LIM-6). All phone sockets of a Burrow together draw on one inbound byte budget (RL-LIM-7). Over either
 *   limit the socket is closed TOO_MUCH_DATA and the frame is dropped (issue 16.4).
 */
import {
  AGENT_FRAME_HEADER_BYTES,
  AgentFrameType,
  CLOSE_MESSAGES,
  CloseCode,
  decodeAgentToRelayFrame,
  encodeClientClosedFrame,
  encodeClientOpenFrame,
  RelayCodecError,
} from '@burrow/protocol';
import {
  AGENT_FRAME_MAX_BYTES,
  CLIENT_CONNECT_RATE_PER_BURROW,
  CLIENT_FRAME_MAX_BYTES,
  INBOUND_BYTES_PER_BURROW,
  MAX_CLIENTS_PER_BURROW,
  MAX_CLIENTS_PER_SOURCE,
  PAIRING_CONNECT_RATE_PER_BURROW,
  SILENT_CLIENT_DISPLACEABLE_AFTER_MS,
  TICKETED_CONNECT_RATE_PER_BURROW,
  UNANSWERED_CLIENT_MAX_BYTES,
  UNANSWERED_CLIENT_MAX_FRAMES,
} from './limits.js';
import { type TokenBucketState, take } from './token-bucket.js';

/** What the router needs of a socket. `send` takes bytes only: both relay sockets are binary. */
export interface RelaySocket {
  send(data: Uint8Array): void;
  close(code: number, reason: string): void;
}

/** The only thing stored with a socket (its hibernation attachment): routing metadata, never content. */
export interface SocketMeta {
  readonly role: 'agent' | 'client';
  /** Phone: its connId (≥ 1). Agent: its generation number (≥ 1), so a replaced agent's late close is ignored. */
  readonly connId: number;
  /** Clock reading (ms) when the socket was accepted. */
  readonly openedAt: number;
  /** Phone: its per-source limiter key (`source-key.ts`, RL-LIM-4), for MAX_CLIENTS_PER_SOURCE. */
  readonly source?: string;
  /** Phone: it has sent at least one frame (then it is never displaced by a newcomer without a ticket). */
  readonly spoke?: boolean;
  /** Phone: it presented a relay ticket its Burrow published (RL-TICKET-3). */
  readonly ticketed?: boolean;
  /** Phone: the agent has sent it a frame; the budget before that (RL-LIM-6) no longer applies. */
  readonly answered?: boolean;
  /** Phone, until answered: frames and bytes it sent (RL-LIM-6), kept across a wake. */
  readonly unansweredFrames?: number;
  readonly unansweredBytes?: number;
}

/** What the router keeps per phone socket. */
interface ClientEntry<S> {
  readonly socket: S;
  readonly connId: number;
  readonly source: string;
  readonly openedAt: number;
  readonly ticketed: boolean;
  spoke: boolean;
  answered: boolean;
  unansweredFrames: number;
  unansweredBytes: number;
}

/** Limiter key of sockets whose attachment predates `SocketMeta.source` (counted together). */
const UNKNOWN_SOURCE = 'src:unknown';

export interface RouterDeps<S> {
  readonly now: () => number;
  /** Next connId / agent generation for this Burrow; strictly increasing, survives eviction. */
  readonly nextId: (kind: 'client' | 'agent') => number;
  /** Stores a phone socket's changed metadata with it (its hibernation attachment), so it survives a wake. */
  readonly saveMeta: (socket: S, meta: SocketMeta) => void;
}

export interface AdmitOptions {
  /** The phone presented a relay ticket its Burrow published (checked by the caller, RL-TICKET-3). */
  readonly ticketed?: boolean;
  /**
   * That ticket is the open pairing link's (RL-TICKET-5): ticketed for slots, but its own connect bucket, so
   * a pairing phone neither spends nor waits for what paired phones need.
   */
  readonly pairing?: boolean;
}

export type Admission =
  | { readonly ok: true; readonly meta: SocketMeta }
  | { readonly ok: false; readonly code: CloseCode };

function closeWith<S extends RelaySocket>(socket: S, code: CloseCode): void {
  try {
    socket.close(code, CLOSE_MESSAGES[code]);
  } catch {
    // Already closed or closing: nothing more to tell it.
  }
}

export class RelayRouter<S extends RelaySocket> {
  private agent: { socket: S; meta: SocketMeta } | null = null;
  private readonly clients = new Map<number, ClientEntry<S>>();
  private connectBucket: TokenBucketState | undefined;
  private ticketedConnectBucket: TokenBucketState | undefined;
  private pairingConnectBucket: TokenBucketState | undefined;
  private inboundBucket: TokenBucketState | undefined;

  constructor(private readonly deps: RouterDeps<S>) {}

  /** Rebuilds routing after the object wakes, from the sockets the runtime kept and their attachments. */
  restore(sockets: Iterable<{ socket: S; meta: SocketMeta | null }>): void {
    for (const { socket, meta } of sockets) {
      if (meta === null) continue;
      if (meta.role === 'client') this.clients.set(meta.connId, clientEntry(socket, meta));
      else if (this.agent === null || meta.connId > this.agent.meta.connId) this.agent = { socket, meta };
    }
  }

  get agentConnected(): boolean {
    return this.agent !== null;
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /**
   * Decides whether a new phone socket from `source` may open; on success reserves its connId, displacing a
   * socket when every slot is taken (a silent one; for a ticketed phone, any the agent never answered that has
   * no ticket). Refusals for slots come before the connect bucket, so a refused flood does not spend tokens.
   * A ticketed phone takes from its own bucket. [SPEC: RL-ROUTE-2, RL-LIM-3, RL-TICKET-3]
   */
  admitClient(source: string, options: AdmitOptions = {}): Admission {
    if (this.agent === null) return { ok: false, code: CloseCode.AGENT_OFFLINE };
    const pairing = options.pairing === true;
    const ticketed = options.ticketed === true || pairing;
    const now = this.deps.now();
    // One address may hold no more than its share, except a paired phone: it may share an address (a NAT)
    // with whoever is flooding.
    if (!ticketed && this.countFrom(source) >= MAX_CLIENTS_PER_SOURCE)
      return { ok: false, code: CloseCode.TOO_MANY_CLIENTS };
    const full = this.clients.size >= MAX_CLIENTS_PER_BURROW;
    const displaced = full
      ? ticketed
        ? this.oldestUnansweredWithoutTicket()
        : this.oldestSilent(now)
      : null;
    if (full && displaced === null) return { ok: false, code: CloseCode.TOO_MANY_CLIENTS };
    if (!this.takeConnect(pairing ? 'pairing' : ticketed ? 'ticketed' : 'shared', now))
      return { ok: false, code: CloseCode.RATE_LIMITED };
    if (displaced !== null) this.dropClient(displaced, CloseCode.TOO_MANY_CLIENTS);
    const meta: SocketMeta = { role: 'client', connId: this.deps.nextId('client'), openedAt: now, source };
    return { ok: true, meta: ticketed ? { ...meta, ticketed: true } : meta };
  }

  /** One token from the connect bucket of this kind of socket (RL-LIM-3, RL-TICKET-3, RL-TICKET-5). */
  private takeConnect(kind: 'shared' | 'ticketed' | 'pairing', now: number): boolean {
    switch (kind) {
      case 'shared': {
        const r = take(CLIENT_CONNECT_RATE_PER_BURROW, this.connectBucket, now);
        this.connectBucket = r.state;
        return r.allowed;
      }
      case 'ticketed': {
        const r = take(TICKETED_CONNECT_RATE_PER_BURROW, this.ticketedConnectBucket, now);
        this.ticketedConnectBucket = r.state;
        return r.allowed;
      }
      case 'pairing': {
        const r = take(PAIRING_CONNECT_RATE_PER_BURROW, this.pairingConnectBucket, now);
        this.pairingConnectBucket = r.state;
        return r.allowed;
      }
    }
  }

  /** Call once the admitted phone socket is accepted. */
  clientOpened(socket: S, meta: SocketMeta): void {
    this.clients.set(meta.connId, clientEntry(socket, meta));
    this.sendToAgent(encodeClientOpenFrame(meta.connId));
  }

  private countFrom(source: string): number {
    let n = 0;
    for (const entry of this.clients.values()) if (entry.source === source) n++;
    return n;
  }

  /** The connId of the oldest phone socket that never sent a frame and is old enough to displace, or null. */
  private oldestSilent(now: number): number | null {
    let oldest: number | null = null;
    let oldestAt = Number.POSITIVE_INFINITY;
    for (const [connId, entry] of this.clients) {
      if (entry.spoke || now - entry.openedAt < SILENT_CLIENT_DISPLACEABLE_AFTER_MS) continue;
      if (entry.openedAt < oldestAt) [oldest, oldestAt] = [connId, entry.openedAt];
    }
    return oldest;
  }

  /** The connId of the oldest phone socket without a ticket that the agent never answered, or null. */
  private oldestUnansweredWithoutTicket(): number | null {
    let oldest: number | null = null;
    let oldestAt = Number.POSITIVE_INFINITY;
    for (const [connId, entry] of this.clients) {
      if (entry.ticketed || entry.answered) continue;
      if (entry.openedAt < oldestAt) [oldest, oldestAt] = [connId, entry.openedAt];
    }
    return oldest;
  }

  /** A new authenticated agent socket: it replaces any older one. [SPEC: RL-ROUTE-1] */
  agentMeta(): SocketMeta {
    return { role: 'agent', connId: this.deps.nextId('agent'), openedAt: this.deps.now() };
  }

  agentOpened(socket: S, meta: SocketMeta): void {
    const previous = this.agent;
    this.agent = { socket, meta };
    if (previous !== null) {
      closeWith(previous.socket, CloseCode.AGENT_REPLACED);
      this.closeAllClients();
    }
  }

  /**
   * A frame from a phone. Text frames other than the keep-alive (answered by the runtime) are malformed.
   * [SPEC: RL-ROUTE-3, RL-ROUTE-7, RL-LIM-6, RL-LIM-7]
   */
  clientMessage(meta: SocketMeta, data: Uint8Array | string): void {
    // By connId, not object identity: connIds are never reused, and identity need not survive a wake.
    const entry = this.clients.get(meta.connId);
    if (entry === undefined) return;
    const firstWord = !entry.spoke;
    entry.spoke = true;
    if (typeof data === 'string' || data.length === 0) {
      this.dropClient(meta.connId, CloseCode.MALFORMED_FRAME);
      return;
    }
    if (data.length > CLIENT_FRAME_MAX_BYTES) {
      this.dropClient(meta.connId, CloseCode.FRAME_TOO_LARGE);
      return;
    }
    if (this.agent === null) {
      this.dropClient(meta.connId, CloseCode.AGENT_OFFLINE);
      return;
    }
    if (!entry.answered) {
      // Nobody has authenticated this socket yet: a message 1 and nothing much more (RL-LIM-6).
      entry.unansweredFrames += 1;
      entry.unansweredBytes += data.length;
      if (
        entry.unansweredFrames > UNANSWERED_CLIENT_MAX_FRAMES ||
        entry.unansweredBytes > UNANSWERED_CLIENT_MAX_BYTES
      ) {
        this.dropClient(meta.connId, CloseCode.TOO_MUCH_DATA);
        return;
      }
      this.save(entry);
    } else if (firstWord) this.save(entry);
    const inbound = take(INBOUND_BYTES_PER_BURROW, this.inboundBucket, this.deps.now(), data.length);
    this.inboundBucket = inbound.state;
    if (!inbound.allowed) {
      this.dropClient(meta.connId, CloseCode.TOO_MUCH_DATA);
      return;
    }
    // One allocation and one copy: header, then the phone's bytes as received.
    const frame = new Uint8Array(AGENT_FRAME_HEADER_BYTES + data.length);
    frame[0] = AgentFrameType.DATA;
    new DataView(frame.buffer).setUint32(1, meta.connId, false);
    frame.set(data, AGENT_FRAME_HEADER_BYTES);
    this.sendToAgent(frame);
  }

  /** A frame from the agent: DATA for one phone, or a request to close one. [SPEC: RL-ROUTE-4, RL-ROUTE-5] */
  agentMessage(socket: S, meta: SocketMeta, data: Uint8Array | string): void {
    if (this.agent?.meta.connId !== meta.connId) return;
    if (typeof data === 'string') {
      this.dropAgent(socket, CloseCode.MALFORMED_FRAME);
      return;
    }
    if (data.length > AGENT_FRAME_MAX_BYTES) {
      this.dropAgent(socket, CloseCode.FRAME_TOO_LARGE);
      return;
    }
    let frame: ReturnType<typeof decodeAgentToRelayFrame>;
    try {
      frame = decodeAgentToRelayFrame(data);
    } catch (error) {
      if (error instanceof RelayCodecError) {
        this.dropAgent(socket, CloseCode.MALFORMED_FRAME);
        return;
      }
      throw error;
    }
    const entry = this.clients.get(frame.connId);
    // A frame for a phone that already left is a normal race, not an error.
    if (entry === undefined) return;
    const client = entry.socket;
    if (frame.type === 'data') {
      if (!entry.answered) {
        entry.answered = true;
        this.save(entry);
      }
      try {
        client.send(frame.payload);
      } catch {
        this.dropClient(frame.connId, CloseCode.GOING_AWAY);
      }
      return;
    }
    this.clients.delete(frame.connId);
    try {
      client.close(frame.code, 'closed by your computer');
    } catch {
      // Already gone.
    }
  }

  /** The runtime reports a phone socket ended (its close code, or 1006 without a close frame). */
  clientClosed(meta: SocketMeta, code: number): void {
    if (!this.clients.delete(meta.connId)) return;
    this.sendToAgent(encodeClientClosedFrame(meta.connId, code >= 1000 && code <= 4999 ? code : 1006));
  }

  /** The runtime reports an agent socket ended. Only the current agent's end matters. */
  agentClosed(meta: SocketMeta): void {
    if (this.agent?.meta.connId !== meta.connId) return;
    this.agent = null;
    this.closeAllClients();
  }

  private dropClient(connId: number, code: CloseCode): void {
    const socket = this.clients.get(connId)?.socket;
    if (socket === undefined) return;
    this.clients.delete(connId);
    closeWith(socket, code);
    this.sendToAgent(encodeClientClosedFrame(connId, code));
  }

  private dropAgent(socket: S, code: CloseCode): void {
    this.agent = null;
    closeWith(socket, code);
    this.closeAllClients();
  }

  private closeAllClients(): void {
    for (const { socket } of this.clients.values()) closeWith(socket, CloseCode.AGENT_DISCONNECTED);
    this.clients.clear();
  }

  private save(entry: ClientEntry<S>): void {
    this.deps.saveMeta(entry.socket, metaOf(entry));
  }

  private sendToAgent(frame: Uint8Array): void {
    if (this.agent === null) return;
    try {
      this.agent.socket.send(frame);
    } catch {
      const { socket } = this.agent;
      this.dropAgent(socket, CloseCode.GOING_AWAY);
    }
  }
}

function clientEntry<S>(socket: S, meta: SocketMeta): ClientEntry<S> {
  return {
    socket,
    connId: meta.connId,
    source: meta.source ?? UNKNOWN_SOURCE,
    openedAt: meta.openedAt,
    ticketed: meta.ticketed === true,
    spoke: meta.spoke === true,
    answered: meta.answered === true,
    unansweredFrames: meta.unansweredFrames ?? 0,
    unansweredBytes: meta.unansweredBytes ?? 0,
  };
}

/** The attachment of a phone socket: its routing metadata and counters, never anything it sent. */
function metaOf<S>(entry: ClientEntry<S>): SocketMeta {
  return {
    role: 'client',
    connId: entry.connId,
    openedAt: entry.openedAt,
    source: entry.source,
    ...(entry.ticketed ? { ticketed: true } : {}),
    ...(entry.spoke ? { spoke: true } : {}),
    ...(entry.answered
      ? { answered: true }
      : { unansweredFrames: entry.unansweredFrames, unansweredBytes: entry.unansweredBytes }),
  };
}
