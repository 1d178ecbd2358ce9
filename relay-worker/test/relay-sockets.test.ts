/**
 * The relay's sockets on workerd (`wrangler dev`): authentication, forwarding, notifications, limits,
 * keep-alive, byte-exactness, and hibernation (eviction and wake with sockets alive). [SPEC: RL-ROUTE-*, RL-FRAME-*]
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AgentFrameType,
  BURROW_SUBPROTOCOL,
  CloseCode,
  clientSubprotocols,
  decodeRelayToAgentFrame,
  encodeCloseClientFrame,
  encodeDataFrame,
  KEEPALIVE_PING,
  KEEPALIVE_PONG,
  MAX_RELAY_TICKETS,
} from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  INBOUND_BYTES_PER_BURROW,
  MAX_CLIENTS_PER_BURROW,
  UNANSWERED_CLIENT_MAX_BYTES,
  UNANSWERED_CLIENT_MAX_FRAMES,
} from '../src/limits.js';
import { type RelayHandle, startRelay } from './harness.js';
import {
  enroll,
  enrolledAgent,
  freshSource,
  freshTicket,
  nextAgentFrame,
  nextBinary,
  openAgent,
  openClient,
  putTickets,
  type TestSocket,
  UpgradeRefused,
} from './relay-client.js';

let relay: RelayHandle;
beforeAll(async () => {
  relay = await startRelay();
});
afterAll(async () => {
  await relay?.stop();
});

/** A phone connected and announced to the agent; returns its connId. */
async function connect(burrowId: string, agent: TestSocket): Promise<{ client: TestSocket; connId: number }> {
  const client = await openClient(relay.wsUrl, burrowId);
  const frame = await nextAgentFrame(agent);
  if (frame.type !== 'client_open') throw new Error(`expected CLIENT_OPEN, got ${frame.type}`);
  return { client, connId: frame.connId };
}

async function refusal(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof UpgradeRefused) return error.status;
    throw error;
  }
  throw new Error('upgrade unexpectedly accepted');
}

const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await settle(20);
  }
}
const random = (n: number) =>
  new Uint8Array(Array.from({ length: n }, () => Math.floor(Math.random() * 256)));

describe('agent socket authentication [RL-ROUTE-1, RL-HTTP-5]', () => {
  it('refuses missing, malformed, wrong and other-Burrow tokens with 401, unknown ids with 404', async () => {
    const a = await enroll(relay.url);
    const b = await enroll(relay.url);
    const url = `${relay.wsUrl}/v1/burrows/${a.burrowId}/agent`;
    const { openSocket } = await import('./relay-client.js');
    expect(await refusal(openSocket(url))).toBe(401);
    expect(await refusal(openSocket(url, { headers: { Authorization: 'Bearer nope' } }))).toBe(401);
    expect(await refusal(openSocket(url, { headers: { Authorization: `Basic ${a.burrowToken}` } }))).toBe(
      401,
    );
    expect(await refusal(openAgent(relay.wsUrl, a.burrowId, b.burrowToken))).toBe(401);
    expect(await refusal(openAgent(relay.wsUrl, 'AAAAAAAAAAAAAAAAAAAAAA', a.burrowToken))).toBe(404);
    expect(await refusal(openAgent(relay.wsUrl, 'not-an-id', a.burrowToken))).toBe(404);
    const agent = await openAgent(relay.wsUrl, a.burrowId, a.burrowToken);
    agent.close();
  });

  it('answers a plain GET on a socket route with 426 JSON', async () => {
    const a = await enroll(relay.url);
    const response = await fetch(`${relay.url}/v1/burrows/${a.burrowId}/client`);
    expect(response.status).toBe(426);
    expect(await response.json()).toMatchObject({ error: { code: 'upgrade_required' } });
  });
});

