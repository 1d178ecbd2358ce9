/**
 * What the control server needs from the rest of the daemon beyond sessions: the remote side (`enroll`,
 * `pair`, `devices`, `push test`) and the attention engine's verbs (`await`, `todo`, `dismiss`, `watch`,
 * `settings`). An interface, so the control server never imports the relay link, crypto or the engine.
 */
import type { PairingResult, PairRequest } from '../remote/remote-endpoint.js';
import type { PairingStarted } from '../remote/remote-service.js';
import type { SessionInfo } from '../session/session.js';
import type { Method, Params } from './control-messages.js';

/** Methods the control server hands to DaemonVerbs.handle. */
export type DelegatedMethod = Exclude<
  Method,
  'status' | 'list' | 'create' | 'kill' | 'rename' | 'attach' | 'history' | 'pair'
>;

/** Per control connection: who asks (for awaits and presence) and whether it is still there. */
export interface VerbContext {
  readonly realmId: string;
  /** Aborted when the connection closes (an `await` is cancelled then). */
  readonly signal: AbortSignal;
}

export interface DaemonVerbs {
  handle<M extends DelegatedMethod>(method: M, params: Params<M>, ctx: VerbContext): Promise<unknown>;
  /** Extra fields for one `list` row (the attention view); {} when there is none. */
  describe(session: SessionInfo): Record<string, unknown>;
  /** A connection closed: its awaits resolve `cancelled`. */
  realmGone(realmId: string): void;
  /**
   * Opens an offer (replacing any open one). `cancel` withdraws THIS offer only: a `burrow pair` that was
   * replaced by a newer one must not cancel the newer one when its connection closes.
   */
  startPairing(options: {
    label: string | null;
    approve: (r: PairRequest) => Promise<boolean>;
    done: (r: PairingResult) => void;
  }): Promise<{ readonly started: PairingStarted; readonly cancel: () => void }>;
}

const unavailable = (): never => {
  throw new RangeError('this daemon has no remote side or attention engine');
};

/** For a control server that serves sessions only (tests, tools): every delegated verb is refused. */
export const NO_VERBS: DaemonVerbs = {
  handle: async () => unavailable(),
  describe: () => ({}),
  realmGone: () => {},
  startPairing: async () => unavailable(),
};
