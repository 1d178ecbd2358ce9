/**
 * Target: the relay's frame router (relay-worker/src/relay-router.ts, pure, [SPEC: RL-ROUTE-1..9]).
 *
 * Each case is a random sequence of socket events against one router with fake sockets and a fake clock:
 * phones opening (admitted or refused), phones sending good / empty / oversized / text frames, the agent
 * sending DATA to live, departed and never-assigned connIds, CLOSE_CLIENT, malformed and oversized frames,
 * phones and agents closing with any code, a new agent replacing the old, the old one still talking, time
 * passing. One router lives across all cases too (its maps must stay bounded over a long run).
 * Expected rejection: none — the router takes any event. Findings: any exception; a payload delivered to a
 * socket other than the one it was addressed to, or from a replaced agent; a send to a closed socket; a
 * phone frame reaching the agent with another connId; more phones than MAX_CLIENTS_PER_BURROW, or from one
 * source than MAX_CLIENTS_PER_SOURCE (phones with a relay ticket aside, RL-TICKET-3); more frames forwarded
 * from a phone the agent never answered than UNANSWERED_CLIENT_MAX_FRAMES (RL-LIM-6); a phone socket left open
 * that the router no longer holds (or the reverse).
 */
import {
  AgentFrameType,
  decodeRelayToAgentFrame,
  encodeCloseClientFrame,
  MAX_AGENT_FRAME_BYTES,
  MAX_CLIENT_FRAME_BYTES,
} from '@burrow/protocol';
import fc from 'fast-check';
import {
  MAX_CLIENTS_PER_BURROW,
  MAX_CLIENTS_PER_SOURCE,
  UNANSWERED_CLIENT_MAX_FRAMES,
} from '../../../relay-worker/src/limits.js';
import { RelayRouter, type RelaySocket, type SocketMeta } from '../../../relay-worker/src/relay-router.js';
import { FuzzFinding, type FuzzTarget, invariant } from '../fuzz-target.js';

/** Events per case. */
const MAX_EVENTS = 60;
/** Tag bytes at the start of every payload the fuzz sends: who sent it, to whom. */
const FROM_AGENT = 0xa0;
const FROM_OLD_AGENT = 0xa1;
const FROM_PHONE = 0xb0;

class FakeSocket implements RelaySocket {
  closed = false;
  readonly received: Uint8Array[] = [];
  constructor(
    readonly violations: string[],
    readonly label: string,
  ) {}
  send(data: Uint8Array): void {
    if (this.closed) this.violations.push(`send to closed ${this.label}`);
    this.received.push(data.slice());
  }
  close(): void {
    this.closed = true;
  }
}

type Event =
  | { readonly e: 'open'; readonly source: string; readonly ticketed: boolean }
  | {
      readonly e: 'phone-send';
      readonly pick: number;
      readonly shape: 'ok' | 'empty' | 'big' | 'text';
      readonly size: number;
    }
  | { readonly e: 'agent-data'; readonly pick: number; readonly stale: boolean; readonly size: number }
  | { readonly e: 'agent-close-client'; readonly pick: number; readonly code: number }
  | { readonly e: 'agent-raw'; readonly bytes: Uint8Array | string }
  | { readonly e: 'phone-closed'; readonly pick: number; readonly code: number }
  | { readonly e: 'agent-replace' | 'agent-closed' | 'old-agent-talks' }
  | { readonly e: 'tick'; readonly ms: number };

