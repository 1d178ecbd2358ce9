/**
 * The screen model on the screen worker thread (screen-worker.ts), shared by every session of the process: the
 * daemon's thread posts each hand-over (lazy-screen.ts: a copy of a stretch of the output log; the buffer is
 * transferred, not cloned, and comes back for reuse once parsed), so the PTY is read as fast as the program
 * writes while xterm parses on the other core. The worker is started on first use and never keeps the process
 * alive (unref).
 *
 * If the worker dies (it should not: the worker catches what one model throws), a new one is started and every
 * model is reopened empty at its current offset: screens and history are lost, the stream offsets stay true.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type HistoryPage, recycleBuffer, type ScreenHost, type ScreenHostOptions } from './screen-host.js';
import { checkSize, type ScreenSnapshot } from './screen-model.js';
import type { FromScreenWorker, ToScreenWorker } from './screen-worker-protocol.js';

/** Times a daemon restarts a screen worker that died before it gives up (then snapshots fail, output flows). */
export const MAX_SCREEN_WORKER_RESTARTS = 3;
/** Requests (snapshot, history, park) waiting for the worker at once, across all sessions. */
export const MAX_PENDING_SCREEN_REQUESTS = 1024;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** Messages the main thread gets that are not about one request. */
export type ScreenWorkerLog = (message: string) => void;

class ScreenWorker {
  static #shared: ScreenWorker | null = null;
  static log: ScreenWorkerLog = () => {};

  static #restarts = 0;

  static shared(): ScreenWorker {
    ScreenWorker.#shared ??= new ScreenWorker();
    return ScreenWorker.#shared;
  }

  readonly #worker: Worker;
  readonly #hosts = new Map<number, WorkerScreenHost>();
  readonly #requests = new Map<number, Pending>();
  /** Batches posted per model and not yet answered `parsed`: work the worker still owes. */
  readonly #batchesOut = new Map<number, number>();
  #reffed = false;
  #nextId = 1;
  #nextReq = 1;
  #dead = false;

