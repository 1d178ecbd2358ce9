/**
 * Connects the screens to the client core (src/core, README there): one `BurrowConnection` per pairing over
 * the browser's WebSocket, pairing through `pairWithOffer`, both over the IndexedDB pairing storage.
 */

import type { BuildGuard } from '../build-check/build-guard.js';
import { guardConnection } from '../build-check/guarded-connection.js';
import {
  BurrowConnection,
  engineRtc,
  type PairingRecord,
  pairWithOffer,
  type SocketFactory,
  type SocketLike,
} from '../core/index.js';
import type { PairFunction } from '../pairing/PairingScreen.js';
import { canStoreCryptoKeys } from '../store/crypto-key-probe.js';
import type { IdbPairingStorage } from '../store/pairing-store.js';
import { estimateTerminalSize } from '../terminal/terminal-metrics.js';
import type { ConnectionFactory } from './burrow-hub.js';
import type { PocketConnection } from './connection-port.js';

export const APP_VERSION = '0.1.0';

// The DOM's handler types take `Event` where SocketLike's take `unknown`; the objects are the same shape.
const socketFactory: SocketFactory = (url, protocols) =>
  new WebSocket(url, protocols ? [...protocols] : []) as unknown as SocketLike;

/** What `burrow devices` will call this phone. */
function deviceLabel(): string {
  const ua = navigator.userAgent;
  const kind = /iPhone/.test(ua)
    ? 'iPhone'
    : /iPad/.test(ua)
      ? 'iPad'
      : /Android/.test(ua)
        ? 'Android phone'
        : 'browser';
  return `Pocket on ${kind}`;
}

export function connectionFactory(storage: IdbPairingStorage, guard: BuildGuard): ConnectionFactory {
  return (pairing: PairingRecord): PocketConnection => {
    const { cols, rows } = estimateTerminalSize(window.innerWidth, window.innerHeight);
    // Input to a Burrow only while it vouches for the build this page runs (issue 16 item 7, R-BUILD-2).
    const connection = new BurrowConnection({
      pairing,
      socketFactory,
      storage,
      viewer: 'pocket',
      appVersion: APP_VERSION,
      cols,
      rows,
      // The direct path at home (issue 25): the engine's WebRTC, or none (WebKitGTK): then the relay only.
      rtc: engineRtc(),
    });
    // Another network (back online, another Wi-Fi): a direct path that failed may work now.
    window.addEventListener('online', () => connection.retryDirect());
    return guardConnection(connection, pairing.burrowId, guard);
  };
}

export function pairFunction(storage: IdbPairingStorage): PairFunction {
  // The core's pairing has no cancel yet: a cancelled screen ignores the outcome (PairingScreen's abort).
  return async (offer, onCode) =>
    pairWithOffer({
      offer,
      socketFactory,
      storage,
      label: deviceLabel(),
      platform: navigator.platform.slice(0, 256),
      userAgent: navigator.userAgent.slice(0, 256),
      onCode,
      // A non-extractable WebCrypto key where the engine has X25519 and can store it (core/client-static.ts).
      webCryptoKey: await canStoreCryptoKeys(),
    });
}
