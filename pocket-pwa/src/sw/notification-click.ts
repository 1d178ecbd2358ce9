/**
 * Where a notification click lands (DESIGN §4.4 step 5: "a click opens Pocket on that session"): an open
 * Pocket window is focused and told to show the session (it routes in place, so live terminals are not
 * reloaded); with no window, one is opened on the session's path.
 */
import { parseRoute, routePath } from '../app/route.js';
import { OPEN_PATH_MESSAGE } from '../push/open-path-message.js';

/**
 * The path stored in a notification's data, checked again: only Pocket's own routes, never a URL another
 * origin could be reached through. Anything else opens the list.
 */
export function clickPath(data: unknown): string {
  const path =
    data !== null && typeof data === 'object' && typeof (data as { path?: unknown }).path === 'string'
      ? (data as { path: string }).path
      : '/';
  return routePath(parseRoute(path));
}

export interface WindowLike {
  readonly url: string;
  focus(): Promise<unknown>;
  postMessage(message: unknown): void;
}

export interface ClientsLike {
  matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<readonly WindowLike[]>;
  openWindow(url: string): Promise<unknown>;
}

/** Focuses a Pocket window of `origin` and routes it to `path`, or opens one there. */
export async function focusOrOpen(
  clients: ClientsLike,
  origin: string,
  path: string,
): Promise<'focused' | 'opened'> {
  const windows = await clients.matchAll({ type: 'window', includeUncontrolled: true });
  const pocket = windows.find((w) => new URL(w.url).origin === origin);
  if (pocket !== undefined) {
    pocket.postMessage({ type: OPEN_PATH_MESSAGE, path });
    await pocket.focus();
    return 'focused';
  }
  await clients.openWindow(new URL(path, origin).href);
  return 'opened';
}
