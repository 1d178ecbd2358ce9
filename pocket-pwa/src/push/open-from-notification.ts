/**
 * The page's end of a notification click (src/sw/notification-click.ts): the service worker focuses this
 * window and posts the session's path; the app routes to it in place.
 */
import { parseRoute, routePath } from '../app/route.js';
import { OPEN_PATH_MESSAGE } from './open-path-message.js';

/** Calls `open` with each path the service worker asks for; returns the unsubscribe function. */
export function onOpenPath(open: (path: string) => void): () => void {
  if (typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return () => {};
  const onMessage = (event: MessageEvent) => {
    const data: unknown = event.data;
    if (data === null || typeof data !== 'object') return;
    const m = data as { type?: unknown; path?: unknown };
    // Re-parsed: only Pocket's own routes, whatever the message says.
    if (m.type === OPEN_PATH_MESSAGE && typeof m.path === 'string') open(routePath(parseRoute(m.path)));
  };
  navigator.serviceWorker.addEventListener('message', onMessage);
  return () => navigator.serviceWorker.removeEventListener('message', onMessage);
}
