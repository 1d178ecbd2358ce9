/**
 * Registers Pocket's service worker (workbox-window) and surfaces an offered update, so the app asks before it
 * changes its own code (issue 5 "App shell", issue 16 item 7). What the worker serves is decided by its build
 * state (store/build-state.ts): an update the relay sent is only *offered* until the user taps "Update", even if
 * the browser has already started the new worker.
 */
import { Workbox } from 'workbox-window';
import { readBuildState } from '../store/build-cache.js';

export interface UpdateHandle {
  /** Makes the offered build the installed one; the page reloads into it. */
  apply(): void;
}

export function registerServiceWorker(onUpdateWaiting: (update: UpdateHandle) => void): void {
  if (!('serviceWorker' in navigator) || import.meta.env.DEV) return;
  const wb = new Workbox('/sw.js', { scope: '/' });
  let shown: string | null = null;
  const check = () =>
    void readBuildState().then((state) => {
      if (state?.offered == null || state.offered === shown) return;
      shown = state.offered;
      onUpdateWaiting({ apply: () => void accept() });
    });
  // A new worker finished installing (it records its build as offered), now or in an earlier visit.
  wb.addEventListener('installed', check);
  wb.addEventListener('waiting', check);
  wb.register().then(check, () => undefined);
}

/**
 * Asks the newest worker — the waiting one, or the active one if the browser already activated it — to make its
 * build the installed one, then reloads. The worker refuses when its build is not the offered one.
 */
async function accept(): Promise<void> {
  const registration = await navigator.serviceWorker.getRegistration('/');
  const worker = registration?.waiting ?? registration?.active;
  if (!worker) return;
  const channel = new MessageChannel();
  const answer = new Promise<unknown>((resolve) => {
    channel.port1.onmessage = (event) => resolve(event.data);
  });
  worker.postMessage({ type: 'ACCEPT_UPDATE' }, [channel.port2]);
  const reply = (await answer) as { accepted?: unknown } | null;
  if (reply?.accepted === true) window.location.reload();
}
