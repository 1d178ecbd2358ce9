/**
 * A WebSocket-aware man in the middle between one peer (a phone) and the relay: it plays the untrusted relay of
 * DESIGN §2, which can alter, drop, reorder, duplicate or replay anything it forwards. The HTTP upgrade passes
 * through (minus any `Sec-WebSocket-Extensions` offer, so no permessage-deflate and a flipped bit lands in the
 * Noise ciphertext itself); after it, both directions are parsed as RFC 6455 §5.2 frames — the client's masked
 * frames (§5.3) are unmasked, edited, and masked again with a fresh key. A "message" is one data frame plus its
 * continuations (§5.4); control frames pass at once and close codes (§5.5.1) are recorded. Every action is
 * armed on command, for one direction of one connection, and reports the message it hit.
 */
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';

/** `toRelay`: the peer's frames (masked); `fromRelay`: the relay's frames toward the peer (unmasked). */
export type Direction = 'toRelay' | 'fromRelay';

/**
 * flip: one bit of the payload inverted · drop: never forwarded · duplicate: forwarded twice · reorder: held
 * until the next binary message has gone first · hold: held, with everything after it, until `release()`.
 */
export type TamperAction = 'flip' | 'drop' | 'duplicate' | 'reorder' | 'hold';

export interface ArmOptions {
  /** Only a binary message this predicate accepts is hit (default: the next binary message). */
  readonly match?: (payload: Uint8Array, index: number) => boolean;
}

/** What an armed action hit: its index among the direction's binary messages, and its payload length. */
export interface TamperEvent {
  readonly action: TamperAction;
  readonly index: number;
  readonly length: number;
}

export interface TamperConnection {
  readonly id: number;
  /** The upgrade request's path, e.g. `/v1/burrows/<id>/client`. */
  readonly path: string;
  /** The last MAX_KEPT_MESSAGES binary payloads seen in `d`, as received (before any tampering). */
  messages(d: Direction): readonly Uint8Array[];
  /** How many binary messages were seen in `d` in total. */
  count(d: Direction): number;
  /** Close codes of the close frames seen in `d` (1005 for a close frame without a code). */
  closeCodes(d: Direction): readonly number[];
  /** True once either TCP side has ended. */
  readonly ended: boolean;
  arm(d: Direction, action: TamperAction, options?: ArmOptions): Promise<TamperEvent>;
  /** Sends `payload` as one binary message in `d`, as if the peer (or the relay) had sent it. */
  inject(d: Direction, payload: Uint8Array): void;
  /** Forwards what a `hold` kept, in order, and stops holding. */
  release(d: Direction): void;
}

export interface TamperProxy {
  readonly url: string;
  readonly port: number;
  readonly connections: readonly TamperConnection[];
  /** The next connection accepted (resolves before any of its bytes are parsed, so it can be armed first). */
  nextConnection(): Promise<TamperConnection>;
  stop(): Promise<void>;
}

/** Connections held at once; a runaway reconnect loop in a test must not grow without bound. */
export const MAX_TAMPER_CONNECTIONS = 64;
/** Binary payloads kept per direction per connection (for replay and for the test to inspect). */
export const MAX_KEPT_MESSAGES = 512;
/** Largest frame payload accepted: a relay frame is ≤ 65540 bytes (SPEC-relay RL-ROUTE-7), with room to spare. */
export const MAX_FRAME_PAYLOAD_BYTES = 1 << 20;
/** Largest HTTP upgrade head (request or response) passed through. */
export const MAX_HTTP_HEAD_BYTES = 16 * 1024;

const OP_CONTINUATION = 0x0;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const HEAD_END = Buffer.from('\r\n\r\n');

/** Thrown for a byte stream that is not RFC 6455 (the proxy then cuts both sides). */
export class TamperProxyError extends Error {
  override readonly name = 'TamperProxyError';
}

interface Frame {
  readonly fin: boolean;
  readonly rsv: number;
  readonly opcode: number;
  readonly payload: Buffer;
  readonly raw: Buffer;
}

