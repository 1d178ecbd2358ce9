/**
 * Modules of other packages' test and relay code that the fuzz targets reuse, loaded at run time.
 *
 * Why not static imports: `tests/tsconfig.json` is a composite project that must list every file it
 * compiles (TS6307), and these files (protocol's message generators, the terminal corpus loader, the relay's
 * pure router and limits) are not in its list; this slice may not edit that file. So they are imported by a
 * specifier TypeScript does not follow, and typed here by hand with just what the targets use: if one of them
 * changes shape, the targets fail at run time, loudly, rather than at compile time.
 * (The fix is one line in tests/tsconfig.json's "include"; see the issue-8 fuzz report.)
 */
import type { BurrowMessage, ClientMessage, PairBurrowMessage, PairClientMessage } from '@burrow/protocol';
import type fc from 'fast-check';

/** A specifier resolved against this file, out of TypeScript's sight (tsx and vitest both load .ts sources). */
async function load<T>(relativePath: string): Promise<T> {
  const url = new URL(relativePath, import.meta.url).href;
  return (await import(/* @vite-ignore */ url)) as T;
}

export interface ProtocolArbitraries {
  readonly anyClientMessage: fc.Arbitrary<ClientMessage>;
  readonly anyBurrowMessage: fc.Arbitrary<BurrowMessage>;
  readonly pairClientMessages: Record<string, fc.Arbitrary<PairClientMessage>>;
  readonly pairBurrowMessages: Record<string, fc.Arbitrary<PairBurrowMessage>>;
}

/** protocol/test/arbitraries.ts: a generator for every valid remote message. */
export const loadProtocolArbitraries = () => load<ProtocolArbitraries>('../../protocol/test/arbitraries.ts');

export interface RelaySocketLike {
  send(data: Uint8Array): void;
  close(code: number, reason: string): void;
}

export interface SocketMetaLike {
  readonly role: 'agent' | 'client';
  readonly connId: number;
  readonly openedAt: number;
  readonly source?: string;
  readonly spoke?: boolean;
}

export type AdmissionLike =
  | { readonly ok: true; readonly meta: SocketMetaLike }
  | { readonly ok: false; readonly code: number };

/** The part of relay-worker/src/relay-router.ts's RelayRouter the router target drives. */
export interface RelayRouterLike<S extends RelaySocketLike> {
  readonly clientCount: number;
  admitClient(source: string): AdmissionLike;
  clientOpened(socket: S, meta: SocketMetaLike): void;
  agentMeta(): SocketMetaLike;
  agentOpened(socket: S, meta: SocketMetaLike): void;
  clientMessage(meta: SocketMetaLike, data: Uint8Array | string): void;
  agentMessage(socket: S, meta: SocketMetaLike, data: Uint8Array | string): void;
  clientClosed(meta: SocketMetaLike, code: number): void;
  agentClosed(meta: SocketMetaLike): void;
}

export interface RelayRouterModule {
  readonly RelayRouter: new <S extends RelaySocketLike>(deps: {
    readonly now: () => number;
    readonly nextId: (kind: 'client' | 'agent') => number;
  }) => RelayRouterLike<S>;
}

export interface RelayLimitsModule {
  readonly AGENT_FRAME_MAX_BYTES: number;
  readonly CLIENT_FRAME_MAX_BYTES: number;
  readonly MAX_CLIENTS_PER_BURROW: number;
  readonly MAX_CLIENTS_PER_SOURCE: number;
}

export const loadRelayRouter = () => load<RelayRouterModule>('../../relay-worker/src/relay-router.ts');
export const loadRelayLimits = () => load<RelayLimitsModule>('../../relay-worker/src/limits.ts');

/** burrow-agent/test/corpus/terminal-reports.json: real terminal sequences (the parser's table-test corpus). */
export interface CorpusEntry {
  readonly name: string;
  readonly input?: string;
  readonly hex?: string;
}
