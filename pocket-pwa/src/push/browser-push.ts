/**
 * The browser's side of `PushEnvironment` (push-registration.ts): the service worker registration's
 * PushManager and the Notification permission, or null when this browser has no Web Push (e.g. iOS Safari
 * before the app is added to the home screen).
 */
import type { PushRegistrationStore } from '../store/push-store.js';
import type { PushEnvironment, PushManagerPort } from './push-registration.js';

export function browserPushEnvironment(store: PushRegistrationStore): PushEnvironment {
  const supported =
    typeof navigator !== 'undefined' &&
    'serviceWorker' in navigator &&
    typeof PushManager !== 'undefined' &&
    typeof Notification !== 'undefined';
  return {
    push: supported ? browserPushManager() : null,
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
