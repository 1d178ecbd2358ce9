/**
 * Issue 8 "Load", the relay: BURROWS Burrows enrolled at one `wrangler dev` (workerd, local Durable Objects),
 * each with its agent socket and CLIENTS_PER_BURROW phone sockets. Every client sends numbered 64-byte frames
 * tagged with its Burrow, its own number and a random nonce (load-relay-peers.ts), at most WINDOW unanswered;
 * every agent echoes each frame to the connection it came from. Checked on both sides: every frame reaches the
 * right peer, in order, none lost, none duplicated, none crossing to another Burrow or client; no socket closes.
 *
 * Limits: every socket and enrollment comes from its own simulated source address (`CF-Connecting-IP`, passed
 * through by `wrangler dev`). The per-source limits (relay-worker/src/limits.ts: CONNECT_RATE_PER_SOURCE burst
 * 30 then 1/s, ENROLL_RATE_PER_SOURCE 5 per hour) bound one address; from one address this test would need
 * 400 s of connect refill and 20 hours of enrollment, which says nothing about forwarding. A hundred Burrows
 * and their phones are a few hundred addresses on the internet. The per-Burrow limits stay in force (three
 * clients each, under MAX_CLIENTS_PER_BURROW = 16 and the connect burst of 20).
 *
 * Not covered: frames above 64 bytes (size limits are the relay's own tests), Burrows whose agents reconnect
 * mid-run, workerd's hibernation (no socket is idle long enough), and one real Cloudflare edge (workerd here
 * runs every Durable Object in one process on a 2-core machine).
 *
 * `LOAD_SECONDS` scales the frames per client (5 per second of it: 100 by default); `npm run load -w tests`
 * runs the long variant.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { enroll, freshSource } from '../../relay-worker/test/relay-client.js';
import { until } from '../helpers/burrow-daemon.js';
import { figure, LOAD_SECONDS } from '../helpers/load-figures.js';
import { descendantsNamed, RssSampler } from '../helpers/load-proc.js';
import { EchoAgent, TaggedClient } from '../helpers/load-relay-peers.js';

const BURROWS = 100;
const CLIENTS_PER_BURROW = 3;
const FRAMES_PER_CLIENT = 5 * LOAD_SECONDS;
/** Unanswered frames per client: enough to keep the relay busy, small enough that latency means something. */
const WINDOW = 4;
/** Sockets opened at once while setting up (keeps a loaded machine's accept queue sane). */
const SETUP_PARALLEL = 20;
const SETUP_TIMEOUT_MS = 60_000;
const RUN_TIMEOUT_MS = (LOAD_SECONDS * 6 + 60) * 1000;

/** One enrollment's budget on a loaded machine (ms). */
const ENROLL_TIMEOUT_MS = 30_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

let relay: RelayHandle;
const agents: EchoAgent[] = [];
const clients: TaggedClient[] = [];
const ids: { burrowId: string; burrowToken: string }[] = [];

async function inBatches<T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += SETUP_PARALLEL)
    out.push(
      ...(await Promise.all(Array.from({ length: Math.min(SETUP_PARALLEL, n - i) }, (_, k) => make(i + k)))),
    );
  return out;
}

beforeAll(async () => {
  relay = await startRelay();
  const t0 = performance.now();
  ids.push(
    ...(await inBatches(BURROWS, (b) =>
      Promise.race([
        enroll(relay.url),
        sleep(ENROLL_TIMEOUT_MS).then(() => Promise.reject(new Error(`enrollment ${b} hung`))),
      ]),
    )),
  );
  const enrolledMs = performance.now() - t0;
  agents.push(
    ...(await inBatches(BURROWS, (b) =>
      EchoAgent.open(relay.wsUrl, ids[b]!.burrowId, ids[b]!.burrowToken, b, freshSource()),
    )),
  );
  clients.push(
    ...(await inBatches(BURROWS * CLIENTS_PER_BURROW, (i) => {
      const b = Math.floor(i / CLIENTS_PER_BURROW);
      const tag = { burrow: b, client: i % CLIENTS_PER_BURROW, nonce: new Uint8Array(randomBytes(16)) };
      return TaggedClient.open(relay.wsUrl, ids[b]!.burrowId, tag, freshSource(), () => performance.now());
    })),
  );
  await until(
    () => agents.every((a) => a.opened.size === CLIENTS_PER_BURROW),
    'every client announced to its agent',
    SETUP_TIMEOUT_MS,
  );
  figure('load-relay setup', {
    ms: performance.now() - t0,
    enroll_ms: enrolledMs,
    burrows: agents.length,
    clients: clients.length,
  });
}, 240_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const a of agents) a.close();
  await relay?.stop();
});

describe(`the relay under ${BURROWS} Burrows × ${CLIENTS_PER_BURROW} clients`, () => {
  it(
    'forwards every frame to the right peer, in order, with no loss and no cross-talk',
    async () => {
      const workerd = descendantsNamed(process.pid, 'workerd');
      const rss = new RssSampler(() => workerd);
      const t0 = performance.now();
      await Promise.all(clients.map((c) => c.run(FRAMES_PER_CLIENT, WINDOW)));
      const seconds = (performance.now() - t0) / 1000;
      rss.stop();

      const total = clients.length * FRAMES_PER_CLIENT;
      const rtts = clients.flatMap((c) => c.rtts).sort((a, b) => a - b);
      const q = (p: number) => rtts[Math.min(rtts.length - 1, Math.floor(p * rtts.length))]!;
      const problems = [...agents, ...clients].flatMap((p) => p.problems.first);
      const problemCount = [...agents, ...clients].reduce((n, p) => n + p.problems.count, 0);
      figure('load-relay forwarding', {
        burrows: agents.length,
        clients: clients.length,
        round_trips: total,
        seconds: seconds.toFixed(2),
        round_trips_per_s: total / seconds,
        relay_frames_per_s: (2 * total) / seconds,
        rtt_p50_ms: q(0.5).toFixed(2),
        rtt_p99_ms: q(0.99).toFixed(2),
        rtt_max_ms: rtts.at(-1)!.toFixed(2),
        problems: problemCount,
      });
      figure('load-relay workerd RSS', {
        peak_MiB: rss.samples.length > 0 ? rss.peakMib().toFixed(1) : 'n/a',
        processes: workerd.length,
      });

      expect(problems).toEqual([]);
      for (const c of clients) expect(c.received).toBe(FRAMES_PER_CLIENT);
      // Each agent echoed exactly its own clients' frames.
      for (const a of agents) expect(a.echoed).toBe(CLIENTS_PER_BURROW * FRAMES_PER_CLIENT);
      expect([...agents, ...clients].reduce((n, p) => n + p.closes, 0)).toBe(0);
    },
    RUN_TIMEOUT_MS,
  );
});
