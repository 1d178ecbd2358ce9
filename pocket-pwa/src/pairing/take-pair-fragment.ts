/**
 * Takes the pairing link's secret out of the address bar before anything else runs (issue 5 "Pairing"):
 * main.tsx imports this module first, so its body runs before React, the service worker registration or any
 * other script can read `location`. The fragment is replaced in the current history entry
 * (`history.replaceState`), so neither the address bar, the history list nor a later `location.href` keeps
 * it. The captured link is handed out once.
 */
import { PAIR_FRAGMENT_KEY } from '../core/pairing-link.js';

let captured: string | null = null;

/** If `href` carries `#pair=…`, returns the link and the URL to show instead; else null. Pure. */
export function splitPairFragment(href: string): { link: string; cleanUrl: string } | null {
  const hash = href.indexOf('#');
  if (hash < 0 || !href.startsWith(PAIR_FRAGMENT_KEY, hash + 1)) return null;
  // Oversized links are removed from the address bar too; the core's parser bounds and rejects them.
  return { link: href, cleanUrl: href.slice(0, hash) };
}

function capture(): void {
  const split = splitPairFragment(window.location.href);
  if (split === null) return;
  window.history.replaceState(window.history.state, '', split.cleanUrl);
  captured = split.link;
}

/** The pairing link this page was opened with (or navigated to by a fragment change), once; then null. */
export function takePairLink(): string | null {
  const link = captured;
  captured = null;
  return link;
}

/** Subscribes to pairing links arriving while Pocket is already open (a second link tapped). */
export function onPairLink(listener: (link: string) => void): () => void {
  const onHash = () => {
    capture();
    const link = takePairLink();
    if (link !== null) listener(link);
  };
  window.addEventListener('hashchange', onHash);
  return () => window.removeEventListener('hashchange', onHash);
}

capture();
