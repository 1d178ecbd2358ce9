/**
 * The CLI's end of the control socket: connect, prove the token and verify the daemon's proof before sending
 * anything else, then requests — or one attach stream.
 */
import { createConnection, type Socket } from 'node:net';
import * as v from 'valibot';
import { MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from '../screen/screen-limits.js';
import {
  type Method,
  type Params,
  SIZE_CAUSES,
  SIZE_HOLDERS,
  type SnapshotHeader,
  type StreamEvent,
  type StreamMessage,
} from './control-messages.js';
import {
  decodeOutput,
  decodeSnapshot,
  encodeFrame,
  encodeJson,
  type Frame,
  FrameDecoder,
  FrameError,
  FrameType,
  MAX_DAEMON_FRAME_BYTES,
  MAX_HANDSHAKE_FRAME_BYTES,
  parseJsonPayload,
} from './frame-codec.js';
import {
  ChallengeSchema,
  clientProof,
  HANDSHAKE_BUDGET_MS,
  newNonce,
  proofsEqual,
  serverProof,
  WelcomeSchema,
} from './handshake.js';

/** Nothing is listening: the daemon is not running. */
export class DaemonNotRunningError extends Error {
  override readonly name = 'DaemonNotRunningError';
}

/** The daemon answered a request with an error. */
export class ControlRequestError extends Error {
  override readonly name = 'ControlRequestError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const ResponseSchema = v.union([
  v.object({ id: v.number(), ok: v.literal(true), result: v.unknown() }),
  v.object({
    id: v.number(),
    ok: v.literal(false),
    error: v.object({ code: v.string(), message: v.string() }),
  }),
]);
const EventSchema = v.variant('event', [
  v.object({
    event: v.literal('size'),
    cols: v.pipe(v.number(), v.integer(), v.minValue(MIN_COLS), v.maxValue(MAX_COLS)),
    rows: v.pipe(v.number(), v.integer(), v.minValue(MIN_ROWS), v.maxValue(MAX_ROWS)),
    cause: v.picklist(SIZE_CAUSES),
    holder: v.nullable(v.picklist(SIZE_HOLDERS)),
    holderAway: v.boolean(),
  }),
  v.object({ event: v.literal('exit'), exitCode: v.nullable(v.number()), signal: v.nullable(v.number()) }),
  v.object({ event: v.literal('closed'), reason: v.string() }),
  v.object({
    event: v.literal('pair-request'),
    code: v.pipe(v.string(), v.regex(/^\d{6}$/)),
    label: v.pipe(v.string(), v.maxLength(1024)),
    platform: v.pipe(v.string(), v.maxLength(1024)),
  }),
  v.object({
    event: v.literal('pair-done'),
    outcome: v.picklist(['paired', 'declined', 'timeout', 'failed']),
    message: v.pipe(v.string(), v.maxLength(1024)),
    deviceId: v.nullable(v.string()),
    label: v.nullable(v.pipe(v.string(), v.maxLength(1024))),
  }),
]);
const SnapshotHeaderSchema = v.object({
  cols: v.number(),
  rows: v.number(),
  offset: v.number(),
  historyEnd: v.number(),
  reason: v.picklist(['attach', 'resync']),
});

export interface StreamHandlers {
  /**
   * The attach's answer (the session's info), as it is read: before any frame that follows it, so the first
   * snapshot can already use it (the returned promise resolves a turn later, after the snapshot was drawn).
   */
  attached?(result: unknown): void;
  snapshot(header: SnapshotHeader, data: string): void;
  output(offset: number, data: Uint8Array): void;
  event(e: StreamEvent): void;
  /** The connection ended (daemon closed it, or it failed). */
  end(error?: Error): void;
}

export class ControlClient {
  private readonly decoder = new FrameDecoder(MAX_HANDSHAKE_FRAME_BYTES);
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>();
  private stream: StreamHandlers | undefined;
  private failure: Error | undefined;

  private constructor(private readonly socket: Socket) {}