  private constructor() {
    this.#worker = new Worker(
      import.meta.url.endsWith('.ts') ? sourceWorkerEntry() : new URL('./screen-worker.js', import.meta.url),
    );
    this.#worker.on('message', (m: FromScreenWorker) => this.#onMessage(m));
    this.#worker.on('error', (err) => this.#died(err));
    this.#worker.on('exit', (code) => this.#died(new Error(`the screen worker exited with code ${code}`)));
    // After the listeners (adding a 'message' listener refs the worker's port again): the worker keeps the
    // process alive only while it owes an answer (#holdWhileBusy). Always ref'd, a process that used sessions
    // in-process never exited; never ref'd, one awaiting a snapshot with nothing else to do ended mid-await.
    this.#worker.unref();
  }

  open(host: WorkerScreenHost, cols: number, rows: number, offset: number): number {
    const id = this.#nextId++;
    this.#hosts.set(id, host);
    this.post({ op: 'open', id, cols, rows, offset });
    return id;
  }

  close(id: number): void {
    this.#hosts.delete(id);
    // A closed model's queued batches are dropped unanswered.
    this.#batchesOut.delete(id);
    this.post({ op: 'close', id });
    this.#holdWhileBusy();
  }

  post(m: ToScreenWorker, transfer: ArrayBuffer[] = []): void {
    if (this.#dead) return;
    this.#worker.postMessage(m, transfer);
    if (m.op === 'write') {
      this.#batchesOut.set(m.id, (this.#batchesOut.get(m.id) ?? 0) + 1);
      this.#holdWhileBusy();
    }
  }

  /** Refs the worker while it owes an answer (a request, a batch's `parsed`), unrefs it when it owes none. */
  #holdWhileBusy(): void {
    const busy = !this.#dead && (this.#requests.size > 0 || this.#batchesOut.size > 0);
    if (busy === this.#reffed) return;
    this.#reffed = busy;
    if (busy) this.#worker.ref();
    else this.#worker.unref();
  }

  request<T>(make: (req: number) => ToScreenWorker): Promise<T> {
    if (this.#dead) return Promise.reject(new Error('the screen worker stopped'));
    if (this.#requests.size >= MAX_PENDING_SCREEN_REQUESTS) {
      return Promise.reject(new RangeError(`over ${MAX_PENDING_SCREEN_REQUESTS} screen requests pending`));
    }
    const req = this.#nextReq++;
    return new Promise<T>((resolve, reject) => {
      this.#requests.set(req, { resolve: resolve as (v: unknown) => void, reject });
      this.#holdWhileBusy();
      this.post(make(req));
    });
  }

  #onMessage(m: FromScreenWorker): void {
    if (m.op === 'parsed') {
      const out = (this.#batchesOut.get(m.id) ?? 0) - 1;
      if (out > 0) this.#batchesOut.set(m.id, out);
      else this.#batchesOut.delete(m.id);
      this.#holdWhileBusy();
      recycleBuffer(m.buffer);
      this.#hosts.get(m.id)?.parsedUpTo(m.offset);
      return;
    }
    if (m.op === 'log') {
      ScreenWorker.log(m.message);
      return;
    }
    const pending = this.#requests.get(m.req);
    if (pending === undefined) return;
    this.#requests.delete(m.req);
    this.#holdWhileBusy();
    if (m.op === 'failed') {
      const err = m.name === 'RangeError' ? new RangeError(m.message) : new Error(m.message);
      pending.reject(err);
    } else if (m.op === 'snapshot') pending.resolve(m.snapshot);
    else if (m.op === 'history') pending.resolve(m.page);
    else pending.resolve(m.parked);
  }

  #died(err: Error): void {
    if (this.#dead) return;
    this.#dead = true;
    for (const p of this.#requests.values()) p.reject(new Error(`the screen worker stopped: ${err.message}`));
    this.#requests.clear();
    this.#batchesOut.clear();
    this.#holdWhileBusy();
    const hosts = [...this.#hosts.values()];
    this.#hosts.clear();
    // A worker that cannot start at all stays dead (this one): every request fails at once, nothing spins.
    if (ScreenWorker.#restarts >= MAX_SCREEN_WORKER_RESTARTS) {
      ScreenWorker.log(`screen worker stopped (${err.message}); not restarting it again`);
      return;
    }
    ScreenWorker.#restarts++;
    if (ScreenWorker.#shared === this) ScreenWorker.#shared = null;
    ScreenWorker.log(`screen worker stopped (${err.message}); restarting it, screens start over empty`);
    for (const host of hosts) host.reopen();
  }
}

/**
 * The worker's entry when Burrow runs from its TypeScript sources (tests, benches). Node 20 cannot load .ts in
 * a worker, and registering tsx inside it took ~2 s per process at load 8 (every test file paid it); instead
 * esbuild — a dev dependency, never loaded by the built daemon — bundles the worker's few files (xterm left
 * external) into a cache file named by its content, which the worker loads like the built one.
 */
function sourceWorkerEntry(): URL {
  const require = createRequire(import.meta.url);
  const esbuild = require('esbuild') as typeof import('esbuild');
  const built = esbuild.buildSync({
    entryPoints: [fileURLToPath(new URL('./screen-worker.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: ['@xterm/*'],
    write: false,
    logLevel: 'silent',
  });
  const code = built.outputFiles[0]!.contents;
  const name = `screen-worker-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`;
  // Inside the package, so the bundle's bare imports (@xterm/headless) resolve through node_modules.
  const dir = fileURLToPath(new URL('../../node_modules/.cache/burrow-screen-worker/', import.meta.url));
  const file = join(dir, name);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    // Written aside and renamed: test files start workers in parallel processes.
    const temp = `${file}.${process.pid}`;
    writeFileSync(temp, code);
    renameSync(temp, file);
  }
  return pathToFileURL(file);
}

/** Where the screen worker's own complaints go (the daemon passes its logger). */
export function setScreenWorkerLog(log: ScreenWorkerLog): void {
  ScreenWorker.log = log;
}

export class WorkerScreenHost implements ScreenHost {
  #worker: ScreenWorker;
  #id: number;
  #cols: number;
  #rows: number;
  readonly #onProgress: () => void;
  /** Stream offset just past the last byte posted to the worker. */
  #posted = 0;
  /** Stream offset up to which the worker has parsed. */
  #parsed = 0;
  #hibernated = false;
  #disposed = false;

  constructor(options: ScreenHostOptions) {
    checkSize(options.cols, options.rows);
    this.#cols = options.cols;
    this.#rows = options.rows;
    this.#onProgress = options.onProgress;
    this.#worker = ScreenWorker.shared();
    this.#id = this.#worker.open(this, this.#cols, this.#rows, 0);
  }

  get cols(): number {
    return this.#cols;
  }

  get rows(): number {
    return this.#rows;
  }

  get backlog(): number {
    return this.#posted - this.#parsed;
  }

  get hibernated(): boolean {
    return this.#hibernated;
  }

  write(chunk: Uint8Array): void {
    if (this.#disposed || chunk.byteLength === 0) return;
    this.#hibernated = false;
    this.#posted += chunk.byteLength;
    this.#worker.post({ op: 'write', id: this.#id, data: chunk }, [chunk.buffer as ArrayBuffer]);
  }

  resize(cols: number, rows: number): void {
    checkSize(cols, rows);
    this.#cols = cols;
    this.#rows = rows;
    this.#worker.post({ op: 'resize', id: this.#id, cols, rows });
  }

  snapshot(): Promise<ScreenSnapshot> {
    const id = this.#id;
    return this.#worker.request<ScreenSnapshot>((req) => ({ op: 'snapshot', id, req }));
  }

  history(before: number, count: number): Promise<HistoryPage> {
    const id = this.#id;
    return this.#worker.request<HistoryPage>((req) => ({ op: 'history', id, req, before, count }));
  }

  async hibernate(): Promise<boolean> {
    if (this.#hibernated || this.#disposed) return false;
    const id = this.#id;
    const posted = this.#posted;
    // In order after every write posted so far: the worker parks the model once it parsed them.
    const parked = await this.#worker.request<boolean>((req) => ({ op: 'hibernate', id, req }));
    // Output that arrived meanwhile woke the model again in the worker.
    this.#hibernated = parked && this.#posted === posted;
    return parked;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#worker.close(this.#id);
  }

  /** From the worker: everything up to `offset` is parsed. */
  parsedUpTo(offset: number): void {
    if (offset <= this.#parsed) return;
    this.#parsed = offset;
    this.#onProgress();
  }

  /** The worker died: open a fresh model in the new one, at the offset reached so far. */
  reopen(): void {
    if (this.#disposed) return;
    this.#parsed = this.#posted;
    this.#hibernated = false;
    this.#worker = ScreenWorker.shared();
    this.#id = this.#worker.open(this, this.#cols, this.#rows, this.#posted);
    this.#onProgress();
  }
}
