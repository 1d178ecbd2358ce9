/**
 * The subset of the WHATWG WebSocket the core uses, so the browser's WebSocket and Node's `ws` both fit
 * (DESIGN §8: the Node test client is built from this same code).
 */

export interface SocketMessageEvent {
  readonly data: unknown;
}
export interface SocketCloseEvent {
  readonly code: number;
  readonly reason: string;
}

export interface SocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: Uint8Array | string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: SocketMessageEvent) => void) | null;
  onclose: ((event: SocketCloseEvent) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/**
 * Opens a socket. `protocols` are the WebSocket subprotocols to offer (`Sec-WebSocket-Protocol`): a paired
 * phone offers `burrow.v1` and its relay ticket (protocol `clientSubprotocols`, RL-TICKET-4).
 */
export type SocketFactory = (url: string, protocols?: readonly string[]) => SocketLike;

/** WebSocket.OPEN. */
export const SOCKET_OPEN = 1;

/** A binary frame as bytes, or null for a text frame (keep-alive) or anything else. */
export function frameBytes(data: unknown): Uint8Array | null {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return null;
}
