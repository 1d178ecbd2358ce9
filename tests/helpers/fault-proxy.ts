/**
 * A TCP proxy in front of the relay that can cut the network WITHOUT a close (issue 8 "network cut without a
 * close"): `blackhole()` keeps every socket open and silently drops bytes in both directions, and swallows a
 * FIN or reset from either side, so neither end learns anything from TCP. Only a liveness policy can notice.
 * New connections made while blackholed are accepted and blackholed too (a connect attempt hangs, as on a
 * dead network). `heal()` passes bytes again for new connections and resets every connection that saw the
 * blackhole: bytes were lost inside it, so it is beyond saving, just as a real stale TCP connection is reset
 * by the first retransmission the far side no longer recognises.
 */
import { connect, createServer, type Socket } from 'node:net';

/** Bound on connections held at once (tests make a handful; a runaway reconnect loop must not leak). */
export const MAX_PROXY_CONNECTIONS = 256;

export type ProxyMode = 'pass' | 'blackhole';

export interface ProxyStats {
  /** Connections accepted since start. */
  readonly accepted: number;
  /** Connections open now (both halves held). */
  readonly open: number;
  /** Bytes dropped while blackholed, both directions. */
  readonly droppedBytes: number;
}

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: give this to the Burrow (`enroll --relay`) or the phone (`relayUrl`). */
  readonly url: string;
  readonly port: number;
  readonly mode: ProxyMode;
  blackhole(): void;
  heal(): void;
  stats(): ProxyStats;
  stop(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  /** Saw the blackhole: reset on heal, never passes bytes again. */
  poisoned: boolean;
}

export async function startFaultProxy(targetPort: number): Promise<FaultProxy> {
  let mode: ProxyMode = 'pass';
  let accepted = 0;
  let droppedBytes = 0;
  const pairs = new Set<Pair>();

  const destroy = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream.destroy();
    pairs.delete(pair);
  };

  const server = createServer({ allowHalfOpen: true }, (client) => {
    if (pairs.size >= MAX_PROXY_CONNECTIONS) {
      client.destroy();
      return;
    }
    accepted++;
    const upstream = connect({ port: targetPort, host: '127.0.0.1', allowHalfOpen: true });
    const pair: Pair = { client, upstream, poisoned: mode === 'blackhole' };
    pairs.add(pair);
    const relay = (from: Socket, to: Socket) => {
      from.on('data', (d: Buffer) => {
        if (pair.poisoned) droppedBytes += d.length;
        else to.write(d);
      });
      // A FIN, a reset or an error on one side reaches the other only while bytes pass.
      const ended = () => {
        if (!pair.poisoned) destroy(pair);
      };
      from.on('end', ended);
      from.on('close', ended);
      from.on('error', ended);
    };
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get mode() {
      return mode;
    },
    blackhole() {
      mode = 'blackhole';
      for (const pair of pairs) pair.poisoned = true;
    },
    heal() {
      mode = 'pass';
      for (const pair of [...pairs]) if (pair.poisoned) destroy(pair);
    },
    stats: () => ({ accepted, open: pairs.size, droppedBytes }),
    stop: () =>
      new Promise<void>((r) => {
        for (const pair of [...pairs]) destroy(pair);
        server.close(() => r());
      }),
  };
}
