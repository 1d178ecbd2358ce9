/**
 * The screen worker: every session's ScreenModel (headless xterm + line history), on one thread of its own, so
 * parsing never competes with reading the PTYs on the daemon's thread. Started by WorkerScreenHost; speaks
 * screen-worker-protocol.ts.
 */
import { parentPort } from 'node:worker_threads';
import { ScreenModel } from './screen-model.js';
import type { FromScreenWorker, ToScreenWorker } from './screen-worker-protocol.js';

const port = parentPort;
if (port === null) throw new TypeError('screen-worker.ts runs as a worker thread');

const models = new Map<number, ScreenModel>();
const send = (m: FromScreenWorker) => port.postMessage(m);

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

port.on('message', (m: ToScreenWorker) => {
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
      void target.whenParsed((offset) => send({ op: 'parsed', id: m.id, offset }));
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
        async () => model(m.id).history.read(m.before, m.count),
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
