import { lazy, Suspense, useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { BuildWarning } from '../build-check/BuildWarning.js';
import type { BuildGuard } from '../build-check/build-guard.js';
import type { PairingRecord } from '../core/index.js';
import { useEngagement } from '../engagement/use-engagement.js';
import { BurrowSection } from '../list/BurrowSection.js';
import { type PairFunction, PairingScreen } from '../pairing/PairingScreen.js';
import { onPairLink, takePairLink } from '../pairing/take-pair-fragment.js';
import { onOpenPath } from '../push/open-from-notification.js';
import type { PushBoard } from '../push/push-board.js';
import { InstallHint } from '../shell/InstallHint.js';
import type { UpdateHandle } from '../shell/service-worker.js';
import { UpdatePrompt } from '../shell/UpdatePrompt.js';
import { useOnline } from '../shell/use-online.js';
import { estimateTerminalSize } from '../terminal/terminal-metrics.js';
import type { BurrowHub, PairedBurrow } from './burrow-hub.js';
import { LIST_ROUTE, parseRoute, type Route, routePath } from './route.js';

// The terminal (xterm.js) is most of the app's weight: loaded only when a session is opened.
const TerminalScreen = lazy(() => import('../terminal/TerminalScreen.js'));

/** Longest an error banner stays up. */
const ERROR_BANNER_MS = 8000;
/** How often relative times ("5 min ago") refresh. */
const CLOCK_TICK_MS = 30_000;

export interface AppProps {
  readonly hub: BurrowHub;
  readonly pair: PairFunction;
  readonly now?: () => number;
  /** Registers the service worker and reports a waiting update (absent in tests). */
  readonly onUpdate?: (cb: (u: UpdateHandle) => void) => void;
  /** Web Push on this phone (absent in tests of other screens). */
  readonly push?: PushBoard;
  /** Which Burrows vouch for this Pocket build (issue 16 item 7); absent in tests of other screens. */
  readonly buildGuard?: BuildGuard;
}

function useRoute(): [Route, (r: Route, replace?: boolean) => void] {
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const onPop = () => setRoute(parseRoute(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  // A notification click in the service worker asks this window to show that session (notification-click.ts).
  useEffect(
    () =>
      onOpenPath((path) => {
        window.history.pushState(null, '', path);
        setRoute(parseRoute(path));
      }),
    [],
  );
  const go = useCallback((r: Route, replace = false) => {
    if (replace) window.history.replaceState(null, '', routePath(r));
    else window.history.pushState(null, '', routePath(r));
    setRoute(r);
  }, []);
  return [route, go];
}

export function App({ hub, pair, now = Date.now, onUpdate, push, buildGuard }: AppProps) {
  useSyncExternalStore(hub.subscribe, hub.getVersion);
  const [route, go] = useRoute();
  const [pairLink, setPairLink] = useState<string | null>(() => takePairLink());
  const [update, setUpdate] = useState<UpdateHandle | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [nowMs, setNowMs] = useState(now);
  const online = useOnline();

  useEffect(() => onPairLink(setPairLink), []);
  useEffect(() => onUpdate?.(setUpdate), [onUpdate]);
  useEffect(() => {
    const t = setInterval(() => setNowMs(now()), CLOCK_TICK_MS);
    return () => clearInterval(t);
  }, [now]);
  useEffect(() => {
    if (error === null) return;
    const t = setTimeout(() => setError(null), ERROR_BANNER_MS);
    return () => clearTimeout(t);
  }, [error]);

  const onScreen =
    route.screen === 'terminal' ? { burrowId: route.burrowId, sessionId: route.sessionId } : null;
  useEngagement(hub.burrows, onScreen, now);

  const screenSize = useMemo(() => estimateTerminalSize(window.innerWidth, window.innerHeight), []);
  const open = useCallback(
    (burrow: PairedBurrow, sessionId: string) => {
      // A tap on a session is an acknowledge without input (alert-spec "Acknowledge").
      burrow.connection.acknowledge(sessionId, false);
      go({ screen: 'terminal', burrowId: burrow.record.burrowId, sessionId });
    },
    [go],
  );
  const onPaired = useCallback(
    (record: PairingRecord) => {
      hub.add(record);
      setPairLink(null);
      go(LIST_ROUTE, true);
    },
    [hub, go],
  );
  const closePairing = useCallback(() => setPairLink(null), []);

  let body: React.ReactNode;
  if (pairLink !== null) {
    body = (
      <PairingScreen link={pairLink} nowMs={now} pair={pair} onPaired={onPaired} onClose={closePairing} />
    );
  } else if (route.screen === 'terminal') {
    const burrow = hub.find(route.burrowId);
    body =
      burrow === undefined ? (
        <main className="list">
          <p role="alert">That computer is not paired with this phone.</p>
          <button type="button" onClick={() => go(LIST_ROUTE)}>
            Back to the list
          </button>
        </main>
      ) : (
        <Suspense fallback={<p className="loading">Opening the terminal…</p>}>
          <TerminalScreen
            burrow={burrow}
            sessionId={route.sessionId}
            online={online}
            onBack={() => go(LIST_ROUTE)}
          />
        </Suspense>
      );
  } else {
    body = (
      <main className="list" aria-labelledby="list-title">
        <h1 id="list-title">Pocket</h1>
        <InstallHint />
        {hub.burrows.length === 0 ? (
          <p className="empty">
            No computer is paired yet. Run <code>burrow pair</code> on your computer and open the link it
            shows (or scan its QR code) on this phone.
          </p>
        ) : (
          hub.burrows.map((b) => (
            <BurrowSection
              key={b.record.burrowId}
              burrow={b}
              nowMs={nowMs}
              online={online}
              screenSize={screenSize}
              onOpen={open}
              onRename={(x, name) =>
                void hub.rename(x.record.burrowId, name).catch((e: Error) => setError(e.message))
              }
              onRemove={(x) =>
                void hub.remove(x.record.burrowId).then(
                  ({ forgotten }) => {
                    if (!forgotten)
                      setError(`Removed. Revoke this phone on “${x.name}” too: burrow devices revoke.`);
                  },
                  (e: Error) => setError(e.message),
                )
              }
              onError={setError}
              {...(push ? { push } : {})}
            />
          ))
        )}
      </main>
    );
  }

  // On the terminal the app is exactly the visual viewport; banners (offline, update, errors) stay above the
  // terminal instead of under it.
  const fullScreen =
    pairLink === null && route.screen === 'terminal' && hub.find(route.burrowId) !== undefined;
  return (
    <div className={fullScreen ? 'app app-terminal' : 'app'}>
      {buildGuard && <BuildWarning guard={buildGuard} burrows={hub.burrows} />}
      {!online && (
        <div className="offline" role="status">
          Offline — Pocket reconnects when the network is back.
        </div>
      )}
      {update !== null && <UpdatePrompt update={update} onLater={() => setUpdate(null)} />}
      {error !== null && (
        <div className="error-banner" role="alert">
          <span dir="auto">{error}</span>
          <button type="button" aria-label="Dismiss error" onClick={() => setError(null)}>
            ✕
          </button>
        </div>
      )}
      {body}
    </div>
  );
}
