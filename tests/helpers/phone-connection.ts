/**
 * A phone's connection to its Burrow built from Pocket's own core (`BurrowConnection`), as the integration
 * tests use it: an 80×24 'test' viewer over Node's WebSocket, from a pairing and the storage that holds it.
 */
import { BurrowConnection, type BurrowConnectionOptions } from '@burrow/pocket/core';
import { nodeSocketFactory } from './node-socket.js';

/**
 * `phone.pairing` and `phone.storage` (a `PairedPhone`, or any pairing and its storage); `relayUrl` sends the
 * phone through another address (a proxy) than the one in its pairing; the other options replace the defaults.
 * Not started: the caller calls `start()` once its listeners are on.
 */
export function phoneConnection(
  phone: Pick<BurrowConnectionOptions, 'pairing' | 'storage'>,
  options: { relayUrl?: string } & Partial<BurrowConnectionOptions> = {},
): BurrowConnection {
  const { relayUrl, ...rest } = options;
  return new BurrowConnection({
    pairing: relayUrl ? { ...phone.pairing, relayUrl } : phone.pairing,
    storage: phone.storage,
    socketFactory: nodeSocketFactory(),
    viewer: 'test',
    appVersion: 'test-1',
    cols: 80,
    rows: 24,
    ...rest,
  });
}
