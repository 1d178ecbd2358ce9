/**
 * Pocket's screens and their URLs. Only non-secret ids appear in a path (the pairing secret stays in memory,
 * DESIGN §3); the relay's SPA fallback serves index.html for every one of these paths.
 */
export type Route =
  | { readonly screen: 'list' }
  | { readonly screen: 'terminal'; readonly burrowId: string; readonly sessionId: string };

export const LIST_ROUTE: Route = { screen: 'list' };

// burrowId is base64url of 16 bytes; session ids are protocol `sessionId`s (short, URL-safe).
const TERMINAL_PATH = /^\/b\/([A-Za-z0-9_-]{22})\/s\/([A-Za-z0-9_-]{1,32})\/?$/;

export function parseRoute(pathname: string): Route {
  const m = TERMINAL_PATH.exec(pathname);
  return m ? { screen: 'terminal', burrowId: m[1]!, sessionId: m[2]! } : LIST_ROUTE;
}

export function routePath(route: Route): string {
  return route.screen === 'list' ? '/' : `/b/${route.burrowId}/s/${route.sessionId}`;
}
