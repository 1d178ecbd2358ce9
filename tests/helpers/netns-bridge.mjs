// The half of a test network's bridge that runs inside a network namespace (tests/helpers/netns.ts): TCP
// between the namespace's loopback and the test process, which lives in the machine's own namespace. Sockets
// cross as handles over the IPC channel, so no address of the machine is ever reachable from the namespace:
// only the ports the test names, on loopback.
//
//   { op: 'listen', port }   listen on 127.0.0.1:port here; each connection asks the parent for a socket to
//                            the same port on the machine's loopback ({ op: 'dial', id, port }), which comes
//                            back as { op: 'piped', id } with the handle
//   { op: 'expose' } + h     the parent accepted a connection on its side: connect it to 127.0.0.1:port here
import { connect, createServer } from 'node:net';

const waiting = new Map();
let next = 1;

function pipe(a, b) {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', end);
  b.on('error', end);
  a.on('close', end);
  b.on('close', end);
}

process.on('message', (m, handle) => {
  if (m.op === 'listen') {
    const server = createServer({ pauseOnConnect: true }, (inner) => {
      const id = next++;
      waiting.set(id, inner);
      process.send({ op: 'dial', id, port: m.port });
    });
    server.on('error', (e) => process.send({ op: 'error', message: `listen ${m.port}: ${e.message}` }));
    server.listen(m.port, '127.0.0.1', () => process.send({ op: 'listening', port: m.port }));
  } else if (m.op === 'piped') {
    const inner = waiting.get(m.id);
    waiting.delete(m.id);
    if (!inner) return handle?.destroy();
    if (!handle) return inner.destroy();
    pipe(inner, handle);
    inner.resume();
    handle.resume();
  } else if (m.op === 'expose' && handle) {
    const inner = connect(m.port, '127.0.0.1');
    inner.once('connect', () => {
      pipe(handle, inner);
      handle.resume();
    });
    inner.once('error', () => handle.destroy());
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ op: 'ready' });
