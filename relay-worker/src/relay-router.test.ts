/** The pure router with fake sockets and a fake clock: the rules of SPEC-relay RL-ROUTE-*, without workerd. */
import {
  CloseCode,
  decodeRelayToAgentFrame,
  encodeCloseClientFrame,
  encodeDataFrame,
} from '@burrow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_CONNECT_RATE_PER_BURROW,
  INBOUND_BYTES_PER_BURROW,
  MAX_CLIENTS_PER_BURROW,
  MAX_CLIENTS_PER_SOURCE,
  PAIRING_CONNECT_RATE_PER_BURROW,
  SILENT_CLIENT_DISPLACEABLE_AFTER_MS,
  TICKETED_CONNECT_RATE_PER_BURROW,
  UNANSWERED_CLIENT_MAX_BYTES,
  UNANSWERED_CLIENT_MAX_FRAMES,
} from './limits.js';
import { RelayRouter, type RelaySocket, type SocketMeta } from './relay-router.js';

class FakeSocket implements RelaySocket {
  sent: Uint8Array[] = [];
  closed: { code: number; reason: string } | null = null;
  /** What the router saved with it (the hibernation attachment). */
  attachment: SocketMeta | null = null;
  send(data: Uint8Array): void {
    if (this.closed) throw new Error('send after close');
    this.sent.push(data.slice());
  }
  close(code: number, reason: string): void {
    this.closed = { code, reason };
  }
  frames() {
    return this.sent.map((f) => decodeRelayToAgentFrame(f));
  }
}

const saveMeta = (socket: FakeSocket, meta: SocketMeta) => {
  socket.attachment = meta;
};

function harness() {
  let now = 1_000_000;
  const ids = { client: 1, agent: 1 };
  const router = new RelayRouter<FakeSocket>({ now: () => now, nextId: (kind) => ids[kind]++, saveMeta });
  const agent = new FakeSocket();
  const agentMeta = router.agentMeta();
  router.agentOpened(agent, agentMeta);
  let sources = 0;
  /** A phone from its own source address unless one is given. */
  const open = (
    source = `src4:10.0.0.${++sources}`,
    options: { ticketed?: boolean; pairing?: boolean } = {},
  ) => {
    const admission = router.admitClient(source, options);
    if (!admission.ok) throw new Error(`refused ${admission.code}`);
    const socket = new FakeSocket();
    socket.attachment = admission.meta;
    router.clientOpened(socket, admission.meta);
    return { socket, meta: admission.meta };
  };
  /** The agent sends the phone its first frame (Noise message 2): the socket is answered. */
  const answer = (phone: { meta: SocketMeta }) =>
    router.agentMessage(agent, agentMeta, encodeDataFrame(phone.meta.connId, new Uint8Array([2])));
  return { router, agent, agentMeta, open, answer, advance: (ms: number) => (now += ms) };
}

