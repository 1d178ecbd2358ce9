/**
 * Phone slots on workerd (`wrangler dev`), with a test socket as the agent: one source address holds at most
 * MAX_CLIENTS_PER_SOURCE of a Burrow's phone sockets, and once every slot is taken a newcomer displaces the
 * oldest socket that never sent a frame — never one that spoke, also after the object was evicted and woke
 * (the "spoke" mark lives in the socket's attachment, RL-DO-2/3). [SPEC: RL-ROUTE-2, RL-LIM-3, RL-LIM-4]
 * The attack these exist for is tests/integration/attack-handshake-flood.test.ts.
 */
import { CloseCode } from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_CLIENTS_PER_BURROW,
  MAX_CLIENTS_PER_SOURCE,
  SILENT_CLIENT_DISPLACEABLE_AFTER_MS,
} from '../src/limits.js';
import { type RelayHandle, startRelay } from './harness.js';
import { enrolledAgent, freshSource, nextAgentFrame, openClient, type TestSocket } from './relay-client.js';

/** workerd evicts an idle object ~10 s after its last event; wait a little longer. */
const EVICTION_WAIT_MS = 13_000;

let relay: RelayHandle;
beforeAll(async () => {
  relay = await startRelay();
});
afterAll(async () => {
  await relay?.stop();
});

/** A phone from `source`, announced to the agent; its connId. */
async function connect(burrowId: string, agent: TestSocket, source: string) {
  const client = await openClient(relay.wsUrl, burrowId, { source });
  const frame = await nextAgentFrame(agent);
  if (frame.type !== 'client_open') throw new Error(`expected CLIENT_OPEN, got ${frame.type}`);
  return { client, connId: frame.connId };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('phone slots [RL-LIM-3, RL-LIM-4]', () => {
  it(`one source holds at most ${MAX_CLIENTS_PER_SOURCE} phone sockets of a Burrow; other sources still get in`, async () => {
    const { burrowId, agent } = await enrolledAgent(relay);
    const source = freshSource();
    for (let i = 0; i < MAX_CLIENTS_PER_SOURCE; i++) await connect(burrowId, agent, source);
    const refused = await openClient(relay.wsUrl, burrowId, { source });
    expect((await refused.closed).code).toBe(CloseCode.TOO_MANY_CLIENTS);
    const other = await connect(burrowId, agent, freshSource());
    expect(other.connId).toBeGreaterThan(0);
    // The refused one was never announced: the agent's next frame is the other source's phone leaving.
    other.client.close(1000);
    expect(await nextAgentFrame(agent)).toEqual({ type: 'client_closed', connId: other.connId, code: 1000 });
    agent.close();
  });

  it('a newcomer displaces the oldest silent socket, never one that spoke, across an eviction', async () => {
    const { burrowId, burrowToken, agent } = await enrolledAgent(relay);
    const phones = [];
    for (let i = 0; i < MAX_CLIENTS_PER_BURROW; i++)
      phones.push(await connect(burrowId, agent, freshSource()));
    const [speaker, silent] = [phones[0]!, phones[1]!];
    speaker.client.send(new Uint8Array([1, 2, 3]));
    expect(await nextAgentFrame(agent)).toEqual({
      type: 'data',
      connId: speaker.connId,
      payload: new Uint8Array([1, 2, 3]),
    });
    const status = async () =>
      (await (
        await fetch(`${relay.url}/v1/burrows/${burrowId}/status`, {
          headers: { Authorization: `Bearer ${burrowToken}` },
        })
      ).json()) as { clients: number; objectStartedAt: number };
    const before = await status();
    expect(before.clients).toBe(MAX_CLIENTS_PER_BURROW);
    await settle(Math.max(EVICTION_WAIT_MS, SILENT_CLIENT_DISPLACEABLE_AFTER_MS));
    await openClient(relay.wsUrl, burrowId, { source: freshSource() });
    // The displaced socket's close comes first, then the newcomer's open.
    expect(await nextAgentFrame(agent)).toEqual({
      type: 'client_closed',
      connId: silent.connId,
      code: CloseCode.TOO_MANY_CLIENTS,
    });
    const opened = await nextAgentFrame(agent);
    expect(opened.type).toBe('client_open');
    // The object woke (a later start), and still knew which socket had spoken.
    expect((await status()).objectStartedAt).toBeGreaterThan(before.objectStartedAt);
    expect((await silent.client.closed).code).toBe(CloseCode.TOO_MANY_CLIENTS);
    speaker.client.send(new Uint8Array([4]));
    expect(await nextAgentFrame(agent)).toEqual({
      type: 'data',
      connId: speaker.connId,
      payload: new Uint8Array([4]),
    });
    expect(opened.type === 'client_open' && opened.connId).toBeGreaterThan(phones.at(-1)!.connId);
    agent.close();
  }, 40_000);
});
