/// <reference lib="webworker" />
/**
 * Pocket's service worker (DESIGN §7): precache the app shell so Pocket opens offline, and answer every
 * navigation with the precached index.html (the app itself then says "offline"). Push and notificationclick
 * arrive with the push issue; until then this worker handles neither.
 *
 * Updates are never silent: a new worker waits until the page asks it to take over (the page's "update"
 * prompt posts SKIP_WAITING via workbox-window's messageSkipWaiting), so a running terminal is not reloaded
 * under the user's fingers.
 */
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

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
