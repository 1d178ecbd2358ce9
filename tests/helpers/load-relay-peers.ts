/**
 * Bare relay peers for the relay load test (issue 8 "Load", tests/integration/load-relay.test.ts): an agent
 * socket that echoes every DATA frame back to the connection it came from and checks, on the way, that each
 * frame belongs to this Burrow and arrives in order per connection; and a client socket that sends numbered
 * frames tagged with its identity and checks that exactly its own frames come back, in order.
 *
 * A frame's payload is a fixed 64-byte record (TaggedFrame) so that any byte the relay swapped between
 * sockets shows up as a wrong tag rather than as noise. Raw `ws` sockets (not relay-client's queueing
 * TestSocket): at tens of thousands of frames a queue per socket would be the test's own memory problem.
 */
import { decodeRelayToAgentFrame, encodeDataFrame } from '@burrow/protocol';
import WebSocket from 'ws';

export const TAGGED_FRAME_BYTES = 64;
/** A per-client random value in every frame, so a frame from another run or socket cannot pass for ours. */
const NONCE_BYTES = 16;

export interface FrameTag {
  readonly burrow: number;
  readonly client: number;
  readonly nonce: Uint8Array;
}

/** [burrow u16][client u16][seq u32][sentAt f64 ms][nonce 16][zero padding] — little-endian. */
export function encodeTaggedFrame(tag: FrameTag, seq: number, sentAtMs: number): Uint8Array {
  if (tag.nonce.length !== NONCE_BYTES) throw new RangeError(`nonce must be ${NONCE_BYTES} bytes`);
  const out = new Uint8Array(TAGGED_FRAME_BYTES);
  const view = new DataView(out.buffer);
  view.setUint16(0, tag.burrow, true);
  view.setUint16(2, tag.client, true);
  view.setUint32(4, seq, true);
  view.setFloat64(8, sentAtMs, true);
  out.set(tag.nonce, 16);
  return out;
}

export interface DecodedTaggedFrame extends FrameTag {
  readonly seq: number;
  readonly sentAtMs: number;
}

/** Decodes a tagged frame; RangeError if it is not exactly one (wrong length or padding). */
export function decodeTaggedFrame(bytes: Uint8Array): DecodedTaggedFrame {
  if (bytes.length !== TAGGED_FRAME_BYTES)
    throw new RangeError(`a tagged frame is ${TAGGED_FRAME_BYTES} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 16 + NONCE_BYTES; i < TAGGED_FRAME_BYTES; i++)
    if (bytes[i] !== 0) throw new RangeError('tagged frame padding is not zero');
  return {
    burrow: view.getUint16(0, true),
    client: view.getUint16(2, true),
    seq: view.getUint32(4, true),
    sentAtMs: view.getFloat64(8, true),
    nonce: bytes.slice(16, 16 + NONCE_BYTES),
  };
}

const sameNonce = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

const toBytes = (data: WebSocket.RawData): Uint8Array => {
  const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
};

/** Most distinct problems an agent or client records (the count keeps going; the text is for the failure). */
const MAX_PROBLEMS_KEPT = 20;

class Problems {
  count = 0;
  readonly first: string[] = [];
  add(text: string) {
    this.count++;
    if (this.first.length < MAX_PROBLEMS_KEPT) this.first.push(text);
  }
}

/** How long an upgrade may take before the test says which socket hung (ms). */
export const PEER_CONNECT_TIMEOUT_MS = 30_000;

function open(url: string, headers: Record<string, string>): Promise<WebSocket> {
  const ws = new WebSocket(url, {
    headers,
    perMessageDeflate: false,
    maxPayload: 1 << 17,
    handshakeTimeout: PEER_CONNECT_TIMEOUT_MS,
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) =>
      reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)),
    );
    ws.once('error', reject);
  });
}

/** One Burrow's agent socket: echoes DATA frames, checks each belongs to `burrow` and is in order per conn. */
export class EchoAgent {
  readonly problems = new Problems();
  /** connIds the relay announced (client_open). */
  readonly opened = new Set<number>();
  echoed = 0;
  closes = 0;
  readonly #byConn = new Map<number, { client: number; nonce: Uint8Array; nextSeq: number }>();

  private constructor(
    readonly burrow: number,
    readonly ws: WebSocket,
  ) {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) return; // keep-alive text
      const frame = decodeRelayToAgentFrame(toBytes(data));
      if (frame.type === 'client_open') this.opened.add(frame.connId);
      else if (frame.type === 'data') this.#data(frame.connId, frame.payload);
    });
    ws.on('close', () => this.closes++);
  }

  static async open(wsUrl: string, burrowId: string, burrowToken: string, burrow: number, source: string) {
    const ws = await open(`${wsUrl}/v1/burrows/${burrowId}/agent`, {
      Authorization: `Bearer ${burrowToken}`,
      'CF-Connecting-IP': source,
    });
    return new EchoAgent(burrow, ws);
  }

  #data(connId: number, payload: Uint8Array) {
    let f: DecodedTaggedFrame;
    try {
      f = decodeTaggedFrame(payload);
    } catch (e) {
      this.problems.add(`conn ${connId}: ${(e as Error).message}`);
      return;
    }
    if (!this.opened.has(connId)) this.problems.add(`conn ${connId}: data before client_open`);
    if (f.burrow !== this.burrow) this.problems.add(`conn ${connId}: frame of burrow ${f.burrow}`);
    const known = this.#byConn.get(connId);
    if (known === undefined) {
      this.#byConn.set(connId, { client: f.client, nonce: f.nonce, nextSeq: f.seq + 1 });
      if (f.seq !== 0) this.problems.add(`conn ${connId}: first seq ${f.seq}`);
    } else {
      if (known.client !== f.client || !sameNonce(known.nonce, f.nonce))
        this.problems.add(`conn ${connId}: frame of client ${f.client} on client ${known.client}'s conn`);
      if (f.seq !== known.nextSeq)
        this.problems.add(`conn ${connId}: seq ${f.seq}, expected ${known.nextSeq}`);
      known.nextSeq = f.seq + 1;
    }
    this.ws.send(encodeDataFrame(connId, payload));
    this.echoed++;
  }

  close() {
    this.ws.close(1000);
  }
}

