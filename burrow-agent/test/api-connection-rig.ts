/**
 * An ApiConnection on a real SessionRegistry (real PTYs) that records what it sends and closes with — the rig
 * the remote/ unit tests share. Every message sent goes through protocol's encoder (which validates) and every
 * close code through the CLOSE_CLIENT frame encoder (which refuses codes the relay won't pass), so a test on
 * this rig also proves nothing invalid leaves the connection.
 */
import {
  type BurrowMessage,
  type CloseCode,
  encodeBurrowMessage,
  encodeCloseClientFrame,
} from '@burrow/protocol';
import { QUIET_PUBLIC_STATE } from '../src/attention-host/public-state.js';
import { ApiConnection, type ApiConnectionOptions } from '../src/remote/api-connection.js';
import type { AttentionPort } from '../src/remote/attention-port.js';
import { SessionRegistry } from '../src/session/session-registry.js';

/** An attention engine with nothing to say and nothing to record. */
export const QUIET_ATTENTION: AttentionPort = {
  publicState: () => QUIET_PUBLIC_STATE,
  acknowledge: () => {},
  todo: () => {},
  dismiss: () => {},
  presence: () => {},
  focus: () => {},
  viewerGone: () => {},
  onChange: () => () => {},
};

export const RIG_DELIVERY_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

export interface ApiConnectionRig {
  readonly api: ApiConnection;
  readonly registry: SessionRegistry;
  /** Every message sent, in order. */
  readonly sent: BurrowMessage[];
  /** Every close code, in order. */
  readonly closes: CloseCode[];
  /** The relay link as the connection sees it: set `backlog` to simulate a full link. */
  readonly link: { backlog: number; sentBytes: number };
}

const registries: SessionRegistry[] = [];

/** Kills every session of every rig made so far; for `afterEach`. */
export async function disposeRigs(): Promise<void> {
  for (const r of registries.splice(0)) await r.killAll();
}

/** A rig; `options` replace the connection's defaults, `now` is the registry's clock. */
export function apiConnectionRig(
  options: Partial<ApiConnectionOptions> = {},
  now: () => number = Date.now,
): ApiConnectionRig {
  const registry = new SessionRegistry({ now, env: process.env, defaultShell: '/bin/sh', log: () => {} });
  registries.push(registry);
  const sent: BurrowMessage[] = [];
  const closes: CloseCode[] = [];
  const link = { backlog: 0, sentBytes: 0 };
  const api = new ApiConnection({
    viewerId: 'v1',
    burrowName: 'home',
    registry,
    attention: QUIET_ATTENTION,
    send: (m) => {
      sent.push(m);
      const bytes = encodeBurrowMessage(m).length;
      link.sentBytes += bytes;
      return bytes;
    },
    backlog: () => link.backlog,
    close: (code) => {
      encodeCloseClientFrame(1, code);
      closes.push(code);
    },
    log: () => {},
    forgetMe: async () => {},
    deliveryId: RIG_DELIVERY_ID,
    ...options,
  });
  return { api, registry, sent, closes, link };
}
