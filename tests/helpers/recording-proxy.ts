/**
 * A TCP proxy in front of the relay that keeps every byte in both directions, so a test can assert what the
 * relay handled (DESIGN §2: the relay never sees terminal bytes, keystrokes or session names). WebSocket
 * frames from clients are masked (RFC 6455 §5.3) but the relay's own frames toward the Burrow and the phone are
 * not, so anything the relay could read shows up in `fromRelay`.
 */
import { connect, createServer, type Socket } from 'node:net';

/** Bound on what is recorded (bytes per direction); tests move far less. */
export const MAX_RECORDED_BYTES = 64 * 1024 * 1024;

export interface RecordingProxy {
  readonly url: string;
  toRelay(): Buffer;
  fromRelay(): Buffer;
  stop(): Promise<void>;
}

export async function startRecordingProxy(targetPort: number): Promise<RecordingProxy> {
  const up: Buffer[] = [];
  const down: Buffer[] = [];
  let upBytes = 0;
  let downBytes = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const relay = connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(relay);
    client.on('data', (d) => {
      if (upBytes + d.length <= MAX_RECORDED_BYTES) up.push(Buffer.from(d));
      upBytes += d.length;
      relay.write(d);
    });
    relay.on('data', (d) => {
      if (downBytes + d.length <= MAX_RECORDED_BYTES) down.push(Buffer.from(d));
      downBytes += d.length;
      client.write(d);
    });
    const end = () => {
      client.destroy();
      relay.destroy();
      sockets.delete(client);
      sockets.delete(relay);
    };
    client.on('close', end);
    relay.on('close', end);
    client.on('error', end);
    relay.on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    toRelay: () => Buffer.concat(up),
    fromRelay: () => Buffer.concat(down),
    stop: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