  /** Connects and completes the handshake; DaemonNotRunningError if nothing listens on `socketPath`. */
  static connect(
    socketPath: string,
    token: Uint8Array,
    budgetMs = HANDSHAKE_BUDGET_MS,
  ): Promise<ControlClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(socketPath);
      const client = new ControlClient(socket);
      const timer = setTimeout(
        () => fail(new Error('the daemon did not complete the handshake in time')),
        budgetMs,
      );
      const fail = (err: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(err);
      };
      socket.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED')
          fail(new DaemonNotRunningError('the daemon is not running'));
        else fail(err);
      });
      socket.once('close', () =>
        fail(new Error('the daemon closed the connection during the handshake (wrong token?)')),
      );
      const myNonce = newNonce();
      let step: 'challenge' | 'welcome' = 'challenge';
      const onData = (chunk: Buffer) => {
        let frames: Frame[];
        try {
          frames = client.decoder.push(chunk);
        } catch (err) {
          fail(err as Error);
          return;
        }
        for (const [i, f] of frames.entries()) {
          if (f.type !== FrameType.Json) return fail(new FrameError('handshake frame is not JSON'));
          let json: unknown;
          try {
            json = parseJsonPayload(f.payload);
          } catch (err) {
            return fail(err as Error);
          }
          if (step === 'challenge') {
            const ch = v.safeParse(ChallengeSchema, json);
            if (!ch.success) return fail(new FrameError('the daemon sent no valid challenge'));
            socket.write(
              encodeJson({ type: 'hello', v: 1, nonce: myNonce, proof: clientProof(token, ch.output.nonce) }),
            );
            step = 'welcome';
          } else {
            const w = v.safeParse(WelcomeSchema, json);
            // Verify the daemon knows the token too before sending or reading anything else.
            if (!w.success || !proofsEqual(w.output.proof, serverProof(token, myNonce))) {
              return fail(new FrameError('the daemon failed to prove the token; refusing to talk to it'));
            }
            clearTimeout(timer);
            socket.removeAllListeners('close');
            socket.removeAllListeners('error');
            socket.off('data', onData);
            client.decoder.setLimit(MAX_DAEMON_FRAME_BYTES);
            client.listen();
            resolve(client);
            const rest = frames.slice(i + 1);
            for (const r of rest) client.onFrame(r);
            return;
          }
        }
      };
      socket.on('data', onData);
    });
  }

  request<M extends Exclude<Method, 'attach' | 'pair'>>(method: M, params: Params<M>): Promise<unknown> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.socket.write(encodeJson({ id, method, params }));
    });
  }

  /** Turns this connection into an attach stream; resolves with the attach result. */
  attach(params: Params<'attach'>, handlers: StreamHandlers): Promise<unknown> {
    this.stream = handlers;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const answered = (result: unknown) => {
        handlers.attached?.(result);
        resolve(result);
      };
      this.waiting.set(id, { resolve: answered, reject });
      this.socket.write(encodeJson({ id, method: 'attach', params }));
    });
  }

  /** Turns this connection into a pairing conversation; resolves with the link (PairingStarted). */
  pair(params: Params<'pair'>, handlers: Pick<StreamHandlers, 'event' | 'end'>): Promise<unknown> {
    this.stream = { ...handlers, snapshot: () => {}, output: () => {} };
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.socket.write(encodeJson({ id, method: 'pair', params }));
    });
  }

  send(message: StreamMessage): void {
    if (!this.socket.destroyed) this.socket.write(encodeJson(message));
  }

  input(data: Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(encodeFrame(FrameType.Input, data));
  }

  /**
   * Stops reading the daemon's stream (the local terminal is behind): the daemon's socket fills, and the
   * session holds its PTY until `resumeStream` (viewer.ts: local viewers are lossless). Frames already read
   * are still delivered.
   */
  pauseStream(): void {
    this.socket.pause();
  }

  resumeStream(): void {
    this.socket.resume();
  }

  close(): void {
    this.socket.end();
  }

  private listen(): void {
    this.socket.on('data', (chunk) => {
      let frames: Frame[];
      try {
        frames = this.decoder.push(chunk);
      } catch (err) {
        this.fail(err as Error);
        return;
      }
      for (const f of frames) this.onFrame(f);
    });
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.fail(undefined));
  }

  private onFrame(f: Frame): void {
    try {
      if (f.type === FrameType.Output && this.stream) {
        const o = decodeOutput(f.payload);
        this.stream.output(o.offset, o.data);
      } else if (f.type === FrameType.Snapshot && this.stream) {
        const s = decodeSnapshot(f.payload);
        const h = v.safeParse(SnapshotHeaderSchema, s.header);
        if (!h.success) throw new FrameError('bad snapshot header');
        this.stream.snapshot(h.output, s.data);
      } else if (f.type === FrameType.Json) {
        const json = parseJsonPayload(f.payload);
        const r = v.safeParse(ResponseSchema, json);
        if (r.success) {
          const w = this.waiting.get(r.output.id);
          if (w === undefined) throw new FrameError(`response to unknown request ${r.output.id}`);
          this.waiting.delete(r.output.id);
          if (r.output.ok) w.resolve(r.output.result);
          else w.reject(new ControlRequestError(r.output.error.code, r.output.error.message));
          return;
        }
        const e = v.safeParse(EventSchema, json);
        if (e.success && this.stream) this.stream.event(e.output as StreamEvent);
        else throw new FrameError('unexpected message from the daemon');
      } else {
        throw new FrameError(`unexpected frame type ${f.type}`);
      }
    } catch (err) {
      this.fail(err as Error);
    }
  }

  private fail(err: Error | undefined): void {
    if (this.failure !== undefined) return;
    this.failure = err ?? new Error('the daemon closed the connection');
    this.socket.destroy();
    for (const w of this.waiting.values()) w.reject(this.failure);
    this.waiting.clear();
    this.stream?.end(err);
  }
}
