import { useEffect, useState } from 'react';
import type { PocketConnection } from '../app/connection-port.js';
import type { PairingRecord } from '../core/pairing-storage.js';
import {
  checkPush,
  disablePush,
  enablePush,
  type PushEnvironment,
  type PushState,
} from './push-registration.js';
import { pushStateText, pushTestText } from './push-text.js';

export interface PushControlsProps {
  readonly pairing: PairingRecord;
  readonly name: string;
  readonly env: PushEnvironment;
  readonly connection: PocketConnection;
  /** The Burrow is reachable (a test push goes through it). */
  readonly connected: boolean;
}

/**
 * One Burrow's notifications on this phone: the state (on / off / blocked / not supported), the switch, and
 * "Send test push" with what it achieved. The subscription is re-checked each time this mounts (app open).
 */
export function PushControls({ pairing, name, env, connection, connected }: PushControlsProps) {
  const [state, setState] = useState<PushState | null>(null);
  const [busy, setBusy] = useState(false);
  const [testText, setTestText] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    checkPush(pairing, env).then(
      (s) => live && setState(s),
      (e: unknown) =>
        live && setState({ kind: 'failed', message: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      live = false;
    };
  }, [pairing, env]);

  const run = (action: (p: PairingRecord, e: PushEnvironment) => Promise<PushState>) => {
    setBusy(true);
    action(pairing, env)
      .then(setState, (e: unknown) =>
        setState({ kind: 'failed', message: e instanceof Error ? e.message : String(e) }),
      )
      .finally(() => setBusy(false));
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
  const canSwitch = state !== null && state.kind !== 'unsupported' && state.kind !== 'blocked' && !busy;

  return (
    <fieldset className="push" aria-label={`Notifications from ${name}`}>
      <span className={`push-state push-${state?.kind ?? 'checking'}`} role="status">
        {pushStateText(state)}
      </span>
      {state?.kind === 'on' ? (
        <button type="button" disabled={!canSwitch} onClick={() => run(disablePush)}>
          Turn off notifications
        </button>
      ) : (
        <button type="button" disabled={!canSwitch} onClick={() => run(enablePush)}>
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
