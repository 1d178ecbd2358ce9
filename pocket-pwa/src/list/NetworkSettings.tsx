/**
 * The Burrow's network policy on the phone (issue 25; protocol R-NET-1): whether this phone may reach the
 * computer directly on the same network, and which STUN servers both ends may use (none by default: nothing
 * is contacted beyond the phone and the relay). The policy lives on the computer; `burrow settings` changes
 * the same one. Also says when this browser cannot use the direct path at all.
 */
import type { NetworkPolicy } from '@burrow/protocol';
import { useState } from 'react';
import type { PocketConnection } from '../app/connection-port.js';
import { directStateText } from '../core/index.js';

export interface NetworkSettingsProps {
  readonly connection: PocketConnection;
  readonly connected: boolean;
  onError(message: string): void;
}

/** The ICE servers as one line of text: STUN URLs, comma-separated (TURN, with credentials: `burrow settings`). */
function serversText(policy: NetworkPolicy): string {
  return policy.iceServers.map((s) => s.url).join(', ');
}

export function NetworkSettings({ connection, connected, onError }: NetworkSettingsProps) {
  const policy = connection.networkPolicy ?? null;
  const direct = connection.directState;
  const [servers, setServers] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = connection.setNetworkPolicy;
  const save = (next: NetworkPolicy) => {
    if (!set) return;
    setBusy(true);
    set
      .call(connection, next)
      .then(
        () => setServers(null),
        (e: unknown) => onError(`Could not change the network policy: ${e instanceof Error ? e.message : e}`),
      )
      .finally(() => setBusy(false));
  };
  const hasTurn = policy?.iceServers.some((s) => s.username !== undefined) ?? false;
  return (
    <fieldset className="network" aria-label="Network">
      <legend>Network</legend>
      {direct && <p className="direct-state">{directStateText(direct)}</p>}
      {policy && set && (
        <>
          <label className="row">
            <input
              type="checkbox"
              checked={policy.direct === 'allowed'}
              disabled={!connected || busy}
              onChange={(e) => save({ ...policy, direct: e.currentTarget.checked ? 'allowed' : 'off' })}
            />
            Allow a direct connection on the same network
          </label>
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              const text = (servers ?? serversText(policy)).trim();
              const urls = text === '' ? [] : text.split(/[\s,]+/).filter((u) => u !== '');
              save({ ...policy, iceServers: urls.map((url) => ({ url })) });
            }}
          >
            <input
              aria-label="STUN servers"
              placeholder="STUN servers: none (recommended)"
              value={servers ?? serversText(policy)}
              disabled={!connected || busy || hasTurn}
              onChange={(e) => setServers(e.currentTarget.value)}
            />
            <button type="submit" disabled={!connected || busy || hasTurn || servers === null}>
              Save
            </button>
          </form>
          {hasTurn && <p className="hint">TURN servers are set on the computer (burrow settings).</p>}
        </>
      )}
    </fieldset>
  );
}