describe('forwarding [RL-ROUTE-2..5]', () => {
  it('closes a phone of an unknown Burrow with BURROW_DELETED (4008)', async () => {
    const client = await openClient(relay.wsUrl, 'AAAAAAAAAAAAAAAAAAAAAA');
    expect((await client.closed).code).toBe(CloseCode.BURROW_DELETED);
  });

  it('closes a phone with AGENT_OFFLINE (4000) when no agent is connected', async () => {
    const { burrowId } = await enroll(relay.url);
    const client = await openClient(relay.wsUrl, burrowId);
    expect((await client.closed).code).toBe(CloseCode.AGENT_OFFLINE);
  });

  it('announces a phone, forwards both ways with its connId, and reports its close code', async () => {
    const { burrowId, agent } = await enrolledAgent(relay);
    const { client, connId } = await connect(burrowId, agent);
    expect(connId).toBeGreaterThanOrEqual(1);
    const up = random(100);
    client.send(up);
    expect(await nextAgentFrame(agent)).toEqual({ type: 'data', connId, payload: up });
    const down = random(200);
    agent.send(encodeDataFrame(connId, down));
    expect(await nextBinary(client)).toEqual(down);
    client.close(4321);
    expect(await nextAgentFrame(agent)).toEqual({ type: 'client_closed', connId, code: 4321 });
    agent.close();
  });

  it('keeps many phones apart: frames for one connection never reach another', async () => {
    const { burrowId, agent } = await enrolledAgent(relay);
    const phones: Array<{ client: TestSocket; connId: number }> = [];
    for (let i = 0; i < 8; i++) phones.push(await connect(burrowId, agent));
    expect(new Set(phones.map((p) => p.connId)).size).toBe(8);
    for (const [i, p] of phones.entries()) p.client.send(new Uint8Array([i, ...random(31)]));
    const seen = new Map<number, number>();
    for (let i = 0; i < phones.length; i++) {
      const frame = await nextAgentFrame(agent);
      if (frame.type !== 'data') throw new Error('expected DATA');
      seen.set(frame.connId, frame.payload[0]!);
    }
    for (const [i, p] of phones.entries()) expect(seen.get(p.connId)).toBe(i);
    for (const [i, p] of phones.entries()) agent.send(encodeDataFrame(p.connId, new Uint8Array([0xa0, i])));
    for (const [i, p] of phones.entries())
      expect(await nextBinary(p.client)).toEqual(new Uint8Array([0xa0, i]));
    await settle();
    for (const p of phones) expect(p.client.pending()).toBe(0);
    expect(agent.pending()).toBe(0);
    agent.close();
  });

  it('closes a phone with the Burrow code the agent asks for, without echoing CLIENT_CLOSED', async () => {
    const { burrowId, agent } = await enrolledAgent(relay);
    const { client, connId } = await connect(burrowId, agent);
    agent.send(encodeCloseClientFrame(connId, CloseCode.DEVICE_REVOKED));
    expect((await client.closed).code).toBe(CloseCode.DEVICE_REVOKED);
    await settle();
    expect(agent.pending()).toBe(0);
    // A late frame for that connection is dropped, not an error: the agent stays connected.
    agent.send(encodeDataFrame(connId, random(8)));
    const other = await connect(burrowId, agent);
    expect(other.connId).toBeGreaterThan(connId);
    agent.close();
  });

  it('a newer agent replaces the older (4001); phones of the old one are closed AGENT_DISCONNECTED', async () => {
    const { burrowId, burrowToken, agent } = await enrolledAgent(relay);
    const { client } = await connect(burrowId, agent);
    const newer = await openAgent(relay.wsUrl, burrowId, burrowToken);
    expect((await agent.closed).code).toBe(CloseCode.AGENT_REPLACED);
    expect((await client.closed).code).toBe(CloseCode.AGENT_DISCONNECTED);
    const fresh = await connect(burrowId, newer);
    fresh.client.send(random(10));
    expect((await nextAgentFrame(newer)).type).toBe('data');
    newer.close();
    expect((await fresh.client.closed).code).toBe(CloseCode.AGENT_DISCONNECTED);
  });
});

