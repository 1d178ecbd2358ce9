// @vitest-environment node
import {
  burrowPrologue,
  generateKeyPair,
  type KeyPair,
  type NoiseTransport,
  randomBytes,
  relayTicket,
  relayTicketEpoch,
  responderIKpsk2,
} from '@burrow/crypto';
import {
  type BurrowMessage,
  type ClientMessage,
  CloseCode,
  decodeBase64url,
  decodeClientMessage,
  encodeBase64url,
  encodeBurrowMessage,
  Fragmenter,
  PROTOCOL_VERSION,
  Reassembler,
} from '@burrow/protocol';
import { describe, expect, it } from 'vitest';
import { BurrowConnection, type ConnectionEvent, POCKET_KEEPALIVE, statusText } from './burrow-connection.js';
import type { Clock } from './clock.js';
import { MemoryPairingStorage, type PairingRecord } from './pairing-storage.js';
import type { SocketCloseEvent, SocketLike, SocketMessageEvent } from './socket.js';

class FakeSocket implements SocketLike {
  binaryType = 'blob';
  readyState = 0;
  sent: (Uint8Array | string)[] = [];
  onopen: ((e: unknown) => void) | null = null;
  onmessage: ((e: SocketMessageEvent) => void) | null = null;
  onclose: ((e: SocketCloseEvent) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  constructor(
    readonly url: string,
    readonly protocols: readonly string[] | undefined = undefined,
  ) {}
  send(d: Uint8Array | string) {
    this.sent.push(d);
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  drop(code: number) {
    this.readyState = 3;
    this.onclose?.({ code, reason: '' });
  }
}

class ManualClock implements Clock {
  t = 1_800_000_000_000;
  timers: { at: number; fn: () => void; id: number }[] = [];
  #id = 0;
  now() {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number) {
    const id = ++this.#id;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(h: unknown) {
    this.timers = this.timers.filter((x) => x.id !== h);
  }
  advance(ms: number) {
    this.t += ms;
    for (const due of this.timers.filter((x) => x.at <= this.t)) {
      this.timers = this.timers.filter((x) => x !== due);
      due.fn();
    }
  }
}

function pairing(burrowKey: KeyPair = generateKeyPair()): PairingRecord {
  const client = generateKeyPair();
  return {
    burrowId: 'AAECAwQFBgcICQoLDA0ODw',
    burrowName: 'home',
    relayUrl: 'https://relay.example',
    burrowPublicKey: encodeBase64url(burrowKey.publicKey),
    clientPrivateKey: encodeBase64url(client.privateKey),
    clientPublicKey: encodeBase64url(client.publicKey),
    psk: encodeBase64url(randomBytes(32)),
    deviceId: 'dev0000000000001',
    deliveryId: 'AAAAAAAAAAAAAAAAAAAAAA',
    deliveryToken: encodeBase64url(randomBytes(32)),
    pairedAt: 0,
    lastHandshakeAt: 1_800_000_000_500,
  };
}

async function setup(burrowKey?: KeyPair) {
  const clock = new ManualClock();
  const storage = new MemoryPairingStorage();
  const p = pairing(burrowKey);
  await storage.put(p);
  const sockets: FakeSocket[] = [];
  const conn = new BurrowConnection({
    pairing: p,
    socketFactory: (url, protocols) => {
      const s = new FakeSocket(url, protocols);
      sockets.push(s);
      return s;
    },
    storage,
    viewer: 'test',
    appVersion: 't',
    cols: 80,
    rows: 24,
    clock,
    random: () => 0,
  });
  const events: ConnectionEvent[] = [];
  conn.subscribe((e) => events.push(e));
  return { clock, storage, conn, sockets, events, p };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('BurrowConnection', () => {
  it('persists a strictly increasing timestamp before sending message 1', async () => {
    const { conn, sockets, storage, p } = await setup();
    conn.start();
    await tick();
    expect(sockets[0]!.url).toBe(`wss://relay.example/v1/burrows/${p.burrowId}/client`);
    // The clock is behind the last timestamp sent: the next one is last + 1, saved first.
    expect((await storage.get(p.burrowId))!.lastHandshakeAt).toBe(p.lastHandshakeAt + 1);
    sockets[0]!.open();
    expect(sockets[0]!.sent).toHaveLength(1);
    expect((sockets[0]!.sent[0] as Uint8Array).length).toBe(32 + 48 + 8 + 16);
    conn.stop();
  });

  it("offers this hour's relay ticket as a subprotocol, never in the URL (issue 16.5, RL-TICKET-4)", async () => {
    const { conn, sockets, clock, p } = await setup();
    conn.start();
    await tick();
    const ticket = (t: number) =>
      encodeBase64url(relayTicket(decodeBase64url(p.psk), decodeBase64url(p.burrowId), relayTicketEpoch(t)));
    expect(sockets[0]!.protocols).toEqual(['burrow.v1', `burrow-ticket.${ticket(clock.t)}`]);
    expect(sockets[0]!.url).not.toContain(ticket(clock.t));
    // An hour later (a reconnect), the next epoch's ticket.
    sockets[0]!.drop(1006);
    clock.advance(3_600_000);
    await tick();
    const last = sockets.at(-1)!;
    expect(sockets.length).toBeGreaterThan(1);
    expect(last.protocols?.[1]).toBe(`burrow-ticket.${ticket(clock.t)}`);
    expect(ticket(clock.t)).not.toBe(ticket(clock.t - 3_600_000));
    conn.stop();
  });

  it('reconnects with backoff and says why in words', async () => {
    const { conn, sockets, clock } = await setup();
    conn.start();
    await tick();
    sockets[0]!.open();
    sockets[0]!.drop(CloseCode.AGENT_OFFLINE);
    expect(conn.status).toMatchObject({ kind: 'reconnecting', reason: 'your computer is offline' });
    expect(conn.statusText).toBe('reconnecting in 1 s: your computer is offline');
    clock.advance(500);
    await tick();
    expect(sockets).toHaveLength(2);
    sockets[1]!.drop(1006);
    expect(statusText(conn.status, clock.now())).toBe('reconnecting in 1 s: the connection dropped');
    conn.stop();
    expect(conn.status.kind).toBe('closed');
  });

  it('stops retrying and reports revocation', async () => {
    const { conn, sockets, clock, events } = await setup();
    conn.start();
    await tick();
    sockets[0]!.open();
    sockets[0]!.drop(CloseCode.DEVICE_REVOKED);
    expect(events.some((e) => e.type === 'revoked')).toBe(true);
    expect(conn.status).toEqual({ kind: 'closed', reason: 'this phone was removed' });
    clock.advance(60_000);
    await tick();
    expect(sockets).toHaveLength(1);
  });

  it('gives up on a silent Burrow after the connect timeout and retries', async () => {
    const { conn, sockets, clock } = await setup();
    conn.start();
    await tick();
    sockets[0]!.open();
    clock.advance(15_000);
    expect(conn.status).toMatchObject({ kind: 'reconnecting', reason: 'your computer did not answer' });
    conn.stop();
  });
});

/** The Burrow's end of one connection, on the socket the phone opened: answers message 1, then speaks API v1. */
class FakeBurrow {
  readonly #socket: FakeSocket;
  readonly #transport: NoiseTransport;
  readonly #fragmenter = new Fragmenter();
  readonly #reassembler = new Reassembler();
  #read = 1;

  constructor(socket: FakeSocket, key: KeyPair, p: PairingRecord) {
    this.#socket = socket;
    const hs = responderIKpsk2({
      prologue: burrowPrologue({
        mode: 'connect',
        protocolVersion: PROTOCOL_VERSION,
        burrowId: decodeBase64url(p.burrowId),
      }),
      staticKeyPair: key,
      psk: decodeBase64url(p.psk),
    });
    hs.readMessage(socket.sent[0] as Uint8Array);
    const message2 = hs.writeMessage(new Uint8Array(0));
    this.#transport = hs.split();
    socket.onmessage?.({ data: message2 });
  }

  send(m: BurrowMessage) {
    for (const part of this.#fragmenter.split(encodeBurrowMessage(m)))
      this.#socket.onmessage?.({ data: this.#transport.encrypt(part) });
  }

  /** What the phone sent since the last call, decrypted and decoded. */
  received(): ClientMessage[] {
    const out: ClientMessage[] = [];
    for (; this.#read < this.#socket.sent.length; this.#read++) {
      const frame = this.#reassembler.push(
        this.#transport.decrypt(this.#socket.sent[this.#read] as Uint8Array),
      );
      if (frame) out.push(decodeClientMessage(frame));
    }
    return out;
  }

  hello() {
    this.send({
      type: 'hello',
      burrowName: 'home',
      protocolVersion: PROTOCOL_VERSION,
      agentVersion: 't',
      capabilities: [],
    });
  }
}

describe('BurrowConnection liveness (POCKET_KEEPALIVE)', () => {
  const { pingIntervalMs, deadAfterMs } = POCKET_KEEPALIVE;

  async function connected() {
    const key = generateKeyPair();
    const ctx = await setup(key);
    ctx.conn.start();
    await tick();
    ctx.sockets[0]!.open();
    const burrow = new FakeBurrow(ctx.sockets[0]!, key, ctx.p);
    burrow.hello();
    expect(ctx.conn.status.kind).toBe('connected');
    expect(burrow.received().map((m) => m.type)).toEqual(['hello']);
    return { ...ctx, burrow };
  }

  it('pings end to end every interval, even while messages keep arriving', async () => {
    const { conn, clock, burrow } = await connected();
    for (let i = 0; i < 4; i++) {
      clock.advance(pingIntervalMs / 2);
      burrow.send({ type: 'directory', sessions: [] });
      clock.advance(pingIntervalMs / 2);
      const sent = burrow.received();
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ type: 'ping' });
      burrow.send({ type: 'pong', rid: (sent[0] as { rid: number }).rid });
    }
    expect(conn.status.kind).toBe('connected');
    conn.stop();
  });

  it('declares a silent path dead after deadAfterMs, reconnects, and pings nothing on the dead socket', async () => {
    const { conn, clock, burrow, sockets } = await connected();
    // ManualClock fires only timers already due when advance() starts: step a second at a time.
    for (let t = 0; t < deadAfterMs - 1_000; t += 1_000) clock.advance(1_000);
    clock.advance(999);
    expect(conn.status.kind).toBe('connected');
    expect(burrow.received().filter((m) => m.type === 'ping')).toHaveLength(
      Math.floor((deadAfterMs - 1) / pingIntervalMs),
    );
    clock.advance(1);
    expect(conn.status).toMatchObject({ kind: 'reconnecting', reason: 'your computer stopped answering' });
    const sentAtDeath = sockets[0]!.sent.length;
    clock.advance(pingIntervalMs * 3);
    await tick();
    expect(sockets[0]!.sent.length).toBe(sentAtDeath);
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    conn.stop();
  });

  it('an answer restarts the deadline', async () => {
    const { conn, clock, burrow } = await connected();
    clock.advance(deadAfterMs - 1_000);
    burrow.send({ type: 'pong', rid: 1 });
    clock.advance(deadAfterMs - 1_000);
    expect(conn.status.kind).toBe('connected');
    clock.advance(1_000);
    expect(conn.status.kind).toBe('reconnecting');
    conn.stop();
  });

  it('woken from a freeze, it probes once before calling the path dead', async () => {
    const { conn, clock, burrow } = await connected();
    burrow.received();
    // The page was frozen for a minute: every timer is overdue at once.
    clock.advance(60_000);
    expect(conn.status.kind).toBe('connected');
    expect(burrow.received().some((m) => m.type === 'ping')).toBe(true);
    // An answer inside the probe window keeps the connection.
    clock.advance(POCKET_KEEPALIVE.wakeProbeMs - 1);
    burrow.send({ type: 'pong', rid: 1 });
    for (let t = 0; t < deadAfterMs - 1_000; t += 1_000) clock.advance(1_000);
    expect(conn.status.kind).toBe('connected');
    // Frozen again, and this time nothing answers the probe: dead once the probe window ends.
    clock.advance(60_000);
    expect(conn.status.kind).toBe('connected');
    clock.advance(POCKET_KEEPALIVE.wakeProbeMs);
    expect(conn.status).toMatchObject({ kind: 'reconnecting', reason: 'your computer stopped answering' });
    conn.stop();
  });

  it('the shipped policy: two unanswered pings before the path counts as dead', () => {
    expect(deadAfterMs).toBeGreaterThan(2 * pingIntervalMs);
  });
});

describe('BurrowConnection terminals: size authority and kept scrollback', () => {
  it('re-attaches after a reconnect as a resume naming its oldest line (R-SIZE-6, R-ATTACH-8), and passes size-changed on whole', async () => {
    const key = generateKeyPair();
    const { conn, clock, sockets, p } = await setup(key);
    conn.start();
    await tick();
    sockets[0]!.open();
    let burrow = new FakeBurrow(sockets[0]!, key, p);
    burrow.hello();
    const sizes: unknown[] = [];
    conn.attach(
      'sess1',
      { cols: 48, rows: 30 },
      {
        onSnapshot: () => {},
        onOutput: () => {},
        onSizeChanged: (cols, rows, info) => sizes.push({ cols, rows, ...info }),
      },
    );
    // A first attach claims the size and has no scrollback yet.
    expect(burrow.received().filter((m) => m.type === 'attach')).toEqual([
      { type: 'attach', rid: expect.any(Number), session: 'sess1', cols: 48, rows: 30 },
    ]);
    const attached = {
      session: 'sess1',
      offset: 500,
      cols: 120,
      rows: 40,
      firstLine: 1234,
      hasOlder: true,
      data: 'screen',
    };
    burrow.send({ type: 'attached', rid: 1, ...attached });
    burrow.send({
      type: 'size-changed',
      session: 'sess1',
      cols: 120,
      rows: 40,
      cause: 'attach',
      holder: 'local',
      holderAway: false,
    });
    expect(sizes).toEqual([{ cols: 120, rows: 40, cause: 'attach', holder: 'local', holderAway: false }]);
    burrow.send({ type: 'output', session: 'sess1', offset: 500, data: new TextEncoder().encode('more') });
    // The network drops; the phone reconnects and re-attaches: resuming from where its screen is, keeping its
    // scrollback from the snapshot's first line.
    sockets[0]!.drop(1006);
    clock.advance(1_000);
    await tick();
    sockets[1]!.open();
    burrow = new FakeBurrow(sockets[1]!, key, p);
    burrow.hello();
    expect(burrow.received().filter((m) => m.type === 'attach')).toEqual([
      {
        type: 'attach',
        rid: expect.any(Number),
        session: 'sess1',
        cols: 48,
        rows: 30,
        resumeFrom: 504,
        scrollbackFrom: 1234,
      },
    ]);
    conn.stop();
  });
});
