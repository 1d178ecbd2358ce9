/**
 * The phone of the direct-path bench (direct-path-bench.ts), run inside the test network's phone namespace:
 * Pocket's own core (`BurrowConnection`) with node-datachannel's RTCPeerConnection polyfill, driven over the
 * IPC channel by the bench, which runs the relay and the Burrow. Every answer is one IPC message.
 */
import { performance } from 'node:perf_hooks';
import {
  BurrowConnection,
  MemoryPairingStorage,
  type PairingRecord,
  type TerminalHandle,
} from '@burrow/pocket/core';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import WebSocket from 'ws';
import { nodeSocketFactory } from '../helpers/node-socket.js';
import { sleep, until } from './bench-stats.js';
import { byteCounter, counterEcho, measureEcho } from './echo-paths.js';

type Command =
  | { op: 'start'; pairing: PairingRecord }
  | { op: 'stop' }
  | { op: 'attach-echo'; session: string }
  | { op: 'echo'; label: string }
  | { op: 'await-direct' }
  | { op: 'pump'; session: string; endMarker: string; expect?: string; cutAfterBytes?: number; go: string }
  | { op: 'cut-done'; at: number }
  | { op: 'counters' }
  | { op: 'ws-rtt'; url: string };

const send = (m: unknown): void => {
  process.send?.(m);
};
let conn: BurrowConnection | null = null;
let startedAt = 0;
let echoTerm: TerminalHandle | null = null;
const echoCounter = byteCounter();
let echoReady = false;
let cutDone: ((at: number) => void) | null = null;
const statuses: string[] = [];

const rtc = (config: { iceServers: { urls: string }[] }) => new RTCPeerConnection(config as never) as never;

async function handle(c: Command): Promise<void> {
  switch (c.op) {
    case 'start': {
      const storage = new MemoryPairingStorage();
      await storage.put(c.pairing);
      conn = new BurrowConnection({
        pairing: c.pairing,
        storage,
        socketFactory: nodeSocketFactory(),
        viewer: 'test',
        appVersion: 'bench-1',
        cols: 120,
        rows: 40,
        rtc,
      });
      conn.subscribe((e) => {
        if (e.type === 'status') statuses.push(e.status.kind);
      });
      startedAt = performance.now();
      conn.start();
      await until(() => conn?.status.kind === 'connected', 'connected', 30_000, 1);
      return send({ op: 'started', connectedMs: performance.now() - startedAt });
    }
    case 'await-direct': {
      const c0 = conn!;
      await until(() => c0.path === 'direct', 'the direct path', 60_000, 1);
      return send({ op: 'direct', sinceStartMs: performance.now() - startedAt });
    }
    case 'stop':
      conn?.stop();
      conn = null;
      echoTerm = null;
      echoReady = false;
      return send({ op: 'stopped' });
    case 'attach-echo': {
      let text = '';
      echoTerm = conn!.attach(
        c.session,
        { cols: 120, rows: 40 },
        {
          onSnapshot: (s) => {
            text += s.data;
          },
          onOutput: (d) => {
            if (!echoReady) text += new TextDecoder().decode(d);
            echoCounter.add(d.byteLength);
          },
        },
      );
      await until(() => /ready/.test(text), 'the echo session', 30_000, 5);
      echoReady = true;
      return send({ op: 'attached' });
    }
    case 'echo': {
      const term = echoTerm!;
      const echo = await counterEcho(
        (b) => term.input(b),
        () => echoReady,
        echoCounter,
        async () => {},
      );
      const result = await measureEcho(echo);
      return send({ op: 'echo', label: c.label, result });
    }
    case 'pump':
      return pump(c);
    case 'cut-done':
      cutDone?.(c.at);
      return;
    case 'counters':
      return send({ op: 'counters', counters: conn?.pathCounters, statuses });
    case 'ws-rtt': {
      // What "resume the relay socket when needed" would add to a fallback: a new socket to the relay and
      // one round trip through it (a REJOIN and its answer), measured as open + keep-alive ping/pong.
      const samples: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        const ws = new WebSocket(c.url);
        await new Promise<void>((resolve, reject) => {
          ws.once('open', () => ws.send('burrow-ping'));
          ws.once('message', () => resolve());
          ws.once('error', reject);
        });
        samples.push(performance.now() - t);
        ws.close();
      }
      return send({ op: 'ws-rtt', samples });
    }
  }
}

/**
 * Attaches `session` (a program that waits for a line, then writes until `endMarker`), sends the line, and
 * receives everything: bytes, time, and — with `cutAfterBytes` — asks the bench to cut the direct path after
 * that many bytes, then checks that what arrived is exactly `expect` (nothing lost, nothing twice).
 */
async function pump(c: Extract<Command, { op: 'pump' }>): Promise<void> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let snapshots = 0;
  let ended = false;
  const arrivals: { at: number; bytes: number }[] = [];
  let cutAt = 0;
  const tail = { text: '' };
  const statusesFrom = statuses.length;
  const term = conn!.attach(
    c.session,
    { cols: 120, rows: 40 },
    {
      onSnapshot: () => {
        snapshots++;
      },
      onOutput: (d) => {
        bytes += d.byteLength;
        arrivals.push({ at: Date.now(), bytes: d.byteLength });
        if (c.expect !== undefined) chunks.push(Buffer.from(d));
        tail.text = (tail.text + new TextDecoder().decode(d)).slice(-200);
        if (tail.text.includes(c.endMarker)) ended = true;
        if (c.cutAfterBytes !== undefined && cutAt === 0 && bytes >= c.cutAfterBytes) {
          cutAt = -1;
          send({ op: 'cut-now' });
        }
      },
    },
  );
  await until(() => snapshots > 0, 'the snapshot', 30_000, 5);
  await sleep(200);
  const t0 = performance.now();
  const before = bytes;
  if (c.cutAfterBytes !== undefined) {
    const cut = new Promise<number>((r) => {
      cutDone = r;
    });
    term.input(c.go);
    cutAt = await cut;
  } else term.input(c.go);
  await until(() => ended, 'the end marker', 300_000, 2);
  const ms = performance.now() - t0;
  term.detach();
  let exact: boolean | null = null;
  let stallMs: number | null = null;
  if (c.expect !== undefined) {
    const text = Buffer.concat(chunks).toString('latin1');
    const start = text.indexOf(c.expect.slice(0, 32));
    exact =
      start >= 0 &&
      text.slice(start, start + c.expect.length) === c.expect &&
      text.indexOf(c.expect.slice(0, 32), start + 1) === -1;
    // The longest silence after the cut: the time the session stood still while it moved to the relay.
    const after = arrivals.filter((a) => a.at >= cutAt);
    stallMs = 0;
    let last = cutAt;
    for (const a of after) {
      stallMs = Math.max(stallMs, a.at - last);
      last = a.at;
    }
  }
  send({
    op: 'pumped',
    bytes: bytes - before,
    ms,
    snapshots,
    exact,
    stallMs,
    statuses: statuses.slice(statusesFrom),
  });
}

process.on('message', (c: Command) => {
  handle(c).catch((error: Error) => send({ op: 'error', message: error.stack ?? error.message }));
});
process.on('disconnect', () => process.exit(0));
send({ op: 'ready' });
