/**
 * Registers Pocket's service worker (workbox-window) and surfaces an offered update, so the app asks before it
 * changes its own code (issue 5 "App shell", issue 16 item 7). What the worker serves is decided by its build
 * state (store/build-state.ts): an update the relay sent is only *offered* until the user taps "Update", even if
 * the browser has already started the new worker.
 */
import { Workbox } from 'workbox-window';
import { cachedRelease, readBuildState } from '../store/build-cache.js';
import { isDowngrade } from '../store/build-state.js';

export interface UpdateHandle {
  /** Makes the offered build the installed one; the page reloads into it. */
  apply(): void;
  /**
   * Set when the offered build is older than what this phone runs or ran (issue 24.6): the prompt is a warning
   * and `apply` takes Pocket back. Releases are `/release.json` versions, null when a build has none.
   */
  readonly downgrade: { readonly from: string | null; readonly to: string | null } | null;
}

/**
 * Calls `changed` whenever the browser starts installing another service worker for Pocket (`updatefound`) or
 * another one takes this page over (`controllerchange`) — the moments the relay's `sw.js` may have changed under
 * a page that keeps running its own code (issue 24.7: the build check then looks at `sw.js` again).
 */
export function watchServiceWorkers(changed: () => void): void {
  if (!('serviceWorker' in navigator) || import.meta.env.DEV) return;
  navigator.serviceWorker.addEventListener('controllerchange', changed);
  void navigator.serviceWorker.getRegistration('/').then((registration) => {
    registration?.addEventListener('updatefound', changed);
  });
  void navigator.serviceWorker.ready.then((registration) =>
    registration.addEventListener('updatefound', changed),
  );
}

export function registerServiceWorker(onUpdateWaiting: (update: UpdateHandle) => void): void {
  if (!('serviceWorker' in navigator) || import.meta.env.DEV) return;
  // updateViaCache 'none': the browser's update checks fetch sw.js (and anything it imports) past the HTTP
  // cache, like the page's own check does (issue 24.7).
  const wb = new Workbox('/sw.js', { scope: '/', updateViaCache: 'none' });
  let shown: string | null = null;
  const check = () =>
    void readBuildState().then(async (state) => {
      if (state?.offered == null || state.offered === shown) return;
      const offered = state.offered;
      shown = offered;
      const to = await cachedRelease(offered);
      const downgrade = isDowngrade(state, offered, to)
        ? { from: await cachedRelease(state.installed), to }
        : null;
      onUpdateWaiting({ apply: () => void accept(downgrade !== null), downgrade });
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
async function accept(downgrade: boolean): Promise<void> {
  const registration = await navigator.serviceWorker.getRegistration('/');
  const worker = registration?.waiting ?? registration?.active;
  if (!worker) return;
  const channel = new MessageChannel();
  const answer = new Promise<unknown>((resolve) => {
    channel.port1.onmessage = (event) => resolve(event.data);
  });
  // `downgrade` only after the user chose "Go back" over the warning (UpdatePrompt).
  worker.postMessage({ type: 'ACCEPT_UPDATE', downgrade }, [channel.port2]);
  const reply = (await answer) as { accepted?: unknown } | null;
  if (reply?.accepted === true) window.location.reload();
}
