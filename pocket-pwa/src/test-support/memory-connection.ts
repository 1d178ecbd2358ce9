/**
 * An in-memory `PocketConnection` for component tests: records every call, and lets a test push directory
 * entries, status changes and terminal output the way the core would.
 */
import type { SessionEntry } from '@burrow/protocol';
import type {
  ConnectionEvent,
  ConnectionStatus,
  CreateOptions,
  PocketConnection,
  TerminalHandlers,
  TerminalLink,
} from '../app/connection-port.js';

export function sessionEntry(over: Partial<SessionEntry> & { id: string }): SessionEntry {
  return {
    name: over.id,
    title: '',
    cwd: '/home/ana',
    command: null,
    watchKey: null,
    cols: 80,
    rows: 24,
    exited: false,
    exitCode: null,
    createdAt: 1000,
    lastActivityAt: 1000,
    outputOffset: 0,
    status: 'NOTHING_TO_SHOW',
    ringing: false,
    ringingSince: null,
    episodeId: null,
    todo: false,
    notification: null,
    awaited: false,
    ...over,
  };
}

export function ringingEntry(id: string, since: number, over: Partial<SessionEntry> = {}): SessionEntry {
  return sessionEntry({
    id,
    status: 'ALERT_RINGING',
    ringing: true,
    ringingSince: since,
    episodeId: `e-${id}`,
    ...over,
  });
}

export class MemoryConnection implements PocketConnection {
  status: ConnectionStatus = { kind: 'connected' };
  statusText = 'connected';
  sessions = new Map<string, SessionEntry>();
  readonly calls: unknown[][] = [];
  readonly attached: Array<{ sessionId: string; handlers: TerminalHandlers; sent: unknown[][] }> = [];
  readonly #listeners = new Set<(e: ConnectionEvent) => void>();
  forgetMe?: () => Promise<void> = async () => {
    this.calls.push(['forgetMe']);
  };

  setSessions(entries: SessionEntry[]): void {
    this.sessions = new Map(entries.map((e) => [e.id, e]));
    this.emit({ type: 'directory', directory: this.sessions });
  }
  setStatus(status: ConnectionStatus, text: string): void {
    this.status = status;
    this.statusText = text;
    this.emit({ type: 'status', status });
  }
  emit(event: ConnectionEvent): void {
    for (const l of this.#listeners) l(event);
  }

  subscribe(listener: (event: ConnectionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  start(): void {
    this.calls.push(['start']);
  }
  stop(): void {
    this.calls.push(['stop']);
  }
  attach(sessionId: string, size: { cols: number; rows: number }, handlers: TerminalHandlers): TerminalLink {
    const sent: unknown[][] = [];
    this.attached.push({ sessionId, handlers, sent });
    this.calls.push(['attach', sessionId, size.cols, size.rows]);
    return {
      input: (d) => sent.push(['input', d]),
      reply: (d) => sent.push(['reply', d]),
      resize: (c, r) => sent.push(['resize', c, r]),
      fit: (c, r) => sent.push(['fit', c, r]),
      detach: () => sent.push(['detach']),
    };
  }
  presence(state: string, flags: { focused: boolean; visible: boolean }): void {
    this.calls.push(['presence', state, flags.focused, flags.visible]);
  }
  focus(sessionId: string | null): void {
    this.calls.push(['focus', sessionId]);
  }
  acknowledge(sessionId: string, withInput: boolean): void {
    this.calls.push(['acknowledge', sessionId, withInput]);
  }
  todo(sessionId: string, action: string): void {
    this.calls.push(['todo', sessionId, action]);
  }
  dismiss(sessionId: string): void {
    this.calls.push(['dismiss', sessionId]);
  }
  async create(options: CreateOptions): Promise<string> {
    this.calls.push(['create', options]);
    return 'new1';
  }
  async rename(sessionId: string, name: string): Promise<void> {
    this.calls.push(['rename', sessionId, name]);
  }
  async kill(sessionId: string): Promise<void> {
    this.calls.push(['kill', sessionId]);
  }
}
