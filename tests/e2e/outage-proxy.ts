/**
 * A TCP forwarder in front of the relay that can go down and come back on the same port, so the phone (whose
 * origin — and IndexedDB — is that port) sees the relay vanish and return (issue 5: "kill the relay and
 * restart it"). `cut()` drops every connection and stops listening; `restore()` listens again.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from '../../relay-worker/test/harness.js';

export interface OutageProxy {
  readonly url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOutageProxy(targetPort: number): Promise<OutageProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(targetPort, '127.0.0.1');
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const end = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
      server = s;
    });
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (server === null) return resolve();
      server.close(() => resolve());
      server = null;
    });
  await listen();
  return { url: `http://127.0.0.1:${port}`, cut: close, restore: listen, stop: close };
}