const event: fc.Arbitrary<Event> = fc.oneof(
  {
    weight: 4,
    // Few sources, so one of them reaches MAX_CLIENTS_PER_SOURCE and slots run out (displacement).
    arbitrary: fc.record({
      e: fc.constant('open' as const),
      source: fc.constantFrom('src:a', 'src:a', 'src:b', 'src:c'),
      ticketed: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      e: fc.constant('phone-send' as const),
      pick: fc.nat(),
      shape: fc.constantFrom('ok' as const, 'ok' as const, 'empty' as const, 'big' as const, 'text' as const),
      size: fc.integer({ min: 1, max: 64 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      e: fc.constant('agent-data' as const),
      pick: fc.nat(),
      stale: fc.boolean(),
      size: fc.integer({ min: 1, max: 64 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      e: fc.constant('agent-close-client' as const),
      pick: fc.nat(),
      code: fc.oneof(fc.constant(1000), fc.integer({ min: 4100, max: 4199 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      e: fc.constant('agent-raw' as const),
      bytes: fc.oneof(
        fc.uint8Array({ maxLength: 12 }),
        fc.string({ maxLength: 8 }),
        fc.constant(new Uint8Array(MAX_AGENT_FRAME_BYTES + 1)),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      e: fc.constant('phone-closed' as const),
      pick: fc.nat(),
      code: fc.oneof(fc.integer({ min: 0, max: 70_000 }), fc.constantFrom(1000, 1006, 4100)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { e: 'agent-replace' as const },
      { e: 'agent-closed' as const },
      { e: 'old-agent-talks' as const },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({ e: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 5_000 }) }),
  },
);

interface Phone {
  readonly socket: FakeSocket;
  readonly meta: SocketMeta;
  /** The agent sent it a DATA frame. */
  answered: boolean;
  /** Its frames the agent received before that. */
  unansweredForwarded: number;
}

/** One router and what the fuzz knows about it; events are applied through here. */
class World {
  readonly violations: string[] = [];
  now = 1_000_000;
  readonly ids = { client: 1, agent: 1 };
  readonly router: RelayRouter<FakeSocket>;
  agent: { socket: FakeSocket; meta: SocketMeta } | null = null;
  oldAgent: { socket: FakeSocket; meta: SocketMeta } | null = null;
  /** Every phone ever admitted, by connId (the closed ones too: a late frame for them must go nowhere). */
  readonly phones = new Map<number, Phone>();
  /** Phones the fuzz admitted and that neither side closed yet. */
  readonly live: number[] = [];
  /** DATA frames checked: phone → agent, and agent → phone (so the checks are seen not to be vacuous). */
  agentSeen = 0;
  phoneSeen = 0;

  constructor() {
    this.router = new RelayRouter<FakeSocket>({
      now: () => this.now,
      nextId: (kind) => this.ids[kind]++,
      saveMeta: () => {},
    });
    this.replaceAgent();
  }

  replaceAgent(): void {
    if (this.agent) this.oldAgent = this.agent;
    const meta = this.router.agentMeta();
    const socket = new FakeSocket(this.violations, `agent ${meta.connId}`);
    this.router.agentOpened(socket, meta);
    this.agent = { socket, meta };
    this.live.length = 0;
  }

  apply(ev: Event): void {
    const livePick = (n: number) =>
      this.live.length === 0 ? undefined : this.phones.get(this.live[n % this.live.length]!);
    const anyPick = (n: number) => {
      const all = [...this.phones.values()];
      return all.length === 0 ? undefined : all[n % all.length];
    };
    switch (ev.e) {
      case 'open': {
        const admission = this.router.admitClient(ev.source, { ticketed: ev.ticketed });
        if (!admission.ok) return;
        // A ticketed newcomer may displace a socket: the router closes it (TOO_MANY_CLIENTS).
        for (const id of [...this.live]) if (this.phones.get(id)?.socket.closed) this.forget(id);
        const socket = new FakeSocket(this.violations, `phone ${admission.meta.connId}`);
        this.router.clientOpened(socket, admission.meta);
        this.phones.set(admission.meta.connId, {
          socket,
          meta: admission.meta,
          answered: false,
          unansweredForwarded: 0,
        });
        this.live.push(admission.meta.connId);
        return;
      }
      case 'phone-send': {
        const phone = anyPick(ev.pick);
        if (!phone) return;
        const data =
          ev.shape === 'text'
            ? 'hello'
            : ev.shape === 'empty'
              ? new Uint8Array(0)
              : ev.shape === 'big'
                ? new Uint8Array(MAX_CLIENT_FRAME_BYTES + 1)
                : tagged(FROM_PHONE, phone.meta.connId, ev.size);
        const before = this.agent?.socket.received.length ?? 0;
        this.router.clientMessage(phone.meta, data);
        if (!phone.answered && (this.agent?.socket.received.length ?? 0) > before) {
          // DATA, not a CLIENT_CLOSED: the frame went through.
          const last = this.agent!.socket.received.at(-1)!;
          if (last[0] === AgentFrameType.DATA) phone.unansweredForwarded += 1;
        }
        // A budget (RL-LIM-6/7) may close a phone on an ordinary frame too.
        if (ev.shape !== 'ok' || phone.socket.closed) this.forget(phone.meta.connId);
        return;
      }
      case 'agent-data': {
        // Addressed to a live phone, a departed one, or (stale) one never assigned.
        const phone = ev.stale ? undefined : anyPick(ev.pick);
        const connId = phone?.meta.connId ?? this.ids.client + (ev.pick % 5);
        if (!this.agent) return;
        if (phone && !phone.socket.closed) phone.answered = true;
        this.router.agentMessage(
          this.agent.socket,
          this.agent.meta,
          agentData(connId, tagged(FROM_AGENT, connId, ev.size)),
        );
        return;
      }
      case 'agent-close-client': {
        const phone = livePick(ev.pick);
        if (!phone || !this.agent) return;
        this.router.agentMessage(
          this.agent.socket,
          this.agent.meta,
          encodeCloseClientFrame(phone.meta.connId, ev.code),
        );
        this.forget(phone.meta.connId);
        return;
      }
      case 'agent-raw':
        if (!this.agent) return;
        this.router.agentMessage(this.agent.socket, this.agent.meta, ev.bytes);
        if (this.agent.socket.closed) this.agentGone();
        return;
      case 'phone-closed': {
        const phone = anyPick(ev.pick);
        if (!phone) return;
        phone.socket.closed = true;
        this.router.clientClosed(phone.meta, ev.code);
        this.forget(phone.meta.connId);
        return;
      }
      case 'agent-replace':
        this.replaceAgent();
        return;
      case 'agent-closed':
        if (!this.agent) return;
        this.agent.socket.closed = true;
        this.router.agentClosed(this.agent.meta);
        this.agentGone();
        return;
      case 'old-agent-talks': {
        const old = this.oldAgent;
        const phone = anyPick(0);
        if (!old || !phone) return;
        this.router.agentMessage(
          old.socket,
          old.meta,
          agentData(phone.meta.connId, tagged(FROM_OLD_AGENT, phone.meta.connId, 4)),
        );
        this.router.agentClosed(old.meta);
        return;
      }
      case 'tick':
        this.now += ev.ms;
        return;
    }
  }

  forget(connId: number): void {
    const i = this.live.indexOf(connId);
    if (i >= 0) this.live.splice(i, 1);
  }

  agentGone(): void {
    this.oldAgent = this.agent;
    this.agent = null;
    this.live.length = 0;
  }

  /** Routing invariants over everything delivered so far. */
  check(): void {
    invariant(this.violations.length === 0, this.violations[0] ?? '');
    invariant(
      this.router.clientCount <= MAX_CLIENTS_PER_BURROW,
      `router holds ${this.router.clientCount} phones, over MAX_CLIENTS_PER_BURROW`,
    );
    // Every phone socket the router holds is open, and every open one it admitted is held (none leaks).
    const open = [...this.phones.values()].filter((p) => !p.socket.closed);
    invariant(
      open.length === this.router.clientCount,
      `${open.length} phone sockets open, router holds ${this.router.clientCount}`,
    );
    const bySource = new Map<string, number>();
    for (const p of open.filter((q) => q.meta.ticketed !== true))
      bySource.set(p.meta.source ?? '', (bySource.get(p.meta.source ?? '') ?? 0) + 1);
    for (const [connId, p] of this.phones)
      invariant(
        p.unansweredForwarded <= UNANSWERED_CLIENT_MAX_FRAMES,
        `phone ${connId} had ${p.unansweredForwarded} frames forwarded before the agent answered it`,
      );
    for (const [source, n] of bySource)
      invariant(n <= MAX_CLIENTS_PER_SOURCE, `${n} phones open from ${source}, over MAX_CLIENTS_PER_SOURCE`);
    for (const [connId, phone] of this.phones) {
      for (const payload of phone.socket.received) {
        this.phoneSeen++;
        invariant(
          payload[0] === FROM_AGENT,
          `phone ${connId} got a payload from ${payload[0] === FROM_OLD_AGENT ? 'a replaced agent' : 'not the agent'}`,
        );
        invariant(
          readTag(payload) === connId,
          `phone ${connId} got a payload addressed to ${readTag(payload)}`,
        );
      }
      phone.socket.received.length = 0;
    }
    for (const socket of [this.agent?.socket, this.oldAgent?.socket]) {
      if (!socket) continue;
      for (const frame of socket.received) {
        const decoded = decodeRelayToAgentFrame(frame);
        if (decoded.type !== 'data') continue;
        invariant(decoded.payload[0] === FROM_PHONE, 'the agent got a DATA payload no phone sent');
        invariant(
          readTag(decoded.payload) === decoded.connId,
          `DATA from phone ${readTag(decoded.payload)} labelled connId ${decoded.connId}`,
        );
        this.agentSeen++;
      }
      socket.received.length = 0;
    }
  }
}

function tagged(who: number, connId: number, size: number): Uint8Array {
  const bytes = new Uint8Array(5 + size);
  bytes[0] = who;
  new DataView(bytes.buffer).setUint32(1, connId, false);
  return bytes;
}

function readTag(payload: Uint8Array): number {
  return new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getUint32(1, false);
}

function agentData(connId: number, payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(5 + payload.length);
  frame[0] = AgentFrameType.DATA;
  new DataView(frame.buffer).setUint32(1, connId, false);
  frame.set(payload, 5);
  return frame;
}

export const relayRouterTarget: FuzzTarget<readonly Event[]> = {
  name: 'relay-router',
  about: 'RelayRouter: random socket event sequences (opens, frames, closes, agent replacement, time)',
  async: false,
  testRuns: 2_000,
  async start() {
    let longLived = new World();
    let events = 0;
    const delivered = { phone: 0, agent: 0 };
    return {
      input: fc.array(event, { minLength: 1, maxLength: MAX_EVENTS }),
      isExpected: () => false,
      run(sequence) {
        const world = new World();
        for (const ev of sequence) {
          world.apply(ev);
          world.check();
          longLived.apply(ev);
        }
        delivered.phone += world.phoneSeen;
        delivered.agent += world.agentSeen;
        events += sequence.length;
        return 'accepted';
      },
      afterBatch() {
        longLived.check();
        // Keep the long-lived world's own bookkeeping bounded too: the router's bound is what is checked.
        if (longLived.phones.size > 10_000) {
          if (longLived.router.clientCount > MAX_CLIENTS_PER_BURROW)
            throw new FuzzFinding('router maps grew');
          longLived = new World();
        }
      },
      figures: () => ({
        'events applied': events,
        'DATA checked agent→phone': delivered.phone,
        'DATA checked phone→agent': delivered.agent,
      }),
    };
  },
};
