/** Pocket's SocketFactory on Node's `ws`, recording each socket made and (optionally) each message 1 sent. */
import type { SocketFactory, SocketLike } from '@burrow/pocket/core';
import WebSocket from 'ws';

export interface RecordingFactory {
  readonly factory: SocketFactory;
  readonly sockets: WebSocket[];
  readonly firstMessages: Uint8Array[];
}

/**
 * `headers` go on every upgrade request: a test phone says which address it comes from with `CF-Connecting-IP`
 * (the relay under `wrangler dev` takes it as given; '' counts as no header: the connection's own address).
 */
export function recordingSocketFactory(
  firstMessages: Uint8Array[] = [],
  headers: Readonly<Record<string, string>> = {},
): RecordingFactory {
  const sockets: WebSocket[] = [];
  const factory: SocketFactory = (url: string, protocols?: readonly string[]) => {
    // The subprotocols carry the phone's relay ticket (RL-TICKET-4), as Pocket's browser socket does.
    const ws = new WebSocket(url, protocols ? [...protocols] : [], { headers: { ...headers } });
    sockets.push(ws);
    let first = true;
    const send = ws.send.bind(ws);
    ws.send = ((data: Uint8Array) => {
      if (first) firstMessages.push(Uint8Array.from(data));
      first = false;
      send(data);
    }) as typeof ws.send;
    return ws as unknown as SocketLike;
  };
  return { factory, sockets, firstMessages };
}

export function nodeSocketFactory(sentFirst?: Uint8Array[]): SocketFactory {
  return recordingSocketFactory(sentFirst).factory;
}
