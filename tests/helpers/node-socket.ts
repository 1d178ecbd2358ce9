/** Pocket's SocketFactory on Node's `ws`, optionally recording every message 1 a client sends. */
import type { SocketFactory, SocketLike } from '@burrow/pocket/core';
import WebSocket from 'ws';

export function nodeSocketFactory(sentFirst?: Uint8Array[]): SocketFactory {
  return (url) => {
    const ws = new WebSocket(url);
    if (sentFirst) {
      let first = true;
      const send = ws.send.bind(ws);
      ws.send = ((data: Uint8Array) => {
        if (first) sentFirst.push(Uint8Array.from(data));
        first = false;
        send(data);
      }) as typeof ws.send;
    }
    return ws as unknown as SocketLike;
  };
}