describe('RelayRouter', () => {
  it('refuses phones while no agent is connected', () => {
    const router = new RelayRouter<FakeSocket>({ now: () => 0, nextId: () => 1, saveMeta });
    expect(router.admitClient('src4:10.0.0.1')).toEqual({ ok: false, code: CloseCode.AGENT_OFFLINE });
  });

  it('announces phones, routes by connId and reports closes', () => {
    const { router, agent, agentMeta, open } = harness();
    const a = open();
    const b = open();
    expect(agent.frames()).toEqual([
      { type: 'client_open', connId: a.meta.connId },
      { type: 'client_open', connId: b.meta.connId },
    ]);
    router.clientMessage(a.meta, new Uint8Array([1, 2, 3]));
    expect(agent.frames()[2]).toEqual({
      type: 'data',
      connId: a.meta.connId,
      payload: new Uint8Array([1, 2, 3]),
    });
    router.agentMessage(agent, agentMeta, encodeDataFrame(b.meta.connId, new Uint8Array([9])));
    expect(b.socket.sent).toEqual([new Uint8Array([9])]);
    expect(a.socket.sent).toEqual([]);
    router.clientClosed(a.meta, 1001);
    expect(agent.frames().at(-1)).toEqual({ type: 'client_closed', connId: a.meta.connId, code: 1001 });
    // Frames for a connection that left are dropped.
    router.agentMessage(agent, agentMeta, encodeDataFrame(a.meta.connId, new Uint8Array([1])));
    expect(a.socket.sent).toEqual([]);
    expect(agent.closed).toBeNull();
  });

  it('never delivers a frame to a connection other than the one it names (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(7), fc.uint8Array({ minLength: 1, maxLength: 64 })), { maxLength: 50 }),
        (sends) => {
          const { router, agent, agentMeta, open } = harness();
          const phones = Array.from({ length: 8 }, () => open());
          const expected = phones.map(() => [] as Uint8Array[]);
          for (const [i, payload] of sends) {
            router.agentMessage(agent, agentMeta, encodeDataFrame(phones[i]!.meta.connId, payload));
            expected[i]!.push(payload);
          }
          for (const [i, p] of phones.entries()) expect(p.socket.sent).toEqual(expected[i]);
        },
      ),
      { seed: 0x5eed, numRuns: 100 },
    );
  });

  it('closes a phone on CLOSE_CLIENT with that code and forgets it', () => {
    const { router, agent, agentMeta, open } = harness();
    const a = open();
    router.agentMessage(agent, agentMeta, encodeCloseClientFrame(a.meta.connId, CloseCode.DEVICE_REVOKED));
    expect(a.socket.closed?.code).toBe(CloseCode.DEVICE_REVOKED);
    expect(router.clientCount).toBe(0);
    const before = agent.sent.length;
    router.clientClosed(a.meta, CloseCode.DEVICE_REVOKED);
    expect(agent.sent.length).toBe(before);
  });

  it('replaces the agent and closes the old one and its phones', () => {
    const { router, agent, agentMeta, open } = harness();
    const a = open();
    const newer = new FakeSocket();
    const newerMeta = router.agentMeta();
    router.agentOpened(newer, newerMeta);
    expect(agent.closed?.code).toBe(CloseCode.AGENT_REPLACED);
    expect(a.socket.closed?.code).toBe(CloseCode.AGENT_DISCONNECTED);
    // The old agent's late close must not take the new one down.
    router.agentClosed(agentMeta);
    expect(router.agentConnected).toBe(true);
    router.agentClosed(newerMeta);
    expect(router.agentConnected).toBe(false);
  });

  it('bounds frame sizes and rejects malformed frames', () => {
    const { router, agent, agentMeta, open, answer } = harness();
    const a = open();
    answer(a);
    router.clientMessage(a.meta, new Uint8Array(65535));
    expect(a.socket.closed).toBeNull();
    router.clientMessage(a.meta, new Uint8Array(65536));
    expect(a.socket.closed?.code).toBe(CloseCode.FRAME_TOO_LARGE);
    expect(agent.frames().at(-1)).toEqual({
      type: 'client_closed',
      connId: a.meta.connId,
      code: CloseCode.FRAME_TOO_LARGE,
    });
    const b = open();
    router.clientMessage(b.meta, 'text');
    expect(b.socket.closed?.code).toBe(CloseCode.MALFORMED_FRAME);
    router.agentMessage(agent, agentMeta, new Uint8Array([0x02, 0, 0, 0, 1]));
    expect(agent.closed?.code).toBe(CloseCode.MALFORMED_FRAME);
  });

  it('bounds phones per Burrow and their connection rate, with the injected clock', () => {
    const { router, open, advance } = harness();
    const phones = Array.from({ length: MAX_CLIENTS_PER_BURROW }, () => open());
    expect(router.admitClient('src4:10.9.9.9')).toEqual({ ok: false, code: CloseCode.TOO_MANY_CLIENTS });
    for (const p of phones) router.clientClosed(p.meta, 1000);
    // 16 tokens spent; 4 left of the burst.
    const left = CLIENT_CONNECT_RATE_PER_BURROW.capacity - MAX_CLIENTS_PER_BURROW;
    for (let i = 0; i < left; i++) router.clientClosed(open().meta, 1000);
    expect(router.admitClient('src4:10.9.9.9')).toEqual({ ok: false, code: CloseCode.RATE_LIMITED });
    advance(CLIENT_CONNECT_RATE_PER_BURROW.refillIntervalMs);
    expect(router.admitClient('src4:10.9.9.9').ok).toBe(true);
  });

  it('gives one source at most its share of the slots, without spending the connect bucket on refusals', () => {
    const { router, open } = harness();
    for (let i = 0; i < MAX_CLIENTS_PER_SOURCE; i++) open('src4:203.0.113.7');
    for (let i = 0; i < 50; i++) {
      expect(router.admitClient('src4:203.0.113.7')).toEqual({ ok: false, code: CloseCode.TOO_MANY_CLIENTS });
    }
    // The refused 50 spent nothing: the rest of the burst is still there for other sources.
    const left = CLIENT_CONNECT_RATE_PER_BURROW.capacity - MAX_CLIENTS_PER_SOURCE;
    for (let i = 0; i < Math.min(left, MAX_CLIENTS_PER_BURROW - MAX_CLIENTS_PER_SOURCE); i++) open();
    expect(router.clientCount).toBe(MAX_CLIENTS_PER_BURROW);
  });

  it('lets a newcomer displace the oldest socket that never spoke once every slot is taken', () => {
    const { router, agent, open, advance } = harness();
    const phones = Array.from({ length: MAX_CLIENTS_PER_BURROW }, () => {
      const p = open();
      advance(10);
      return p;
    });
    // The oldest one is a real phone: it sent its message 1, so it is never displaced.
    router.clientMessage(phones[0]!.meta, new Uint8Array([1]));
    // Too young to be displaced: the newcomer is refused, and no token is spent.
    expect(router.admitClient('src4:198.51.100.1')).toEqual({ ok: false, code: CloseCode.TOO_MANY_CLIENTS });
    advance(SILENT_CLIENT_DISPLACEABLE_AFTER_MS);
    const newcomer = open('src4:198.51.100.1');
    expect(phones[0]!.socket.closed).toBeNull();
    expect(phones[1]!.socket.closed?.code).toBe(CloseCode.TOO_MANY_CLIENTS);
    expect(agent.frames()).toContainEqual({
      type: 'client_closed',
      connId: phones[1]!.meta.connId,
      code: CloseCode.TOO_MANY_CLIENTS,
    });
    expect(router.clientCount).toBe(MAX_CLIENTS_PER_BURROW);
    // The newcomer speaks at once; the next one displaces the next silent socket, never a speaker.
    router.clientMessage(newcomer.meta, new Uint8Array([1]));
    open('src4:198.51.100.2');
    expect(phones[2]!.socket.closed?.code).toBe(CloseCode.TOO_MANY_CLIENTS);
    expect(newcomer.socket.closed).toBeNull();
  });

  it('never displaces a socket that spoke, whatever the order of events (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant('open' as const), fc.nat(MAX_CLIENTS_PER_BURROW - 1), fc.nat(3000)), {
          maxLength: 80,
        }),
        (steps) => {
          const { router, advance } = harness();
          const live: Array<{ socket: FakeSocket; meta: SocketMeta; spoke: boolean }> = [];
          let n = 0;
          for (const step of steps) {
            if (step === 'open') {
              const admission = router.admitClient(`src4:10.1.0.${++n}`);
              if (!admission.ok) continue;
              const socket = new FakeSocket();
              router.clientOpened(socket, admission.meta);
              live.push({ socket, meta: admission.meta, spoke: false });
            } else if (typeof step === 'number' && step < MAX_CLIENTS_PER_BURROW) {
              const target = live[step];
              if (target && !target.socket.closed) {
                router.clientMessage(target.meta, new Uint8Array([1]));
                target.spoke = true;
              }
            }
            if (typeof step === 'number') advance(step);
          }
          // A speaker may run out of its unanswered budget (RL-LIM-6), but is never displaced.
          for (const p of live)
            if (p.spoke) expect(p.socket.closed?.code).not.toBe(CloseCode.TOO_MANY_CLIENTS);
          expect(router.clientCount).toBeLessThanOrEqual(MAX_CLIENTS_PER_BURROW);
        },
      ),
      { seed: 0x51e7, numRuns: 200 },
    );
  });

  it('restores routing from socket attachments after a wake', () => {
    const { router, agent, agentMeta, open } = harness();
    const a = open();
    let wokeIds = 99;
    const woke = new RelayRouter<FakeSocket>({ now: () => 0, nextId: () => wokeIds++, saveMeta });
    const sockets: Array<{ socket: FakeSocket; meta: SocketMeta | null }> = [
      { socket: agent, meta: agentMeta },
      { socket: a.socket, meta: a.meta },
      { socket: new FakeSocket(), meta: null },
    ];
    woke.restore(sockets);
    expect(woke.agentConnected).toBe(true);
    expect(woke.clientCount).toBe(1);
    // The restored phone keeps its source: that source's share is counted after a wake too.
    for (let i = 1; i < MAX_CLIENTS_PER_SOURCE; i++) {
      const admission = woke.admitClient(a.meta.source!);
      if (!admission.ok) throw new Error(`refused ${admission.code}`);
      woke.clientOpened(new FakeSocket(), admission.meta);
    }
    expect(woke.admitClient(a.meta.source!)).toEqual({ ok: false, code: CloseCode.TOO_MANY_CLIENTS });
    expect(woke.clientCount).toBe(MAX_CLIENTS_PER_SOURCE);
    woke.clientMessage(a.meta, new Uint8Array([7]));
    expect(agent.frames().at(-1)).toEqual({
      type: 'data',
      connId: a.meta.connId,
      payload: new Uint8Array([7]),
    });
    expect(router.clientCount).toBe(1);
  });

  it('lets an unanswered phone send a message 1 and little more: frames and bytes (RL-LIM-6, issue 16.4)', () => {
    const { router, agent, open, answer } = harness();
    const chatty = open();
    for (let i = 0; i < UNANSWERED_CLIENT_MAX_FRAMES; i++)
      router.clientMessage(chatty.meta, new Uint8Array(96));
    expect(chatty.socket.closed).toBeNull();
    const forwarded = agent.frames().filter((f) => f.type === 'data').length;
    router.clientMessage(chatty.meta, new Uint8Array(96));
    expect(chatty.socket.closed?.code).toBe(CloseCode.TOO_MUCH_DATA);
    // The frame over the budget never reached the agent; the agent hears why the socket went.
    expect(agent.frames().filter((f) => f.type === 'data')).toHaveLength(forwarded);
    expect(agent.frames().at(-1)).toEqual({
      type: 'client_closed',
      connId: chatty.meta.connId,
      code: CloseCode.TOO_MUCH_DATA,
    });
    const big = open();
    router.clientMessage(big.meta, new Uint8Array(UNANSWERED_CLIENT_MAX_BYTES + 1));
    expect(big.socket.closed?.code).toBe(CloseCode.TOO_MUCH_DATA);
    // Once the agent has answered, the socket is a session: frames of any legal size pass.
    const phone = open();
    router.clientMessage(phone.meta, new Uint8Array(104));
    answer(phone);
    for (let i = 0; i < 10; i++) router.clientMessage(phone.meta, new Uint8Array(65535));
    expect(phone.socket.closed).toBeNull();
  });

  it('keeps the unanswered counts across a wake (they live in the attachment)', () => {
    const { router, agent, agentMeta, open } = harness();
    const a = open();
    for (let i = 0; i < UNANSWERED_CLIENT_MAX_FRAMES - 1; i++)
      router.clientMessage(a.meta, new Uint8Array(8));
    expect(a.socket.attachment).toMatchObject({
      spoke: true,
      unansweredFrames: UNANSWERED_CLIENT_MAX_FRAMES - 1,
    });
    const woke = new RelayRouter<FakeSocket>({ now: () => 0, nextId: () => 50, saveMeta });
    woke.restore([
      { socket: agent, meta: agentMeta },
      { socket: a.socket, meta: a.socket.attachment },
    ]);
    woke.clientMessage(a.meta, new Uint8Array(8));
    expect(a.socket.closed).toBeNull();
    woke.clientMessage(a.meta, new Uint8Array(8));
    expect(a.socket.closed?.code).toBe(CloseCode.TOO_MUCH_DATA);
    // An answered socket stays answered after a wake.
    const b = open();
    router.clientMessage(b.meta, new Uint8Array(104));
    router.agentMessage(agent, agentMeta, encodeDataFrame(b.meta.connId, new Uint8Array([2])));
    expect(b.socket.attachment).toMatchObject({ answered: true });
  });

  it('bounds what all phones of a Burrow send together, by bytes, with the injected clock (RL-LIM-7)', () => {
    const { router, agent, open, answer, advance } = harness();
    const phones = [open(), open()];
    for (const p of phones) answer(p);
    const frame = new Uint8Array(65535);
    const fits = Math.floor(INBOUND_BYTES_PER_BURROW.capacity / frame.length);
    for (let i = 0; i < fits; i++) router.clientMessage(phones[i % 2]!.meta, frame);
    expect(phones.every((p) => p.socket.closed === null)).toBe(true);
    const sent = agent.frames().filter((f) => f.type === 'data').length;
    router.clientMessage(phones[0]!.meta, frame);
    expect(phones[0]!.socket.closed?.code).toBe(CloseCode.TOO_MUCH_DATA);
    expect(agent.frames().filter((f) => f.type === 'data')).toHaveLength(sent);
    // The budget comes back at its rate: a second later the other phone sends a frame again.
    advance(1_000);
    router.clientMessage(phones[1]!.meta, frame);
    expect(phones[1]!.socket.closed).toBeNull();
  });

  it('lets a ticketed phone past an empty shared bucket and a full house of unanswered sockets (RL-TICKET-3)', () => {
    const { router, agent, open, answer } = harness();
    // Attackers from many addresses: every slot taken by a socket that sent a message 1 the agent never
    // answered (so none is silent, none displaceable by a newcomer without a ticket) …
    const squatters = Array.from({ length: MAX_CLIENTS_PER_BURROW }, (_, i) => open(`src4:198.51.100.${i}`));
    for (const s of squatters) router.clientMessage(s.meta, new Uint8Array(104));
    router.clientClosed(squatters[0]!.meta, 1006);
    // … and the shared connect bucket spent.
    const left = CLIENT_CONNECT_RATE_PER_BURROW.capacity - MAX_CLIENTS_PER_BURROW;
    for (let i = 0; i < left; i++) router.clientClosed(open(`src4:203.0.113.${i}`).meta, 1000);
    expect(router.admitClient('src4:192.0.2.1')).toEqual({ ok: false, code: CloseCode.RATE_LIMITED });
    // The owner's phone with its ticket gets in at once, from its own bucket.
    const owner = open('src4:192.0.2.1', { ticketed: true });
    expect(owner.meta.ticketed).toBe(true);
    answer(owner);
    expect(router.admitClient('src4:203.0.113.99')).toEqual({ ok: false, code: CloseCode.TOO_MANY_CLIENTS });
    // The owner's second phone: every slot taken, so it displaces the oldest unanswered socket without a
    // ticket — never the owner's answered one.
    const second = router.admitClient('src4:192.0.2.2', { ticketed: true });
    expect(second.ok && second.meta.ticketed).toBe(true);
    expect(squatters[1]!.socket.closed?.code).toBe(CloseCode.TOO_MANY_CLIENTS);
    expect(owner.socket.closed).toBeNull();
    expect(agent.frames()).toContainEqual({
      type: 'client_closed',
      connId: squatters[1]!.meta.connId,
      code: CloseCode.TOO_MANY_CLIENTS,
    });
  });

  it('bounds ticketed phones by their own bucket and never lets them displace each other', () => {
    const { router, open, advance } = harness();
    const owners = Array.from({ length: MAX_CLIENTS_PER_BURROW }, (_, i) =>
      open(`src4:192.0.2.${i}`, { ticketed: true }),
    );
    // One address may hold more than its share when it has tickets (a household behind one NAT).
    expect(owners).toHaveLength(MAX_CLIENTS_PER_BURROW);
    expect(router.admitClient('src4:192.0.2.99', { ticketed: true })).toEqual({
      ok: false,
      code: CloseCode.TOO_MANY_CLIENTS,
    });
    for (const o of owners) router.clientClosed(o.meta, 1000);
    const left = TICKETED_CONNECT_RATE_PER_BURROW.capacity - MAX_CLIENTS_PER_BURROW;
    for (let i = 0; i < left; i++) router.clientClosed(open('src4:192.0.2.1', { ticketed: true }).meta, 1000);
    expect(router.admitClient('src4:192.0.2.1', { ticketed: true })).toEqual({
      ok: false,
      code: CloseCode.RATE_LIMITED,
    });
    // The shared bucket was never touched by them.
    expect(router.admitClient('src4:10.0.0.200').ok).toBe(true);
    advance(TICKETED_CONNECT_RATE_PER_BURROW.refillIntervalMs);
    expect(router.admitClient('src4:192.0.2.1', { ticketed: true }).ok).toBe(true);
  });

  it('gives a pairing phone its own bucket: neither the shared nor the ticketed one can starve it (RL-TICKET-5)', () => {
    const { router, open, advance } = harness();
    // Others spent the shared bucket, and the owner's phones their own.
    for (let i = 0; i < CLIENT_CONNECT_RATE_PER_BURROW.capacity; i++)
      router.clientClosed(open(`src4:198.51.100.${i}`).meta, 1000);
    for (let i = 0; i < TICKETED_CONNECT_RATE_PER_BURROW.capacity; i++)
      router.clientClosed(open('src4:192.0.2.1', { ticketed: true }).meta, 1000);
    expect(router.admitClient('src4:192.0.2.7').ok).toBe(false);
    expect(router.admitClient('src4:192.0.2.7', { ticketed: true }).ok).toBe(false);
    // The phone holding the open pairing link still gets in, PAIRING_CONNECT_RATE_PER_BURROW times at once …
    for (let i = 0; i < PAIRING_CONNECT_RATE_PER_BURROW.capacity; i++) {
      const pairing = open('src4:192.0.2.7', { pairing: true });
      expect(pairing.meta.ticketed).toBe(true);
      router.clientClosed(pairing.meta, 1000);
    }
    // … then at the bucket's rate.
    expect(router.admitClient('src4:192.0.2.7', { pairing: true })).toEqual({
      ok: false,
      code: CloseCode.RATE_LIMITED,
    });
    advance(PAIRING_CONNECT_RATE_PER_BURROW.refillIntervalMs);
    expect(router.admitClient('src4:192.0.2.7', { pairing: true }).ok).toBe(true);
  });
});