describe('frames and limits [RL-FRAME-*, RL-LIM-*]', () => {
  it('forwards a 65535-byte phone frame and closes one of 65536 bytes with FRAME_TOO_LARGE (4003)', async () => {
    const { burrowId, agent } = await enrolledAgent(relay);
    const { client, connId } = await connect(burrowId, agent);
    // The agent answers first, as a Burrow does with message 2: before that, a phone may send little (RL-LIM-6).
    agent.send(encodeDataFrame(connId, random(48)));
    await nextBinary(client);
    const max = random(65535);
    client.send(max);
    expect(await nextAgentFrame(agent)).toEqual({ type: 'data', connId, payload: max });
    client.send(random(65536));
    expect((await client.closed).code).toBe(CloseCode.FRAME_TOO_LARGE);
    expect(await nextAgentFrame(agent)).toEqual({
      type: 'client_closed',
      connId,
      code: CloseCode.FRAME_TOO_LARGE,
    });
    agent.close();
  });

  it('closes an agent that sends an oversize or malformed frame', async () => {
    const a = await enrolledAgent(relay);
    const tooBig = new Uint8Array(5 + 65536);
    tooBig.set([AgentFrameType.DATA, 0, 0, 0, 1]);
    a.agent.send(tooBig);
    expect((await a.agent.closed).code).toBe(CloseCode.FRAME_TOO_LARGE);
    const b = await enrolledAgent(relay);
    b.agent.send(new Uint8Array([AgentFrameType.CLIENT_OPEN, 0, 0, 0, 1]));
    expect((await b.agent.closed).code).toBe(CloseCode.MALFORMED_FRAME);
  });

  it('closes a phone that sends a text frame other than the keep-alive with MALFORMED_FRAME (4006)', async () => {
    const { burrowId, agent } = await enrolledAgent(relay);
    const { client, connId } = await connect(burrowId, agent);
    client.send('hello');
    expect((await client.closed).code).toBe(CloseCode.MALFORMED_FRAME);
    expect(await nextAgentFrame(agent)).toEqual({
      type: 'client_closed',
      connId,
      code: CloseCode.MALFORMED_FRAME,
    });
    agent.close();
  });

  it('answers the keep-alive ping on both sockets without bothering the agent [RL-KEEP-1]', async () => {
    const { burrowId, agent } = await enrolledAgent(relay);
    const { client } = await connect(burrowId, agent);
    client.send(KEEPALIVE_PING);
    expect(await client.next()).toEqual({ kind: 'text', data: KEEPALIVE_PONG });
    agent.send(KEEPALIVE_PING);
    expect(await agent.next()).toEqual({ kind: 'text', data: KEEPALIVE_PONG });
    await settle();
    expect(agent.pending()).toBe(0);
    agent.close();
  });

  it('bounds phones per Burrow: the 17th is closed TOO_MANY_CLIENTS (4004)', async () => {
    const { burrowId, agent } = await enrolledAgent(relay);
    const phones: TestSocket[] = [];
    for (let i = 0; i < 16; i++) {
      const phone = await connect(burrowId, agent);
      // Each phone speaks (as a real one sends message 1 at once), so none of them may be displaced by the
      // 17th however long the loop takes (relay-slots.test.ts covers displacement of silent sockets).
      phone.client.send(new Uint8Array([i]));
      expect((await nextAgentFrame(agent)).type).toBe('data');
      phones.push(phone.client);
    }
    const extra = await openClient(relay.wsUrl, burrowId);
    expect((await extra.closed).code).toBe(CloseCode.TOO_MANY_CLIENTS);
    phones[0]!.close();
    expect((await nextAgentFrame(agent)).type).toBe('client_closed');
    const again = await connect(burrowId, agent);
    again.client.close();
    agent.close();
  });

  it('bounds the phone connection rate per Burrow: after a burst of 20, RATE_LIMITED (4005)', async () => {
    const { burrowId, agent } = await enrolledAgent(relay);
    // The bucket refills one per second while we work, so allow for the seconds the loop takes. An admitted
    // phone answers the keep-alive; a refused one is closed at once.
    const started = Date.now();
    let admitted = 0;
    for (;;) {
      const client = await openClient(relay.wsUrl, burrowId);
      client.send(KEEPALIVE_PING);
      const outcome = await client.next().then(
        () => 'open',
        () => 'closed',
      );
      if (outcome === 'closed') {
        expect((await client.closed).code).toBe(CloseCode.RATE_LIMITED);
        break;
      }
      expect((await nextAgentFrame(agent)).type).toBe('client_open');
      client.close();
      expect((await nextAgentFrame(agent)).type).toBe('client_closed');
      admitted += 1;
      expect(admitted).toBeLessThanOrEqual(20 + Math.ceil((Date.now() - started) / 1000));
    }
    expect(admitted).toBeGreaterThanOrEqual(20);
    agent.close();
  });

  it('bounds connections per source: after 30, agents get 429 and phones RATE_LIMITED', async () => {
    const { burrowId } = await enroll(relay.url);
    const source = freshSource();
    const wrong = 'A'.repeat(43);
    // The phone below offers a subprotocol as Pocket does: the refusal must still select it (RL-TICKET-4).
    // A wrong (well-formed) token is refused 401 after the rate check, so each attempt spends a token.
    // The bucket refills one per second while we work, so allow for the seconds the loop takes.
    const started = Date.now();
    let refused401 = 0;
    for (;;) {
      const status = await refusal(openAgent(relay.wsUrl, burrowId, wrong, { source }));
      if (status === 429) break;
      expect(status).toBe(401);
      refused401 += 1;
      expect(refused401).toBeLessThanOrEqual(30 + Math.ceil((Date.now() - started) / 1000));
    }
    expect(refused401).toBeGreaterThanOrEqual(30);
    const phone = await openClient(relay.wsUrl, burrowId, { source, protocols: [BURROW_SUBPROTOCOL] });
    expect(phone.ws.protocol).toBe(BURROW_SUBPROTOCOL);
    expect((await phone.closed).code).toBe(CloseCode.RATE_LIMITED);
  });
});

