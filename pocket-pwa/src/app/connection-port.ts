/**
 * The slice of the core's `BurrowConnection` (src/core/README.md) the screens use. The UI depends on this
 * shape, not on the class, so components are tested with an in-memory connection and the app wires the real
 * one in `connection-factory.ts`.
 */
import type {
  NetworkPolicy,
  PathName,
  PresenceState,
  PushTestOutcome,
  SessionEntry,
  TodoAction,
} from '@burrow/protocol';
import type { ConnectionEvent, ConnectionStatus, DirectState, SizeAuthorityInfo } from '../core/index.js';

export type { ConnectionEvent, ConnectionStatus, SizeAuthorityInfo } from '../core/index.js';

export interface TerminalSnapshot {
  readonly data: string;
  readonly cols: number;
  readonly rows: number;
  readonly offset: number;
  readonly firstLine: number;
  readonly hasOlder: boolean;
  readonly kind: 'attached' | 'resync';
}

export interface HistoryPage {
  readonly data: string;
  readonly firstLine: number;
  readonly endLine: number;
  readonly hasOlder: boolean;
}

export interface TerminalHandlers {
  onSnapshot(snapshot: TerminalSnapshot): void;
  onOutput(bytes: Uint8Array, offset: number): void;
  /** The PTY's size or who holds it changed (protocol R-SIZE-8). */
  onSizeChanged?(cols: number, rows: number, info: SizeAuthorityInfo): void;
}

export interface TerminalLink {
  input(data: string | Uint8Array): void;
  reply(data: Uint8Array): void;
  resize(cols: number, rows: number): void;
  fit(cols: number, rows: number): void;
  detach(): void;
  /** Older lines before `beforeLine` (absolute line number); absent until the core offers it. */
  history?(beforeLine: number, maxLines: number): Promise<HistoryPage>;
}

export interface CreateOptions {
  readonly argv: string[] | null;
  readonly cwd: string | null;
  readonly name: string | null;
  readonly cols: number;
  readonly rows: number;
}

export interface PocketConnection {
  readonly status: ConnectionStatus;
  readonly statusText: string;
  readonly sessions: ReadonlyMap<string, SessionEntry>;
  subscribe(listener: (event: ConnectionEvent) => void): () => void;
  start(): void;
  stop(): void;
  attach(sessionId: string, size: { cols: number; rows: number }, handlers: TerminalHandlers): TerminalLink;
  presence(state: PresenceState, flags: { focused: boolean; visible: boolean }): void;
  focus(sessionId: string | null): void;
  acknowledge(sessionId: string, withInput: boolean): void;
  todo(sessionId: string, action: TodoAction): void;
  dismiss(sessionId: string): void;
  create(options: CreateOptions): Promise<string>;
  rename(sessionId: string, name: string): Promise<void>;
  kill(sessionId: string): Promise<void>;
  /** Removes an ended session from the Burrow's list (refused for a running one); absent where not offered. */
  clear?(sessionId: string): Promise<void>;
  /** Starts a resumable session's coding agent on its conversation again (R-C-RESUME-1); resolves with its id. */
  resume?(sessionId: string): Promise<string>;
  /** Asks the Burrow to drop this phone from its ACL (`forget-me`); absent until the core offers it. */
  forgetMe?(): Promise<void>;
  /** Asks the Burrow for a test push to its devices (`push-test`); absent in connections that cannot. */
  pushTest?(): Promise<{ outcome: PushTestOutcome; targets: number; delivered: number }>;
  /** The direct path (issue 25); absent in connections without one. The path in use while connected. */
  readonly path?: PathName | null;
  readonly directState?: DirectState;
  readonly relayConnected?: boolean;
  /** The Burrow's network policy, once it said. */
  readonly networkPolicy?: NetworkPolicy | null;
  setNetworkPolicy?(policy: NetworkPolicy): Promise<NetworkPolicy>;
  /** The network changed: offer a failed direct path again now. */
  retryDirect?(): void;
}
