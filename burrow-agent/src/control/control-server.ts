/**
 * The daemon's end of the local control socket: a Unix socket inside an owner-only directory, every connection
 * authenticated by the challenge/hello/welcome handshake before a single request is read.
 */
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import * as v from 'valibot';
import { RecoveryError } from '../recovery/recovery-error.js';
import type { Logger } from '../session/activity.js';
import type { SessionInfo } from '../session/session.js';
import { ConflictError, NotFoundError } from '../session/session-errors.js';
import type { SessionRegistry } from '../session/session-registry.js';
import { ensureOwnerOnlyDir } from '../state/state-dir.js';
import type { Attachment, ViewerEvent, ViewerSink } from '../viewer/viewer.js';
import {
  type ErrorCode,
  type Method,
  type Params,
  RequestParams,
  RequestSchema,
  type Response,
  type SnapshotHeader,
  type StatusResult,
  type StreamEvent,
  StreamMessageSchema,
} from './control-messages.js';
import { type DaemonVerbs, NO_VERBS } from './daemon-verbs.js';
import {
  encodeJson,
  encodeOutput,
  encodeSnapshot,
  FrameDecoder,
  FrameError,
  FrameType,
  MAX_CLIENT_FRAME_BYTES,
  MAX_HANDSHAKE_FRAME_BYTES,
  parseJsonPayload,
} from './frame-codec.js';
import {
  clientProof,
  HANDSHAKE_BUDGET_MS,
  HelloSchema,
  newNonce,
  proofsEqual,
  serverProof,
} from './handshake.js';

/** Most simultaneous control connections (each attach is one). */
export const MAX_CONTROL_CONNECTIONS = 64;
/** Largest output frame sent to `burrow attach` (PTY reads are gathered up to this). */
export const LOCAL_OUTPUT_EVENT_BYTES = 128 * 1024;

export class DaemonRunningError extends Error {
  override readonly name = 'DaemonRunningError';
}

export interface ControlServerOptions {
  readonly socketPath: string;
  readonly token: Uint8Array;
  readonly registry: SessionRegistry;
  readonly status: () => StatusResult;
  /** Everything beyond sessions; without it those methods answer bad-request (a bare session server). */
  readonly verbs?: DaemonVerbs;
  readonly log: Logger;
  readonly handshakeBudgetMs?: number;
}

