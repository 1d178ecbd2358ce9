/// <reference lib="webworker" />
/**
 * Pocket's service worker (DESIGN §7): precache the app shell so Pocket opens offline, and answer every
 * navigation with the precached index.html (the app itself then says "offline"); show a notification for
 * every push (DESIGN §4.4 step 5, push-notification.ts) and land a click on its session
 * (notification-click.ts).
 *
 * Updates are never silent: a new worker waits until the page asks it to take over (the page's "update"
 * prompt posts SKIP_WAITING via workbox-window's messageSkipWaiting), so a running terminal is not reloaded
 * under the user's fingers.
 */
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { IdbPairingStorage } from '../store/pairing-store.js';
import { IdbPushStore } from '../store/push-store.js';
import { clickPath, focusOrOpen } from './notification-click.js';
import { genericNotification, type NotificationSpec, showPushNotification } from './push-notification.js';

declare const self: ServiceWorkerGlobalScope & {
  __WB_MANIFEST: Array<{ url: string; revision: string | null }>;
};

precacheAndRoute(self.__WB_MANIFEST);
// Take control of the page that installed the first worker, so it works offline without a reload. A later
// worker only activates when the user accepted the update prompt, and the page then reloads anyway.
clientsClaim();
cleanupOutdatedCaches();

// The relay's API lives under /v1; everything else that is a navigation is the single-page app.
registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: [/^\/v1\//] }));

self.addEventListener('message', (event) => {
  if (event.data !== null && typeof event.data === 'object' && event.data.type === 'SKIP_WAITING') {
    void self.skipWaiting();
  }
});

/**
 * Opens the stores per push (a worker may be stopped between pushes) and shows exactly one notification.
 * The stores open lazily, INSIDE showPushNotification's deadline: opening IndexedDB is what can stall (a
 * blocked open), and a stall there must still end in the generic notification, never in silence.
 */
async function onPush(data: PushMessageData | null): Promise<void> {
  const show = (title: string, options: NotificationOptions) =>
    self.registration.showNotification(title, options);
  let pairings: Promise<IdbPairingStorage> | undefined;
  let seq: Promise<IdbPushStore> | undefined;
  const openSeq = () => {
    seq ??= IdbPushStore.open();
    return seq;
  };
  let spec: NotificationSpec;
  try {
    spec = await showPushNotification(
      data === null ? null : new Uint8Array(data.arrayBuffer()),
      {
        listPairings: async () => {
          pairings ??= IdbPairingStorage.open();
          return (await pairings).list();
        },
        seq: {
          lastSeq: async (burrowId) => (await openSeq()).lastSeq(burrowId),
          advanceSeq: async (burrowId, next) => (await openSeq()).advanceSeq(burrowId, next),
        },
      },
      show,
    );
  } catch (error) {
    // Even the generic notification was refused by showNotification: try once more, then give up loudly.
    spec = genericNotification(error instanceof Error ? error.name : 'showNotification failure');
    await show(spec.title, spec.options);
  } finally {
    // A store that opens after the deadline is closed as soon as it does.
    void pairings?.then((p) => p.close()).catch(() => {});
    void seq?.then((s) => s.close()).catch(() => {});
  }
  if (spec.failure !== null) console.warn(`push shown as generic: ${spec.failure}`);
}

self.addEventListener('push', (event) => {
  event.waitUntil(onPush(event.data));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(focusOrOpen(self.clients, self.location.origin, clickPath(event.notification.data)));
});
