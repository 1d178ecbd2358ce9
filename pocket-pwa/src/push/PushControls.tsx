import { useEffect, useState, useSyncExternalStore } from 'react';
import type { PocketConnection } from '../app/connection-port.js';
import type { PairingRecord } from '../core/pairing-storage.js';
import type { PushBoard } from './push-board.js';
import { pushStateText, pushTestText } from './push-text.js';

export interface PushControlsProps {
  readonly pairing: PairingRecord;
  readonly name: string;
  readonly board: PushBoard;
  readonly connection: PocketConnection;
  /** The Burrow is reachable (a test push goes through it). */
  readonly connected: boolean;
}

/**
 * One Burrow's notifications on this phone: the state (on / off / blocked / not supported), the switch, and
 * "Send test push" with what it achieved. The board checks the subscription once per app open.
 */
export function PushControls({ pairing, name, board, connection, connected }: PushControlsProps) {
  useSyncExternalStore(board.subscribe, board.getVersion);
  const state = board.state(pairing.burrowId);
  const [busy, setBusy] = useState(false);
  const [testText, setTestText] = useState<string | null>(null);

  useEffect(() => board.check(pairing), [board, pairing]);
  // Back in touch with the Burrow (and so with the relay): a failure from the outage is checked again, and a
  // failed test push's words go (issue 17 item 7: no stale "Failed to fetch" after a reconnect).
  const failed = state?.kind === 'failed';
  useEffect(() => {
    if (!connected) return;
    if (failed) board.recheckFailed(pairing);
    setTestText((t) => (t?.startsWith('Test push failed') ? null : t));
  }, [connected, failed, board, pairing]);

  const run = (action: (p: PairingRecord) => Promise<void>) => {
    setBusy(true);
    void action(pairing).finally(() => setBusy(false));
  };
  const pushTest = connection.pushTest?.bind(connection);
  const sendTest = () => {
    if (!pushTest) return;
    setTestText('Test push: sending…');
    pushTest().then(
      (r) => setTestText(pushTestText(r)),
      (e: unknown) => setTestText(`Test push failed: ${e instanceof Error ? e.message : String(e)}`),
    );
  };
  // Blocked stays tappable: a tap reads the permission again (the owner may have allowed it in the browser's
  // settings meanwhile) and says again what is the case (issue 23: no button left disabled until a reload).
  const canSwitch = state !== null && state.kind !== 'unsupported' && state.kind !== 'working' && !busy;

  return (
    <fieldset className="push" aria-label={`Notifications from ${name}`}>
      <span className={`push-state push-${state?.kind ?? 'checking'}`} role="status">
        {pushStateText(state)}
      </span>
      {state?.kind === 'on' ? (
        <button type="button" disabled={!canSwitch} onClick={() => run((p) => board.disable(p))}>
          Turn off notifications
        </button>
      ) : (
        <button type="button" disabled={!canSwitch} onClick={() => run((p) => board.enable(p))}>
          Enable notifications
        </button>
      )}
      {pushTest && (
        <button type="button" disabled={!connected} onClick={sendTest}>
          Send test push
        </button>
      )}
      {testText !== null && (
        <span className="push-test" role="status">
          {testText}
        </span>
      )}
    </fieldset>
  );
}
