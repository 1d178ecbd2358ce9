/**
 * Relay bench (`npm run bench -w relay-worker`): WebSocket echo round trip through the relay on workerd, with a
 * test agent echoing DATA back, and forwarding throughput for 32 KiB frames agent → phone (the direction of
 * terminal output: the phone asks with an 8-byte frame, the agent answers 32 KiB, 16 asks in flight); beside a
 * bare loopback `ws` server doing the same in the same run. Prints absolute numbers and ratios (relay / bare).
 * Phone → agent bytes are budgeted per Burrow (RL-LIM-7: 4 MiB, then 1 MiB/s), so bulk goes the other way.
 * Bounded: ~20 s.
 */
import { performance } from 'node:perf_hooks';
import { decodeRelayToAgentFrame, encodeDataFrame } from '@burrow/protocol';
import { WebSocketServer } from 'ws';
import { startRelay } from '../test/harness.js';
import { enroll, nextBinary, openAgent, openClient, type TestSocket } from '../test/relay-client.js';

const RTT_SAMPLES = 500;
const GAP_SAMPLES = 100;
const GAP_MS = 10;
const RTT_PAYLOAD_BYTES = 64;
const THROUGHPUT_FRAME_BYTES = 32 * 1024;
const THROUGHPUT_FRAMES = 800;
/** The phone's ask for one 32 KiB frame; any other payload is echoed as is. */
const ASK_BYTES = 8;

/** What both echo servers answer: a 32 KiB frame to an ask, else the same bytes. */
const answerTo = (payload: Uint8Array): Uint8Array =>
  payload.length === ASK_BYTES ? new Uint8Array(THROUGHPUT_FRAME_BYTES).fill(0xa5) : payload;
/** Frames in flight during the throughput run. */
const WINDOW = 16;
const WARMUP = 50;

/** An echo path: send a payload, resolve when it comes back. */
interface EchoPath {
  send(payload: Uint8Array): void;
  next(): Promise<Uint8Array>;
  close(): Promise<void>;
}

function pathOver(socket: TestSocket): Omit<EchoPath, 'close'> {
  return { send: (p) => socket.send(p), next: () => nextBinary(socket, 15_000) };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function roundTrips(
  path: EchoPath,
  samples: number,
  gapMs: number,
): Promise<{ p50: number; p99: number }> {
  const payload = new Uint8Array(RTT_PAYLOAD_BYTES).fill(0x5a);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    path.send(payload);
    await path.next();
    times.push(performance.now() - t);
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

async function throughput(path: EchoPath): Promise<number> {
  const frame = new Uint8Array(ASK_BYTES).fill(0xa5);
  let sent = 0;
  const t = performance.now();
  for (; sent < WINDOW; sent++) path.send(frame);
  for (let received = 0; received < THROUGHPUT_FRAMES; received++) {
    await path.next();
    if (sent < THROUGHPUT_FRAMES) {
      path.send(frame);
      sent++;
    }
  }
  const seconds = (performance.now() - t) / 1000;
  // Bytes carried agent → phone.
  return (THROUGHPUT_FRAMES * THROUGHPUT_FRAME_BYTES) / seconds / 1e6;
}

async function measure(path: EchoPath) {
  await roundTrips(path, WARMUP, 0);
  const backToBack = await roundTrips(path, RTT_SAMPLES, 0);
  const gapped = await roundTrips(path, GAP_SAMPLES, GAP_MS);
  const mbps = await throughput(path);
  return { backToBack, gapped, mbps };
}

async function bareEcho(): Promise<EchoPath> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 1 << 20 });
  await new Promise<void>((r) => server.once('listening', () => r()));
  server.on('connection', (ws) =>
    ws.on('message', (data: Buffer, isBinary) =>
      ws.send(answerTo(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)), { binary: isBinary }),
    ),
  );
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const { openSocket } = await import('../test/relay-client.js');
  const socket = await openSocket(`ws://127.0.0.1:${port}`);
  return {
    ...pathOver(socket),
    close: async () => {
      socket.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function relayEcho(url: string, wsUrl: string): Promise<EchoPath> {
  const { burrowId, burrowToken } = await enroll(url);
  const agent = await openAgent(wsUrl, burrowId, burrowToken);
  // The test agent: every DATA frame goes straight back on the same connection (same bytes, same header).
  agent.ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary) return;
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const frame = decodeRelayToAgentFrame(bytes);
    if (frame.type === 'data') agent.ws.send(encodeDataFrame(frame.connId, answerTo(frame.payload)));
  });
  const client = await openClient(wsUrl, burrowId);
  return {
    ...pathOver(client),
    close: async () => {
      client.close();
      agent.close();
    },
  };
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

async function main(): Promise<void> {
  const started = performance.now();
  const relay = await startRelay();
  try {
    const bare = await bareEcho();
    const bareResult = await measure(bare);
    await bare.close();
    const viaRelay = await relayEcho(relay.url, relay.wsUrl);
    const relayResult = await measure(viaRelay);
    await viaRelay.close();
    const rows: Array<[string, string, string, string]> = [
      ['metric', 'bare ws echo', 'via relay (workerd)', 'ratio relay/bare'],
      ...(
        [
          ['RTT p50 back-to-back', bareResult.backToBack.p50, relayResult.backToBack.p50],
          ['RTT p99 back-to-back', bareResult.backToBack.p99, relayResult.backToBack.p99],
          [`RTT p50 ${GAP_MS} ms gaps`, bareResult.gapped.p50, relayResult.gapped.p50],
          [`RTT p99 ${GAP_MS} ms gaps`, bareResult.gapped.p99, relayResult.gapped.p99],
        ] as const
      ).map(([name, b, r]) => [name, fmt(b), fmt(r), (r / b).toFixed(2)] as [string, string, string, string]),
      [
        'throughput 32 KiB frames',
        `${bareResult.mbps.toFixed(1)} MB/s`,
        `${relayResult.mbps.toFixed(1)} MB/s`,
        (relayResult.mbps / bareResult.mbps).toFixed(2),
      ],
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const row of rows) console.log(row.map((c, i) => c.padEnd(widths[i]!)).join('  '));
    console.log(
      `(${RTT_PAYLOAD_BYTES}-byte payloads, ${RTT_SAMPLES} back-to-back + ${GAP_SAMPLES} gapped samples; ` +
        `${THROUGHPUT_FRAMES} × 32 KiB agent → phone, ${WINDOW} asks in flight; total ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  } finally {
    await relay.stop();
  }
}

await main();
