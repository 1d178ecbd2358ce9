/**
 * The app's paired Burrows and one live connection to each (DESIGN §7: several Burrows may be paired). An
 * external store for React (`useSyncExternalStore`): every change bumps `version` and notifies. Storage and
 * the connection factory are injected, so tests run it with IndexedDB in memory and fake connections.
 */

import type { PairingRecord } from '../core/index.js';
import type { IdbPairingStorage } from '../store/pairing-store.js';
import { displayName } from './burrow-name.js';
import type { PocketConnection } from './connection-port.js';

export interface PairedBurrow {
  readonly record: PairingRecord;
  readonly name: string;
  readonly connection: PocketConnection;
  /** The Burrow removed this phone (close code / `revoked` event): offer to delete the pairing. */
  readonly revoked: boolean;
}

export type ConnectionFactory = (record: PairingRecord) => PocketConnection;

export class BurrowHub {
  #burrows: PairedBurrow[] = [];
  #localNames = new Map<string, string>();
  readonly #listeners = new Set<() => void>();
  readonly #unsubscribe = new Map<string, () => void>();
  #version = 0;

  constructor(
    private readonly storage: IdbPairingStorage,
    private readonly connect: ConnectionFactory,
  ) {}

  get version(): number {
    return this.#version;
  }
  get burrows(): readonly PairedBurrow[] {
    return this.#burrows;
  }
  find(burrowId: string): PairedBurrow | undefined {
    return this.#burrows.find((b) => b.record.burrowId === burrowId);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };
  getVersion = (): number => this.#version;

  /** Reads every pairing and connects to each Burrow. */
  async load(): Promise<void> {
    const [records, names] = await Promise.all([this.storage.list(), this.storage.localNames()]);
    this.#localNames = names;
    for (const record of records) this.#attach(record);
    this.#changed();
  }

  /** After pairing (the core already stored the record): connect to it, replacing an older pairing. */
  add(record: PairingRecord): void {
    this.#detach(record.burrowId);
    this.#attach(record);
    this.#changed();
  }

  async rename(burrowId: string, name: string | null): Promise<void> {
    await this.storage.rename(burrowId, name);
    this.#localNames = await this.storage.localNames();
    this.#burrows = this.#burrows.map((b) =>
      b.record.burrowId === burrowId ? { ...b, name: this.#nameOf(b.record) } : b,
    );
    this.#changed();
  }

  /**
   * Removes a pairing. If the Burrow is reachable it is first asked to forget this phone; the local pairing is
   * deleted either way (the owner can still revoke it with `burrow devices revoke`).
   */
  async remove(burrowId: string): Promise<{ forgotten: boolean }> {
    const burrow = this.find(burrowId);
    let forgotten = false;
    if (burrow?.connection.forgetMe && burrow.connection.status.kind === 'connected') {
      forgotten = await burrow.connection.forgetMe().then(
        () => true,
        () => false,
      );
    }
    this.#detach(burrowId);
    await this.storage.delete(burrowId);
    this.#changed();
    return { forgotten };
  }

  stop(): void {
    for (const id of [...this.#unsubscribe.keys()]) this.#detach(id);
  }

  #nameOf(record: PairingRecord): string {
    return displayName(record.burrowName, this.#localNames.get(record.burrowId));
  }

  #attach(record: PairingRecord): void {
    const connection = this.connect(record);
    const entry: PairedBurrow = { record, name: this.#nameOf(record), connection, revoked: false };
    this.#burrows = [...this.#burrows, entry];
    this.#unsubscribe.set(
      record.burrowId,
      connection.subscribe((event) => {
        if (event.type === 'revoked') {
          this.#burrows = this.#burrows.map((b) =>
            b.record.burrowId === record.burrowId ? { ...b, revoked: true } : b,
          );
        }
        this.#changed();
      }),
    );
    connection.start();
  }

  #detach(burrowId: string): void {
    const burrow = this.find(burrowId);
    this.#unsubscribe.get(burrowId)?.();
    this.#unsubscribe.delete(burrowId);
    burrow?.connection.stop();
    this.#burrows = this.#burrows.filter((b) => b.record.burrowId !== burrowId);
  }

  #changed(): void {
    this.#version++;
    for (const l of this.#listeners) l();
  }
}
