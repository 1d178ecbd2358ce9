/**
 * The Burrow's side of relay tickets (issue 16.5; protocol SPEC-relay RL-TICKET-1..4). A paired phone presents
 * its ticket when it connects and gets past the relay's shared per-Burrow connect bucket. Attackers from any
 * number of addresses can keep that bucket empty, but they have no ticket. The Burrow publishes the SHA-256
 * hashes of every paired phone's tickets for the previous, current and next epoch
 * (`@burrow/crypto` `relayTicket`, derived from the device psk). The set is sorted and names no device, so the
 * relay can check a ticket without learning which phone holds it.
 *
 * `RelayTicketPublisher` is a small state machine on injected timers. It publishes at start, again right
 * after every epoch boundary (the set then covers the new previous/current/next), and at once when a phone is
 * paired or revoked. A failed publish is retried after TICKET_RETRY_MS. The last published set covers one
 * more epoch, so phones keep getting in meanwhile; without any set, phones simply use the shared bucket.
 *
 * While `burrow pair` is open the set also holds the hash of that link's pairing ticket (issue 24.5,
 * RL-TICKET-5; `@burrow/crypto` `pairingTicket`), so the phone answering the link gets its own budget at the
 * relay. `changed()` publishes at once and says when a set holding the change is at the relay.
 */
import { createHash } from 'node:crypto';
import { pairingTicket, RELAY_TICKET_EPOCH_MS, relayTicket, relayTicketEpoch } from '@burrow/crypto';
import {
  decodeBase64url,
  encodeBase64url,
  MAX_RELAY_TICKET_DEVICES,
  RELAY_TICKET_EPOCHS_PUBLISHED,
} from '@burrow/protocol';
import type { LinkTimers } from './relay-link.js';

/** After a failed publish, the next try (ms). */
export const TICKET_RETRY_MS = 30_000;
/** Publish this long after an epoch boundary (ms), so the Burrow's timer is surely in the new epoch. */
export const TICKET_EPOCH_MARGIN_MS = 1_000;

/** The hashes to publish for phones with `psks` at `nowMs`: three epochs each, sorted, distinct. */
export function relayTicketHashes(psks: readonly Uint8Array[], burrowId: string, nowMs: number): string[] {
  if (psks.length > MAX_RELAY_TICKET_DEVICES)
    throw new RangeError(`at most ${MAX_RELAY_TICKET_DEVICES} paired phones`);
  const id = decodeBase64url(burrowId);
  const current = relayTicketEpoch(nowMs);
  const half = Math.floor(RELAY_TICKET_EPOCHS_PUBLISHED / 2);
  const hashes = new Set<string>();
  for (const psk of psks) {
    for (let epoch = current - half; epoch <= current + half; epoch++) {
      if (epoch < 0) continue;
      const ticket = relayTicket(psk, id, epoch);
      hashes.add(encodeBase64url(createHash('sha256').update(ticket).digest()));
    }
  }
  // Sorted: the order says nothing about which phone was paired first.
  return [...hashes].sort();
}

/** The hashes of the pairing tickets of the open links with `secrets` (at most one is open). */
export function pairingTicketHashes(secrets: readonly Uint8Array[], burrowId: string): string[] {
  const id = decodeBase64url(burrowId);
  return secrets.map((secret) =>
    encodeBase64url(createHash('sha256').update(pairingTicket(secret, id)).digest()),
  );
}

export interface RelayTicketPublisherOptions {
  readonly burrowId: string;
  /** Every paired phone's psk, read at publish time (a revocation takes effect at the next publish). */
  readonly psks: () => readonly Uint8Array[];
  /** The open pairing link's secret, if `burrow pair` is open (read at publish time). */
  readonly pairingSecrets?: () => readonly Uint8Array[];
  /** `PUT /v1/burrows/:id/tickets`; rejects when the relay refused or could not be reached. */
  readonly publish: (hashes: readonly string[], pairingHashes: readonly string[]) => Promise<void>;
  readonly timers: LinkTimers;
  readonly log: (line: string) => void;
}

export class RelayTicketPublisher {
  readonly #o: RelayTicketPublisherOptions;
  #timer: unknown = null;
  #running = false;
  #inFlight = false;
  /** Devices changed while a publish was in flight: publish again once it ends. */
  #again = false;
  #lastError: string | null = null;
  /** Callers of `changed()` waiting for a publish that started after their change. */
  #waiting: ((published: boolean) => void)[] = [];
  /** Those whose change the publish in flight already holds. */
  #inFlightWaiting: ((published: boolean) => void)[] = [];

  constructor(options: RelayTicketPublisherOptions) {
    this.#o = options;
  }

  /**
   * Devices or the pairing offer changed: publish now (or right after the publish in flight). Resolves true
   * once a set holding the change is at the relay, false when that publish failed or the publisher stopped.
   */
  changed(): Promise<boolean> {
    if (!this.#running) return Promise.resolve(false);
    const settled = new Promise<boolean>((resolve) => this.#waiting.push(resolve));
    this.devicesChanged();
    return settled;
  }

  /** Publishes now, and from then on at every epoch boundary. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#publishNow();
  }

  stop(): void {
    this.#running = false;
    this.#clearTimer();
    for (const resolve of [...this.#inFlightWaiting, ...this.#waiting]) resolve(false);
    this.#inFlightWaiting = [];
    this.#waiting = [];
  }

  /** A phone was paired or revoked: publish the new set now. */
  devicesChanged(): void {
    if (!this.#running) return;
    if (this.#inFlight) this.#again = true;
    else this.#publishNow();
  }

  #publishNow(): void {
    this.#clearTimer();
    this.#inFlight = true;
    this.#again = false;
    this.#inFlightWaiting.push(...this.#waiting);
    this.#waiting = [];
    const now = this.#o.timers.now();
    let hashes: string[];
    let pairing: string[];
    try {
      hashes = relayTicketHashes(this.#o.psks(), this.#o.burrowId, now);
      pairing = pairingTicketHashes(this.#o.pairingSecrets?.() ?? [], this.#o.burrowId);
    } catch (error) {
      this.#settled(false, (error as Error).message);
      return;
    }
    this.#o.publish(hashes, pairing).then(
      () => this.#settled(true, null),
      (error: unknown) => this.#settled(false, (error as Error).message),
    );
  }

  #settled(ok: boolean, error: string | null): void {
    this.#inFlight = false;
    for (const resolve of this.#inFlightWaiting) resolve(ok);
    this.#inFlightWaiting = [];
    if (!this.#running) return;
    if (!ok && error !== this.#lastError) this.#o.log(`relay tickets: could not publish: ${error}`);
    this.#lastError = ok ? null : error;
    if (this.#again) {
      this.#publishNow();
      return;
    }
    const now = this.#o.timers.now();
    const nextEpoch = (relayTicketEpoch(now) + 1) * RELAY_TICKET_EPOCH_MS + TICKET_EPOCH_MARGIN_MS;
    const delay = ok ? nextEpoch - now : Math.min(TICKET_RETRY_MS, nextEpoch - now);
    this.#timer = this.#o.timers.setTimeout(() => {
      this.#timer = null;
      this.#publishNow();
    }, delay);
  }

  #clearTimer(): void {
    if (this.#timer !== null) this.#o.timers.clearTimeout(this.#timer);
    this.#timer = null;
  }
}
