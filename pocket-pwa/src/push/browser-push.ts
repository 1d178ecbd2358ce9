/**
 * The browser's side of `PushEnvironment` (push-registration.ts): the service worker registration's
 * PushManager and the Notification permission, or null when this browser has no Web Push (e.g. iOS Safari
 * before the app is added to the home screen).
 */
import { type IosSignals, iosPush, iosSignals } from '../shell/ios.js';
import type { PushRegistrationStore } from '../store/push-store.js';
import type { PushEnvironment, PushManagerPort, UnsupportedWhy } from './push-registration.js';

export function browserPushEnvironment(
  store: PushRegistrationStore,
  ios: IosSignals = iosSignals(),
): PushEnvironment {
  // iOS: only a Home Screen app on 16.4+ has push; elsewhere there is nothing to ask, and the state says why.
  const onIos = iosPush(ios);
  const why: UnsupportedWhy | undefined =
    onIos === 'install-first' || onIos === 'too-old' ? onIos : undefined;
  const supported =
    why === undefined &&
    typeof navigator !== 'undefined' &&
    'serviceWorker' in navigator &&
    typeof PushManager !== 'undefined' &&
    typeof Notification !== 'undefined';
  return {
    push: supported ? browserPushManager() : null,
    ...(why !== undefined ? { unsupported: why } : {}),
    fetch: (url, init) => fetch(url, init),
    store,
    clock: Date.now,
  };
}

function browserPushManager(): PushManagerPort {
  // `ready` resolves once a worker is active; Pocket registers it at start (shell/service-worker.ts).
  const manager = () => navigator.serviceWorker.ready.then((r) => r.pushManager);
  return {
    permission: () => Notification.permission,
    requestPermission: () => Notification.requestPermission(),
    getSubscription: async () => (await manager()).getSubscription(),
    subscribe: async (options) =>
      (await manager()).subscribe({
        userVisibleOnly: options.userVisibleOnly,
        applicationServerKey: options.applicationServerKey as Uint8Array<ArrayBuffer>,
      }),
  };
}