/** Parses one frame from the front of `buf`; null when it is not all there yet. Payload comes out unmasked. */
export function parseFrame(buf: Buffer): { frame: Frame; used: number } | null {
  if (buf.length < 2) return null;
  const b0 = buf[0]!;
  const b1 = buf[1]!;
  let len = b1 & 0x7f;
  let at = 2;
  if (len === 126) {
    if (buf.length < 4) return null;
    len = buf.readUInt16BE(2);
    at = 4;
  } else if (len === 127) {
    if (buf.length < 10) return null;
    const big = buf.readBigUInt64BE(2);
    if (big > BigInt(MAX_FRAME_PAYLOAD_BYTES)) throw new TamperProxyError('frame payload over the bound');
    len = Number(big);
    at = 10;
  }
  if (len > MAX_FRAME_PAYLOAD_BYTES) throw new TamperProxyError('frame payload over the bound');
  const masked = (b1 & 0x80) !== 0;
  const mask = masked ? buf.subarray(at, at + 4) : null;
  if (masked) at += 4;
  if (buf.length < at + len) return null;
  const payload = Buffer.from(buf.subarray(at, at + len));
  if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!;
  const raw = Buffer.from(buf.subarray(0, at + len));
  return {
    frame: { fin: (b0 & 0x80) !== 0, rsv: (b0 >> 4) & 0x7, opcode: b0 & 0xf, payload, raw },
    used: at + len,
  };
}

/** One FIN frame; masked with a fresh key when `masked` (a client's frame, RFC 6455 §5.3). */
export function encodeFrame(opcode: number, payload: Uint8Array, masked: boolean): Buffer {
  const len = payload.length;
  const ext = len < 126 ? 0 : len < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + ext + (masked ? 4 : 0));
  head[0] = 0x80 | opcode;
  head[1] = (masked ? 0x80 : 0) | (ext === 0 ? len : ext === 2 ? 126 : 127);
  if (ext === 2) head.writeUInt16BE(len, 2);
  if (ext === 8) head.writeBigUInt64BE(BigInt(len), 2);
  const body = Buffer.from(payload);
  if (masked) {
    const key = randomBytes(4);
    key.copy(head, 2 + ext);
    for (let i = 0; i < body.length; i++) body[i]! ^= key[i & 3]!;
  }
  return Buffer.concat([head, body]);
}

interface Arming {
  readonly action: TamperAction;
  readonly match: (payload: Uint8Array, index: number) => boolean;
  readonly resolve: (e: TamperEvent) => void;
}

/** One direction of one connection: parse, keep, tamper, forward. */
class Lane {
  #buf: Buffer = Buffer.alloc(0);
  #headDone = false;
  #fragments: Frame[] = [];
  #count = 0;
  readonly kept: Uint8Array[] = [];
  readonly closeCodes: number[] = [];
  #armings: Arming[] = [];
  /** Held messages (encoded) while a `hold` or a `reorder` is pending. */
  #held: Buffer[] = [];
  #holding: 'no' | 'hold' | 'reorder' = 'no';

  constructor(
    readonly direction: Direction,
    readonly out: Socket,
    readonly onHead: (head: string) => string,
  ) {}

  get count(): number {
    return this.#count;
  }

  get masked(): boolean {
    return this.direction === 'toRelay';
  }

