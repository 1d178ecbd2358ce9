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
  MAX_CLIENTS_PER_BURROW,
  MAX_CLIENTS_PER_SOURCE,
  SILENT_CLIENT_DISPLACEABLE_AFTER_MS,
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
  /** Phone: it has sent at least one frame (then it is never displaced by a newcomer). */
  readonly spoke?: boolean;
}

/** What the router keeps per phone socket. */
interface ClientEntry<S> {
  readonly socket: S;
  readonly source: string;
  readonly openedAt: number;
  spoke: boolean;
}

/** Limiter key of sockets whose attachment predates `SocketMeta.source` (counted together). */
const UNKNOWN_SOURCE = 'src:unknown';

export interface RouterDeps {
  readonly now: () => number;
  /** Next connId / agent generation for this Burrow; strictly increasing, survives eviction. */
  readonly nextId: (kind: 'client' | 'agent') => number;
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

  constructor(private readonly deps: RouterDeps) {}

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
   * silent socket when every slot is taken. Refusals for slots come before the connect bucket, so a refused
   * flood does not spend the tokens the owner's phone needs. [SPEC: RL-ROUTE-2, RL-LIM-3]
   */
  admitClient(source: string): Admission {
    if (this.agent === null) return { ok: false, code: CloseCode.AGENT_OFFLINE };
    const now = this.deps.now();
    if (this.countFrom(source) >= MAX_CLIENTS_PER_SOURCE)
      return { ok: false, code: CloseCode.TOO_MANY_CLIENTS };
    const full = this.clients.size >= MAX_CLIENTS_PER_BURROW;
    const displaced = full ? this.oldestSilent(now) : null;
    if (full && displaced === null) return { ok: false, code: CloseCode.TOO_MANY_CLIENTS };
    const result = take(CLIENT_CONNECT_RATE_PER_BURROW, this.connectBucket, now);
    this.connectBucket = result.state;
    if (!result.allowed) return { ok: false, code: CloseCode.RATE_LIMITED };
    if (displaced !== null) this.dropClient(displaced, CloseCode.TOO_MANY_CLIENTS);
    return { ok: true, meta: { role: 'client', connId: this.deps.nextId('client'), openedAt: now, source } };
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

  /** A frame from a phone. Text frames other than the keep-alive (answered by the runtime) are malformed. */
  clientMessage(meta: SocketMeta, data: Uint8Array | string): void {
    // By connId, not object identity: connIds are never reused, and identity need not survive a wake.
    const entry = this.clients.get(meta.connId);
    if (entry === undefined) return;
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
    const client = this.clients.get(frame.connId)?.socket;
    // A frame for a phone that already left is a normal race, not an error.
    if (client === undefined) return;
    if (frame.type === 'data') {
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
    source: meta.source ?? UNKNOWN_SOURCE,
    openedAt: meta.openedAt,
    spoke: meta.spoke === true,
  };
}