/**
 * Reads an agent socket's frames as they come, without queueing them: the data bytes per connId and the
 * close code the agent heard for each.
 */
function agentTally(agent: TestSocket) {
  const bytes = new Map<number, number>();
  const closed = new Map<number, number>();
  agent.ws.on('message', (data: Buffer) => {
    const frame = decodeRelayToAgentFrame(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    if (frame.type === 'data') bytes.set(frame.connId, (bytes.get(frame.connId) ?? 0) + frame.payload.length);
    if (frame.type === 'client_closed') closed.set(frame.connId, frame.code);
  });
  return { bytes, closed };
}

/** The close code, or -1 if the socket is still open 5 s after the flood stopped. */
const closedOrOpen = (client: TestSocket) =>
  Promise.race([client.closed, settle(5_000).then(() => ({ code: -1 }))]);

/** Longest a flood runs (ms): the budgets close a flooding socket well before on any machine we run on. */
const FLOOD_MAX_MS = 20_000;

/**
 * Sends `frame` until the socket is closed, `maxBytes` went out or FLOOD_MAX_MS passed, keeping at most 1 MiB
 * buffered.
 */
async function flood(client: TestSocket, frame: Uint8Array, maxBytes: number): Promise<number> {
  const deadline = Date.now() + FLOOD_MAX_MS;
  let gone = false;
  void client.closed.then(() => {
    gone = true;
  });
  let sent = 0;
  while (!gone && sent < maxBytes && Date.now() < deadline && client.ws.readyState === client.ws.OPEN) {
    client.send(frame);
    sent += frame.length;
    while (!gone && client.ws.bufferedAmount > 1 << 20) await settle(5);
  }
  return sent;
}

describe('byte budgets for phone sockets (issue 16.4) [RL-LIM-6, RL-LIM-7]', () => {
  it('an unanswered phone sends a message 1 and little more: a flood is closed TOO_MUCH_DATA (4009)', async () => {
    const { burrowId, agent } = await enrolledAgent(relay);
    const tally = agentTally(agent);
    const client = await openClient(relay.wsUrl, burrowId);
    client.send(random(104)); // a message 1 the Burrow never answers
    const started = Date.now();
    const sent = 104 + (await flood(client, random(65535), 64 * 1024 * 1024));
    const { code } = await closedOrOpen(client);
    expect(code, `closed ${code} after ${sent} bytes`).toBe(CloseCode.TOO_MUCH_DATA);
    // The phone sees its close frame before the agent hears CLIENT_CLOSED: wait for that, then count.
    await until(() => tally.closed.size === 1, 'CLIENT_CLOSED at the agent');
    const [connId] = [...tally.closed.keys()];
    const forwarded = tally.bytes.get(connId!) ?? 0;
    console.log(
      `[figure] unanswered phone flood: sent ${sent} bytes in ${Date.now() - started} ms, ` +
        `forwarded ${forwarded} bytes to the agent (budget ${UNANSWERED_CLIENT_MAX_BYTES} bytes / ${UNANSWERED_CLIENT_MAX_FRAMES} frames), closed ${code}`,
    );
    expect(code).toBe(CloseCode.TOO_MUCH_DATA);
    expect(tally.closed.get(connId!)).toBe(CloseCode.TOO_MUCH_DATA);
    expect(forwarded).toBe(104);
    agent.close();
  }, 60_000);

  it('all phones of a Burrow draw on one inbound byte budget; over it the sender is closed 4009', async () => {
    const { burrowId, agent } = await enrolledAgent(relay);
    const tally = agentTally(agent);
    const client = await openClient(relay.wsUrl, burrowId);
    client.send(random(104));
    await until(() => tally.bytes.size === 1, 'the message 1 at the agent');
    const [connId] = [...tally.bytes.keys()];
    agent.send(encodeDataFrame(connId!, random(48))); // message 2: answered
    await nextBinary(client);
    const started = Date.now();
    const sent = await flood(client, random(65535), 256 * 1024 * 1024);
    const elapsedMs = Date.now() - started;
    const { code } = await closedOrOpen(client);
    await until(() => tally.closed.has(connId!), 'CLIENT_CLOSED at the agent');
    const forwarded = tally.bytes.get(connId!)! - 104;
    const allowed =
      INBOUND_BYTES_PER_BURROW.capacity + Math.ceil(elapsedMs / INBOUND_BYTES_PER_BURROW.refillIntervalMs);
    console.log(
      `[figure] answered phone flood: sent ${sent} bytes in ${elapsedMs} ms, forwarded ${forwarded} ` +
        `(burst ${INBOUND_BYTES_PER_BURROW.capacity} + refill over the run = ${allowed}), closed ${code}`,
    );
    expect(code).toBe(CloseCode.TOO_MUCH_DATA);
    expect(tally.closed.get(connId!)).toBe(CloseCode.TOO_MUCH_DATA);
    expect(forwarded).toBeLessThanOrEqual(allowed);
    expect(forwarded).toBeGreaterThanOrEqual(INBOUND_BYTES_PER_BURROW.capacity - 65535);
    agent.close();
  }, 60_000);
});

describe('relay tickets (issue 16.5) [RL-TICKET-1..4]', () => {
  it('the Burrow publishes its ticket set with its token; bad sets are refused', async () => {
    const burrow = await enroll(relay.url);
    const { hash } = freshTicket();
    expect((await putTickets(relay.url, burrow.burrowId, { ticketHashes: [hash] }, null)).status).toBe(401);
    expect(
      (await putTickets(relay.url, burrow.burrowId, { ticketHashes: [hash] }, 'A'.repeat(43))).status,
    ).toBe(401);
    for (const body of [
      {},
      { ticketHashes: [hash, hash] },
      { ticketHashes: ['short'] },
      { ticketHashes: Array.from({ length: MAX_RELAY_TICKETS + 1 }, () => freshTicket().hash) },
      { ticketHashes: [hash], deviceId: 'no' },
    ]) {
      const response = await putTickets(relay.url, burrow.burrowId, body, burrow.burrowToken);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    const full = Array.from({ length: MAX_RELAY_TICKETS }, () => freshTicket().hash);
    expect(
      (await putTickets(relay.url, burrow.burrowId, { ticketHashes: full }, burrow.burrowToken)).status,
    ).toBe(204);
    expect(
      (await putTickets(relay.url, burrow.burrowId, { ticketHashes: [] }, burrow.burrowToken)).status,
    ).toBe(204);
  });

  it('a phone with a published ticket gets a slot when sockets without one hold them all', async () => {
    const { burrowId, burrowToken, agent } = await enrolledAgent(relay);
    const owner = freshTicket();
    const retired = freshTicket();
    expect(
      (await putTickets(relay.url, burrowId, { ticketHashes: [retired.hash] }, burrowToken)).status,
    ).toBe(204);
    // The set is replaced whole: the retired ticket is no longer one.
    expect((await putTickets(relay.url, burrowId, { ticketHashes: [owner.hash] }, burrowToken)).status).toBe(
      204,
    );
    // Every slot held by a socket that sent a message 1 (never displaceable by a newcomer without a ticket).
    const squatters: TestSocket[] = [];
    for (let i = 0; i < MAX_CLIENTS_PER_BURROW; i++) {
      const { client } = await connect(burrowId, agent);
      client.send(random(104));
      expect((await nextAgentFrame(agent)).type).toBe('data');
      squatters.push(client);
    }
    const offer = (ticket: string) => ({ protocols: clientSubprotocols(ticket) });
    for (const ticket of [null, retired.ticket, freshTicket().ticket]) {
      const refused = await openClient(relay.wsUrl, burrowId, ticket === null ? {} : offer(ticket));
      expect((await refused.closed).code).toBe(CloseCode.TOO_MANY_CLIENTS);
      if (ticket !== null) expect(refused.ws.protocol).toBe(BURROW_SUBPROTOCOL);
    }
    const phone = await openClient(relay.wsUrl, burrowId, offer(owner.ticket));
    // The relay selects `burrow.v1` and never echoes the ticket.
    expect(phone.ws.protocol).toBe(BURROW_SUBPROTOCOL);
    const frames = [await nextAgentFrame(agent), await nextAgentFrame(agent)];
    expect(frames.map((f) => f.type).sort()).toEqual(['client_closed', 'client_open']);
    expect((await squatters[0]!.closed).code).toBe(CloseCode.TOO_MANY_CLIENTS);
    phone.send(random(104));
    expect((await nextAgentFrame(agent)).type).toBe('data');
    agent.close();
  });
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

function ifVanished(err: NodeJS.ErrnoException): Buffer {
  if (err.code === 'ENOENT') return Buffer.alloc(0);
  throw err;
}

describe('the relay is blind [DESIGN §2, RL-STORE-1]', () => {
  it('forwards every byte exactly as received and stores nothing of any frame', async () => {
    const { burrowId, burrowToken, agent } = await enrolledAgent(relay);
    // A delivery id the relay *does* store, to prove the storage scan can find what is there.
    const deliveryId = 'c3RvcmVkLWRlbGl2ZXJ5LQ';
    const put = await fetch(`${relay.url}/v1/burrows/${burrowId}/deliveries/${deliveryId}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${burrowToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ tokenHash: 'A'.repeat(43) }),
    });
    expect(put.status).toBe(201);
    const marker = `BURROW-PLAINTEXT-MARKER-${Math.random().toString(36).slice(2)}`;
    const markerBytes = new TextEncoder().encode(marker);
    const { client, connId } = await connect(burrowId, agent);
    for (const size of [1, 2, 5, 17, 1000, 32 * 1024, 65535]) {
      const up = random(size);
      if (size >= markerBytes.length) up.set(markerBytes, 0);
      client.send(up);
      expect(await nextAgentFrame(agent)).toEqual({ type: 'data', connId, payload: up });
      const down = random(size);
      if (size >= markerBytes.length) down.set(markerBytes, size - markerBytes.length);
      agent.send(encodeDataFrame(connId, down));
      expect(await nextBinary(client)).toEqual(down);
    }
    client.close();
    agent.close();
    await settle(500);
    // The relay is still running: SQLite creates and deletes `-journal` files around each write, so a file
    // listed a moment ago may be gone by the time it is read; what it held was committed to its database.
    const files = await filesUnder(relay.persistDir);
    const contents = await Promise.all(files.map((f) => readFile(f).catch(ifVanished)));
    expect(contents.some((c) => c.includes(Buffer.from(deliveryId)))).toBe(true);
    for (const [i, c] of contents.entries())
      expect(c.includes(Buffer.from(markerBytes)), files[i]).toBe(false);
  });
});

describe('hibernation [RL-DO-1..4]', () => {
  it('is evicted while idle and wakes with its sockets and routing intact', async () => {
    const { burrowId, burrowToken, agent } = await enrolledAgent(relay);
    const { client, connId } = await connect(burrowId, agent);
    const status = async () => {
      const r = await fetch(`${relay.url}/v1/burrows/${burrowId}/status`, {
        headers: { Authorization: `Bearer ${burrowToken}` },
      });
      return (await r.json()) as { agentConnected: boolean; clients: number; objectStartedAt: number };
    };
    const before = await status();
    expect(before).toMatchObject({ agentConnected: true, clients: 1 });
    // workerd evicts an object ~10 s after its last event; keep-alive pings are answered by the runtime and
    // must not count as events.
    for (let i = 0; i < 6; i++) {
      await settle(2_000);
      client.send(KEEPALIVE_PING);
      expect(await client.next()).toEqual({ kind: 'text', data: KEEPALIVE_PONG });
    }
    await settle(1_000);
    const up = random(64);
    client.send(up);
    expect(await nextAgentFrame(agent)).toEqual({ type: 'data', connId, payload: up });
    agent.send(encodeDataFrame(connId, up));
    expect(await nextBinary(client)).toEqual(up);
    const after = await status();
    expect(after).toMatchObject({ agentConnected: true, clients: 1 });
    expect(after.objectStartedAt).toBeGreaterThan(before.objectStartedAt);
    // connIds keep increasing across the wake.
    const second = await connect(burrowId, agent);
    expect(second.connId).toBeGreaterThan(connId);
    agent.close();
  }, 40_000);
});
