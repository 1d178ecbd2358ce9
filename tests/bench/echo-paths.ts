/**
 * Keystroke echo through different paths, measured the same way (benches only): one byte in, wait until a
 * byte comes back, repeat. The program is `stty raw -echo; exec cat` everywhere, so the echo crosses the
 * process, not just the line discipline.
 */
import { performance } from 'node:perf_hooks';
import { decodeRelayToAgentFrame, encodeDataFrame } from '@burrow/protocol';
import * as pty from 'node-pty';
import type { RelayHandle } from '../../relay-worker/test/harness.js';
import { enroll, nextBinary, openAgent, openClient } from '../../relay-worker/test/relay-client.js';
import { type Quantiles, quantiles, sleep, until } from './bench-stats.js';

export const ECHO_COMMAND = ['/bin/sh', '-c', 'stty raw -echo; echo ready; exec cat'];
export const ECHO_TIMEOUT_MS = 15_000;
export const KEYSTROKES = 500;
export const GAPPED_KEYSTROKES = 100;
export const GAP_MS = 10;
const WARMUP_KEYSTROKES = 50;
/** A keystroke frame through the bare relay: about what one encrypted `input` message weighs. */
const BARE_RELAY_PAYLOAD_BYTES = 64;
const SETUP_TIMEOUT_MS = 30_000;

/** Something that echoes one keystroke: `roundTrip` sends it and resolves when it is back. */
export interface Echo {
  roundTrip(): Promise<void>;
  close(): Promise<void>;
}

export interface EchoResult {
  readonly backToBack: Quantiles;
  readonly gapped: Quantiles;
}

export async function measureEcho(echo: Echo): Promise<EchoResult> {
  const run = async (n: number, gapMs: number) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await echo.roundTrip();
      times.push(performance.now() - t);
      if (gapMs > 0) await sleep(gapMs);
    }
    return times;
  };
  await run(WARMUP_KEYSTROKES, 0);
  const backToBack = quantiles(await run(KEYSTROKES, 0));
  const gapped = quantiles(await run(GAPPED_KEYSTROKES, GAP_MS));
  return { backToBack, gapped };
}

/** Counts bytes arriving; `want(n)` resolves once `n` more have arrived than were asked for before. */
export function byteCounter() {
  let received = 0;
  let wanted = 0;
  let wake: (() => void) | null = null;
  return {
    add(n: number) {
      received += n;
      if (wake && received >= wanted) {
        const w = wake;
        wake = null;
        w();
      }
    },
    want(n: number): Promise<void> {
      wanted += n;
      if (received >= wanted) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('echo timed out')), ECHO_TIMEOUT_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
    /** Forget everything received so far (setup output). */
    settle() {
      wanted = received;
    },
    get received() {
      return received;
    },
  };
}

/** An echo over anything that can write a byte and report bytes coming back (`feed` the counter). */
export async function counterEcho(
  write: (b: string) => void,
  ready: () => boolean,
  counter: ReturnType<typeof byteCounter>,
  close: () => Promise<void>,
): Promise<Echo> {
  await until(ready, 'the echo path', SETUP_TIMEOUT_MS, 10);
  await sleep(200);
  counter.settle();
  return {
    async roundTrip() {
      const back = counter.want(1);
      write('x');
      await back;
    },
    close,
  };
}

/** Characters of a terminal's first output kept to look for ECHO_COMMAND's `ready` (after a snapshot, say). */
const READY_SCAN_CHARS = 4096;

/**
 * An echo through something that paints a terminal's output: `open` starts it with the painted bytes going to
 * the given callback and says how to type and how to close; ready once ECHO_COMMAND has printed `ready`.
 */
export function paintedEcho(
  open: (onData: (d: Buffer) => void) => { write: (b: string) => void; close: () => Promise<void> },
): Promise<Echo> {
  const counter = byteCounter();
  let text = '';
  const { write, close } = open((d) => {
    if (text.length < READY_SCAN_CHARS) text += d.toString('latin1');
    counter.add(d.byteLength);
  });
  return counterEcho(write, () => text.includes('ready'), counter, close);
}

export function barePtyEcho(): Promise<Echo> {
  return paintedEcho((onData) => {
    const p = pty.spawn(ECHO_COMMAND[0]!, ECHO_COMMAND.slice(1), { cols: 80, rows: 24, encoding: null });
    p.onData((d: Buffer | string) => onData(typeof d === 'string' ? Buffer.from(d) : d));
    return { write: (b) => p.write(b), close: async () => p.kill() };
  });
}

/** A 64-byte frame through the relay to an agent socket that echoes DATA frames straight back. */
export async function bareRelayEcho(relay: RelayHandle): Promise<Echo> {
  const { burrowId, burrowToken } = await enroll(relay.url);
  const agent = await openAgent(relay.wsUrl, burrowId, burrowToken);
  agent.ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary) return;
    const frame = decodeRelayToAgentFrame(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    if (frame.type === 'data') agent.ws.send(encodeDataFrame(frame.connId, frame.payload));
  });
  const client = await openClient(relay.wsUrl, burrowId);
  const payload = new Uint8Array(BARE_RELAY_PAYLOAD_BYTES).fill(0x78);
  return {
    async roundTrip() {
      client.send(payload);
      await nextBinary(client, ECHO_TIMEOUT_MS);
    },
    async close() {
      client.close();
      agent.close();
    },
  };
}
