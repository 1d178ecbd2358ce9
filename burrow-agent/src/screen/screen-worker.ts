/**
 * The screen worker: every session's ScreenModel (headless xterm + line history), on one thread of its own, so
 * parsing never competes with reading the PTYs on the daemon's thread. Started by WorkerScreenHost; speaks
 * screen-worker-protocol.ts.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { ScreenModel } from './screen-model.js';
import type { FromScreenWorker, ToScreenWorker } from './screen-worker-protocol.js';

const port = parentPort;
if (port === null) throw new TypeError('screen-worker.ts runs as a worker thread');

const models = new Map<number, ScreenModel>();
const send = (m: FromScreenWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

function answer<T>(req: number, work: () => Promise<T>, reply: (value: T) => FromScreenWorker): void {
  let promise: Promise<T>;
  try {
    promise = work();
  } catch (err) {
    promise = Promise.reject(err);
  }
  promise.then(
    (value) => send(reply(value)),
    (err: unknown) => {
      const e = err instanceof Error ? err : new Error(String(err));
      send({ op: 'failed', req, name: e.name, message: e.message });
    },
  );
}

function model(id: number): ScreenModel {
  const m = models.get(id);
  if (m === undefined) throw new RangeError(`no screen model ${id}`);
  return m;
}

/**
 * Quiet this long (ms) after work, the worker collects its garbage. It has no other pressure to: after a burst
 * of parsing it sits idle, and V8 left the burst's garbage (xterm's, history's) in place — the daemon's RSS per
 * idle 10k-line session was ~1 MB over its 4 MB budget until this (bench/session-bench.ts).
 */
export const COLLECT_AFTER_IDLE_MS = 1_000;
// `gc` for this thread only; the daemon's main thread is not affected. (--expose-gc set at run time is honoured
// by contexts created after it, which is all this needs.)
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
let idle: NodeJS.Timeout | undefined;

port.on('message', (m: ToScreenWorker) => {
  clearTimeout(idle);
  idle = setTimeout(() => {
    collect();
  }, COLLECT_AFTER_IDLE_MS);
  idle.unref();
  try {
    handle(m);
  } catch (err) {
    // One model's failure (an xterm throw) must not take every session's screen down with the thread.
    send({ op: 'log', message: `screen worker: ${m.op} failed: ${(err as Error).message}` });
  }
});

function handle(m: ToScreenWorker): void {
  switch (m.op) {
    case 'open':
      models.set(m.id, new ScreenModel(m.cols, m.rows, m.offset));
      return;
    case 'write': {
      const target = models.get(m.id);
      if (target === undefined) return;
      target.write(m.data);
      // Once parsed, the batch goes back to the daemon's thread to be filled again: buffers cycle instead of
      // piling up as garbage here (dead ArrayBuffers only trigger a collection past tens of MB, which the
      // daemon's RSS kept: +3.5 MB per 10k-line session).
      void target.whenParsed((offset) => {
        const buffer = m.data.buffer as ArrayBuffer;
        send({ op: 'parsed', id: m.id, offset, buffer }, [buffer]);
      });
      return;
    }
    case 'resize':
      models.get(m.id)?.resize(m.cols, m.rows);
      return;
    case 'snapshot':
      answer(
        m.req,
        () => model(m.id).snapshot(),
        (snapshot) => ({ op: 'snapshot', req: m.req, snapshot }),
      );
      return;
    case 'history':
      answer(
        m.req,
        // After every byte handed over before the request: its lines are history by then.
        () => {
          const target = model(m.id);
          return target.whenParsed(() => target.history.read(m.before, m.count));
        },
        (page) => ({ op: 'history', req: m.req, page }),
      );
      return;
    case 'hibernate':
      answer(
        m.req,
        () => model(m.id).hibernate(),
        (parked) => ({ op: 'hibernated', req: m.req, parked }),
      );
      return;
    case 'close':
      models.get(m.id)?.dispose();
      models.delete(m.id);
      return;
  }
}