  push(chunk: Buffer): void {
    this.#buf = Buffer.concat([this.#buf, chunk]);
    if (!this.#headDone) {
      const end = this.#buf.indexOf(HEAD_END);
      if (end < 0) {
        if (this.#buf.length > MAX_HTTP_HEAD_BYTES) throw new TamperProxyError('HTTP head over the bound');
        return;
      }
      const head = this.#buf.subarray(0, end + HEAD_END.length).toString('latin1');
      this.#buf = this.#buf.subarray(end + HEAD_END.length);
      this.#headDone = true;
      this.out.write(this.onHead(head), 'latin1');
    }
    for (;;) {
      const parsed = parseFrame(this.#buf);
      if (!parsed) return;
      this.#buf = this.#buf.subarray(parsed.used);
      this.#frame(parsed.frame);
    }
  }

  #frame(f: Frame): void {
    if (f.opcode >= 0x8) {
      if (f.opcode === OP_CLOSE)
        this.closeCodes.push(f.payload.length >= 2 ? f.payload.readUInt16BE(0) : 1005);
      this.out.write(f.raw);
      return;
    }
    if (f.opcode !== OP_CONTINUATION && this.#fragments.length > 0)
      throw new TamperProxyError('a new data frame inside a fragmented message');
    if (f.opcode === OP_CONTINUATION && this.#fragments.length === 0)
      throw new TamperProxyError('a continuation frame with nothing to continue');
    this.#fragments.push(f);
    if (!f.fin) return;
    const frames = this.#fragments;
    this.#fragments = [];
    const first = frames[0]!;
    if (first.opcode !== OP_BINARY) {
      this.#emit(Buffer.concat(frames.map((x) => x.raw)));
      return;
    }
    if (first.rsv !== 0)
      throw new TamperProxyError('a compressed message (RSV1): extensions were not stripped');
    const payload = Buffer.concat(frames.map((x) => x.payload));
    const index = this.#count++;
    this.kept.push(Uint8Array.from(payload));
    if (this.kept.length > MAX_KEPT_MESSAGES) this.kept.shift();
    const original = Buffer.concat(frames.map((x) => x.raw));
    const at = this.#armings.findIndex((a) => a.match(payload, index));
    if (at < 0) {
      this.#emit(original);
      return;
    }
    const arming = this.#armings.splice(at, 1)[0]!;
    const event: TamperEvent = { action: arming.action, index, length: payload.length };
    switch (arming.action) {
      case 'flip': {
        const altered = Buffer.from(payload);
        altered[altered.length >> 1]! ^= 0x01;
        this.#emit(encodeFrame(OP_BINARY, altered, this.masked));
        break;
      }
      case 'drop':
        break;
      case 'duplicate':
        this.#emit(original);
        this.#emit(encodeFrame(OP_BINARY, payload, this.masked));
        break;
      case 'reorder':
      case 'hold':
        if (this.#holding !== 'no') throw new TamperProxyError('already holding in this direction');
        this.#holding = arming.action;
        this.#held.push(original);
        break;
    }
    arming.resolve(event);
  }

  /** Forwards one encoded message, honouring a pending hold or reorder. */
  #emit(bytes: Buffer): void {
    if (this.#holding === 'hold') {
      this.#held.push(bytes);
      return;
    }
    if (this.#holding === 'reorder') {
      this.out.write(bytes); // the later message overtakes the held one…
      this.release(); // …which follows it
      return;
    }
    this.out.write(bytes);
  }

  arm(action: TamperAction, options: ArmOptions): Promise<TamperEvent> {
    return new Promise((resolve) => {
      this.#armings.push({ action, match: options.match ?? (() => true), resolve });
    });
  }

  inject(payload: Uint8Array): void {
    if (!this.#headDone) throw new TamperProxyError('cannot inject before the upgrade');
    this.#emit(encodeFrame(OP_BINARY, payload, this.masked));
  }

  release(): void {
    const held = this.#held;
    this.#held = [];
    this.#holding = 'no';
    for (const b of held) this.out.write(b);
  }
}

/** Drops any extension offer from the client's upgrade request (RFC 6455 §9.1), so frames stay uncompressed. */
function stripExtensions(head: string): string {
  return head
    .split('\r\n')
    .filter((line) => !/^sec-websocket-extensions\s*:/i.test(line))
    .join('\r\n');
}

export async function startTamperProxy(targetPort: number): Promise<TamperProxy> {
  const connections: TamperConnection[] = [];
  const sockets = new Set<Socket>();
  const waiters: ((c: TamperConnection) => void)[] = [];
  let nextId = 1;
  const server = createServer((client) => {
    if (sockets.size >= 2 * MAX_TAMPER_CONNECTIONS) {
      client.destroy();
      return;
    }
    const relay = connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(relay);
    let path = '';
    let ended = false;
    const lanes: Record<Direction, Lane> = {
      toRelay: new Lane('toRelay', relay, (head) => {
        path = /^GET (\S+) /.exec(head)?.[1] ?? '';
        return stripExtensions(head);
      }),
      fromRelay: new Lane('fromRelay', client, (head) => head),
    };
    const end = () => {
      ended = true;
      client.destroy();
      relay.destroy();
      sockets.delete(client);
      sockets.delete(relay);
    };
    const feed = (lane: Lane) => (d: Buffer) => {
      try {
        lane.push(d);
      } catch (error) {
        if (!(error instanceof TamperProxyError)) throw error;
        end();
      }
    };
    client.on('data', feed(lanes.toRelay));
    relay.on('data', feed(lanes.fromRelay));
    for (const s of [client, relay]) {
      s.on('close', end);
      s.on('error', end);
    }
    const conn: TamperConnection = {
      id: nextId++,
      get path() {
        return path;
      },
      get ended() {
        return ended;
      },
      messages: (d) => lanes[d].kept,
      count: (d) => lanes[d].count,
      closeCodes: (d) => lanes[d].closeCodes,
      arm: (d, action, options = {}) => lanes[d].arm(action, options),
      inject: (d, payload) => lanes[d].inject(payload),
      release: (d) => lanes[d].release(),
    };
    connections.push(conn);
    if (connections.length > MAX_TAMPER_CONNECTIONS) connections.shift();
    for (const w of waiters.splice(0)) w(conn);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connections,
    nextConnection: () => new Promise((r) => waiters.push(r)),
    stop: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
