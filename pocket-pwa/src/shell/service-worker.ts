/**
 * Registers Pocket's service worker with workbox-window and surfaces a waiting new version, so the app asks
 * before it updates instead of reloading under a running terminal (issue 5 "App shell").
 */
import { Workbox } from 'workbox-window';

export interface UpdateHandle {
  /** Tells the waiting worker to take over; the page reloads once it controls the page. */
  apply(): void;
}

export function registerServiceWorker(onUpdateWaiting: (update: UpdateHandle) => void): void {
  if (!('serviceWorker' in navigator) || import.meta.env.DEV) return;
  const wb = new Workbox('/sw.js', { scope: '/' });
  wb.addEventListener('waiting', () => {
    onUpdateWaiting({
      apply() {
        wb.addEventListener('controlling', () => window.location.reload());
        wb.messageSkipWaiting();
      },
    });
  });
  wb.register().catch(() => undefined);
}
