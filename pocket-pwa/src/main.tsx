// First, before anything else reads the URL: take a pairing secret out of the address bar.
import './pairing/take-pair-fragment.js';
import './app/app.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.js';
import { BurrowHub } from './app/burrow-hub.js';
import { connectionFactory, pairFunction } from './app/core-wiring.js';
import { BuildGuard } from './build-check/build-guard.js';
import { servedBuild } from './build-check/served-build.js';
import { browserPushEnvironment } from './push/browser-push.js';
import { PushBoard } from './push/push-board.js';
import { registerServiceWorker, watchServiceWorkers } from './shell/service-worker.js';
import { canStoreCryptoKeys } from './store/crypto-key-probe.js';
import { IdbPairingStorage } from './store/pairing-store.js';
import { IdbPushStore } from './store/push-store.js';

async function start(): Promise<void> {
  // Whether pairing can keep a non-extractable key (issue 16 item 7): asked now, answered before it is needed.
  void canStoreCryptoKeys();
  const root = createRoot(document.getElementById('root')!);
  try {
    const storage = await IdbPairingStorage.open();
    const push = new PushBoard(browserPushEnvironment(await IdbPushStore.open()));
    // Vite's dev server has no service worker, so nothing to check there (issue 16 item 7).
    const guard = new BuildGuard(import.meta.env.DEV ? null : servedBuild);
    watchServiceWorkers(() => void guard.refresh());
    const hub = new BurrowHub(storage, connectionFactory(storage, guard));
    await hub.load();
    // Every open re-checks each Burrow's push registration, whichever screen it opened on (DESIGN §4.4).
    for (const b of hub.burrows) push.check(b.record);
    root.render(
      <StrictMode>
        <App
          hub={hub}
          pair={pairFunction(storage)}
          onUpdate={registerServiceWorker}
          push={push}
          buildGuard={guard}
        />
      </StrictMode>,
    );
  } catch (e) {
    root.render(
      <main className="list">
        <h1>Pocket cannot start</h1>
        <p role="alert">{e instanceof Error ? e.message : String(e)}</p>
      </main>,
    );
  }
}

void start();
