/// <reference lib="webworker" />
/**
 * Pocket's service worker (DESIGN §7): serve the installed Pocket build — and only it — so Pocket opens offline
 * and a relay cannot swap the code under a phone (issue 16 item 7, store/build-state.ts); show a notification
 * for every push (DESIGN §4.4 step 5, push-notification.ts) and land a click on its session
 * (notification-click.ts).
 *
 * Updates are never silent: a new worker downloads and checks its build, then only offers it; the page's
 * "Update" prompt posts ACCEPT_UPDATE, and only then is the new build served (the page reloads). An older build
 * (issue 24.6, build-state.ts `isDowngrade`) is offered as a warning and taken only with the user's explicit
 * "Go back". The very first install takes effect at once and claims the page, so it works offline without a
 * reload.
 */
import { cachedRelease, readBuildState, writeBuildState } from '../store/build-cache.js';
import { afterAccept, afterInstall, servedPath, staleCaches } from '../store/build-state.js';
import { IdbPairingStorage } from '../store/pairing-store.js';
import { IdbPushStore } from '../store/push-store.js';
import { downloadBuild, ownBuild, type PrecacheEntry, serveInstalled } from './installed-build.js';
import { clickPath, focusOrOpen } from './notification-click.js';
import { genericNotification, type NotificationSpec, showPushNotification } from './push-notification.js';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: PrecacheEntry[] };

/** This worker's build (its files and their SHA-256, injected at build time). */
const own = ownBuild(self.__WB_MANIFEST, self.location.href);

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const build = await own;
      await downloadBuild(build);
      const { state, takeOverNow } = afterInstall(
        await readBuildState(),
        build.id,
        await cachedRelease(build.id),
      );
      await writeBuildState(state);
      if (takeOverNow) await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const build = await own;
      let state = await readBuildState();
      if (state === null) {
        // The state was lost (storage cleared under a live worker): this worker's build is all there is.
        state = afterInstall(null, build.id, await cachedRelease(build.id)).state;
        await writeBuildState(state);
      }
      for (const name of staleCaches(await caches.keys(), state, build.id)) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const path = servedPath(url.pathname, request.mode === 'navigate');
  if (path === null) return; // the relay's API
  event.respondWith(serveInstalled(path).then((response) => response ?? fetch(request)));
});

/**
 * The page's "Update" (shell/service-worker.ts): this worker's build becomes the installed one. Going back to an
 * older build needs `downgrade: true`, which the page sends only after the user chose it over the warning.
 */
self.addEventListener('message', (event) => {
  const data: unknown = event.data;
  if (data === null || typeof data !== 'object' || (data as { type?: unknown }).type !== 'ACCEPT_UPDATE')
    return;
  const confirmedDowngrade = (data as { downgrade?: unknown }).downgrade === true;
  const port = event.ports[0];
  event.waitUntil(
    (async () => {
      const build = await own;
      const next = afterAccept(
        await readBuildState(),
        build.id,
        await cachedRelease(build.id),
        confirmedDowngrade,
      );
      if (next !== null) {
        await writeBuildState(next);
        await self.skipWaiting();
      }
      port?.postMessage({ type: 'UPDATE_ACCEPTED', accepted: next !== null });
    })(),
  );
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