export class ControlServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private viewerSeq = 0;

  constructor(private readonly opts: ControlServerOptions) {}

  /** Binds the socket; DaemonRunningError if a live daemon already answers on it. */
  async listen(): Promise<void> {
    const path = this.opts.socketPath;
    ensureOwnerOnlyDir(dirname(path));
    if (existsSync(path)) {
      if (await isLive(path)) throw new DaemonRunningError(`a Burrow daemon is already running on ${path}`);
      unlinkSync(path); // stale socket from a crashed daemon
    }
    const server = createServer((socket) => this.accept(socket));
    server.maxConnections = MAX_CONTROL_CONNECTIONS;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    // The directory is 0700 already; the socket's own mode is belt and braces.
    chmodSync(path, 0o600);
    this.server = server;
  }

  /** Stops accepting, closes every connection (viewers see `closed: shutdown`), removes the socket. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
    if (existsSync(this.opts.socketPath)) unlinkSync(this.opts.socketPath);
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const conn = new Connection(socket, this.opts, () => `local-${++this.viewerSeq}`);
    conn.start();
  }
}

class Connection {
  private readonly decoder = new FrameDecoder(MAX_HANDSHAKE_FRAME_BYTES);
  private state: 'handshake' | 'ready' | 'attached' | 'pairing' = 'handshake';
  /** While pairing: answers the phone's request that is waiting for the owner. */
  private pairAnswer: ((accept: boolean) => void) | null = null;
  private readonly nonce = newNonce();
  private timer: NodeJS.Timeout | undefined;
  private attachment: Attachment | undefined;
  private queue = Promise.resolve();
  /** Aborted when the socket closes: cancels an `await` this connection is waiting on. */
  private readonly closed = new AbortController();
  private readonly realmId: string;
  private readonly verbs: DaemonVerbs;

  constructor(
    private readonly socket: Socket,
    private readonly opts: ControlServerOptions,
    private readonly nextViewerId: () => string,
  ) {
    this.realmId = nextViewerId();
    this.verbs = opts.verbs ?? NO_VERBS;
  }

  start(): void {
    this.timer = setTimeout(
      () => this.reject('handshake timed out'),
      this.opts.handshakeBudgetMs ?? HANDSHAKE_BUDGET_MS,
    );
    this.socket.on('data', (chunk) => this.onData(chunk));
    this.socket.on('close', () => {
      clearTimeout(this.timer);
      this.attachment?.detach();
      this.closed.abort();
      this.verbs.realmGone(this.realmId);
    });
    this.socket.write(encodeJson({ type: 'challenge', v: 1, nonce: this.nonce }));
  }

  private reject(why: string): void {
    // No reason goes back to the peer: an unauthenticated client learns nothing.
    this.opts.log('warn', `control: dropped a connection: ${why}`);
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    let frames: ReturnType<FrameDecoder['push']>;
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      this.reject(err instanceof FrameError ? err.message : 'unreadable frame');
      return;
    }
    for (const f of frames) {
      if (this.socket.destroyed) return;
      try {
        if (this.state === 'handshake') this.onHello(f.type, f.payload);
        else if (f.type === FrameType.Input && this.state === 'attached') this.attachment!.input(f.payload);
        else if (f.type !== FrameType.Json) throw new FrameError(`unexpected frame type ${f.type}`);
        else if (this.state === 'attached' || this.state === 'pairing')
          this.onStreamMessage(parseJsonPayload(f.payload));
        else {
          const json = parseJsonPayload(f.payload);
          // Requests run one at a time, in order, so responses come back in request order.
          this.queue = this.queue.then(() => this.onRequest(json));
        }
      } catch (err) {
        this.reject(err instanceof Error ? err.message : 'bad frame');
        return;
      }
    }
  }

  private onHello(type: number, payload: Uint8Array): void {
    if (type !== FrameType.Json) throw new FrameError('first frame is not a hello');
    const hello = v.safeParse(HelloSchema, parseJsonPayload(payload));
    if (!hello.success) throw new FrameError('first frame is not a valid hello');
    if (!proofsEqual(hello.output.proof, clientProof(this.opts.token, this.nonce))) {
      throw new FrameError('client proof did not verify (wrong token?)');
    }
    clearTimeout(this.timer);
    this.state = 'ready';
    this.decoder.setLimit(MAX_CLIENT_FRAME_BYTES);
    this.socket.write(
      encodeJson({ type: 'welcome', proof: serverProof(this.opts.token, hello.output.nonce) }),
    );
  }

  private async onRequest(json: unknown): Promise<void> {
    if (this.state !== 'ready' || this.socket.destroyed) return;
    const req = v.safeParse(RequestSchema, json);
    if (!req.success) {
      this.reject('malformed request');
      return;
    }
    const { id, method } = req.output;
    const params = v.safeParse(RequestParams[method], req.output.params);
    if (!params.success) {
      this.respond({
        id,
        ok: false,
        error: { code: 'bad-request', message: `bad ${method} params: ${params.issues[0]?.message}` },
      });
      return;
    }
    try {
      if (method === 'attach') {
        this.startAttach(id, params.output as Params<'attach'>);
        return;
      }
      if (method === 'pair') {
        await this.startPair(id, params.output as Params<'pair'>);
        return;
      }
      const result = await this.handle(method, params.output);
      this.respond({ id, ok: true, result });
    } catch (err) {
      this.respond({ id, ok: false, error: errorOf(err) });
    }
  }

  /** A session row: its SessionInfo with the attention fields over it (`state`, `argv`, `status`…). */
  private described(s: SessionInfo): Record<string, unknown> {
    return { ...s, ...this.verbs.describe(s) };
  }

  private async handle(method: Exclude<Method, 'attach' | 'pair'>, params: unknown): Promise<unknown> {
    const reg = this.opts.registry;
    switch (method) {
      case 'status':
        return this.opts.status();
      case 'list':
        return { sessions: reg.list().map((s) => this.described(s)) };
      // One shape for every session row (issue 13): `new`, `kill` and `rename` answer as `ls` lists.
      case 'create': {
        const p = params as Params<'create'>;
        return { session: this.described(reg.create(p).info()) };
      }
      case 'kill':
        return { session: this.described(await reg.kill((params as Params<'kill'>).session)) };
      case 'rename': {
        const p = params as Params<'rename'>;
        return { session: this.described(reg.rename(p.session, p.name).info()) };
      }
      case 'history': {
        const p = params as Params<'history'>;
        return reg.get(p.session).history(p.before, p.count);
      }
      default:
        return this.verbs.handle(method, params as Params<typeof method>, {
          realmId: this.realmId,
          signal: this.closed.signal,
        });
    }
  }

  /**
   * `burrow pair` (DESIGN §4.2): the daemon opens the offer and answers with the link; when a phone proves it
   * holds the link's secret the CLI gets the code and label and answers y/N. The CLI going away (Ctrl-C)
   * cancels the offer at once and declines any request waiting for it.
   */
  private async startPair(id: number, p: Params<'pair'>): Promise<void> {
    const remote = this.verbs;
    let finished = false;
    const { started, cancel } = await remote.startPairing({
      label: p.label,
      approve: (r) =>
        new Promise<boolean>((resolve) => {
          if (this.socket.destroyed) return resolve(false);
          this.pairAnswer = resolve;
          this.event({ event: 'pair-request', code: r.code, label: r.label, platform: r.platform });
        }),
      done: (r) => {
        finished = true;
        this.pairAnswer = null;
        this.event({
          event: 'pair-done',
          outcome: r.outcome,
          message: r.outcome === 'paired' ? 'paired' : r.message,
          deviceId: r.outcome === 'paired' ? r.deviceId : null,
          label: r.outcome === 'paired' ? r.label : null,
        });
        this.socket.end();
      },
    });
    this.state = 'pairing';
    this.socket.on('close', () => {
      if (finished) return;
      this.pairAnswer?.(false);
      this.pairAnswer = null;
      cancel();
    });
    this.respond({ id, ok: true, result: started });
  }

  private startAttach(id: number, p: Params<'attach'>): void {
    const session = this.opts.registry.get(p.session);
    const socket = this.socket;
    let pending: ViewerEvent[] | null = [];
    const send = (e: ViewerEvent) => {
      if (socket.destroyed) return;
      if (e.type === 'output') socket.write(encodeOutput(e.offset, e.data));
      else if (e.type === 'snapshot') {
        const { data, ...rest } = e.snapshot;
        const header: SnapshotHeader = { ...rest, reason: e.reason };
        socket.write(encodeSnapshot(header, data));
      } else if (e.type === 'size') {
        const { type: _, ...size } = e;
        this.event({ event: 'size', ...size });
      } else this.event({ event: 'exit', exitCode: e.exitCode, signal: e.signal });
    };
    const sink: ViewerSink = {
      id: this.nextViewerId(),
      kind: 'local',
      maxOutputBytes: LOCAL_OUTPUT_EVENT_BYTES,
      // Lossless (viewer.ts): what the socket has not written yet holds the PTY once it passes the bound.
      backlog: () => socket.writableLength,
      deliver: (e) => (pending === null ? send(e) : pending.push(e)),
      close: (reason) => {
        this.attachment = undefined;
        this.event({ event: 'closed', reason });
        socket.end();
      },
    };
    const size = p.cols !== undefined && p.rows !== undefined ? { cols: p.cols, rows: p.rows } : undefined;
    const attachment = session.attach(sink, {
      ...(p.resumeFrom !== undefined ? { resumeFrom: p.resumeFrom } : {}),
      ...(size !== undefined ? { size } : {}),
    });
    this.attachment = attachment;
    this.state = 'attached';
    this.respond({ id, ok: true, result: { session: session.info(), viewerId: sink.id } });
    const early = pending;
    pending = null;
    for (const e of early) send(e);
    socket.on('drain', () => this.attachment?.drained());
  }

  private onStreamMessage(json: unknown): void {
    const msg = v.safeParse(StreamMessageSchema, json);
    if (!msg.success) throw new FrameError('malformed stream message');
    const m = msg.output;
    if (m.type === 'pair-answer') {
      const answer = this.pairAnswer;
      this.pairAnswer = null;
      answer?.(m.accept);
      return;
    }
    const a = this.attachment;
    if (a === undefined) return;
    if (m.type === 'resize') a.resize(m.cols, m.rows);
    else if (m.type === 'fit') a.fit(m.cols, m.rows);
    else if (m.type === 'resync') a.resync();
    else if (m.type === 'presence') a.presence({ focused: m.focused });
    else if (m.type === 'typing') a.presence({ typing: true });
    else {
      a.detach();
    }
  }

  private respond(r: Response): void {
    if (!this.socket.destroyed) this.socket.write(encodeJson(r));
  }

  private event(e: StreamEvent): void {
    if (!this.socket.destroyed) this.socket.write(encodeJson(e));
  }
}

function errorOf(err: unknown): { code: ErrorCode; message: string } {
  if (err instanceof NotFoundError) return { code: 'not-found', message: err.message };
  if (err instanceof ConflictError) return { code: 'conflict', message: err.message };
  if (err instanceof RecoveryError) return { code: 'failed', message: err.message };
  if (err instanceof RangeError || err instanceof TypeError)
    return { code: 'bad-request', message: err.message };
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}

/** DaemonRunningError if a live daemon answers on `path`: checked before a daemon opens its state files. */
export async function assertNoDaemonOn(path: string): Promise<void> {
  if (existsSync(path) && (await isLive(path)))
    throw new DaemonRunningError(`a Burrow daemon is already running on ${path}`);
}

/** True if something accepts connections on `path` (a running daemon), false if the socket is stale. */
function isLive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