/** One client socket: sends `frames` tagged frames with at most `window` unanswered, checks every echo. */
export class TaggedClient {
  readonly problems = new Problems();
  readonly rtts: number[] = [];
  received = 0;
  closes = 0;
  #sent = 0;
  #done: (() => void) | null = null;
  #frames = 0;
  #window = 0;

  private constructor(
    readonly tag: FrameTag,
    readonly ws: WebSocket,
    readonly now: () => number,
  ) {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) return;
      this.#echo(toBytes(data));
    });
    ws.on('close', () => this.closes++);
  }

  static async open(wsUrl: string, burrowId: string, tag: FrameTag, source: string, now: () => number) {
    const ws = await open(`${wsUrl}/v1/burrows/${burrowId}/client`, { 'CF-Connecting-IP': source });
    return new TaggedClient(tag, ws, now);
  }

  /** Sends `frames` frames, keeping `window` in flight; resolves when every echo came back. */
  run(frames: number, window: number): Promise<void> {
    this.#frames = frames;
    this.#window = window;
    const done = new Promise<void>((r) => {
      this.#done = r;
    });
    this.#pump();
    return done;
  }

  #pump() {
    while (this.#sent < this.#frames && this.#sent - this.received < this.#window) {
      this.ws.send(encodeTaggedFrame(this.tag, this.#sent, this.now()));
      this.#sent++;
    }
  }

  #echo(bytes: Uint8Array) {
    let f: DecodedTaggedFrame;
    try {
      f = decodeTaggedFrame(bytes);
    } catch (e) {
      this.problems.add((e as Error).message);
      return;
    }
    if (f.burrow !== this.tag.burrow || f.client !== this.tag.client || !sameNonce(f.nonce, this.tag.nonce))
      this.problems.add(`got burrow ${f.burrow} client ${f.client}'s frame ${f.seq}`);
    else if (f.seq !== this.received) this.problems.add(`seq ${f.seq}, expected ${this.received}`);
    this.rtts.push(this.now() - f.sentAtMs);
    this.received++;
    if (this.received >= this.#frames) this.#done?.();
    else this.#pump();
  }

  close() {
    this.ws.close(1000);
  }
}
