/**
 * One Burrow's durable record in its Durable Object's SQLite storage: the token hash, id counters, deliveries,
 * push subscriptions and the relay ticket hashes the Burrow published. Nothing of any frame's content is ever
 * stored. [SPEC: RL-STORE-1..3, RL-TICKET-2]
 *
 * Tables are created only at enrollment, so probing an unknown burrowId writes nothing.
 */
import type { PushSubscriptionBody } from '@burrow/protocol';
import { MAX_DELIVERIES_PER_BURROW, MAX_PAIRING_TICKETS, MAX_RELAY_TICKETS_PER_BURROW } from './limits.js';

/** SHA-256 hashes of the relay tickets the Burrow published: a set, no device attached (RL-TICKET-2). */
const TICKETS_TABLE = 'CREATE TABLE IF NOT EXISTS tickets (hash TEXT PRIMARY KEY) WITHOUT ROWID';
/** The open pairing link's ticket hash, if the Burrow published one (RL-TICKET-5). */
const PAIRING_TICKETS_TABLE =
  'CREATE TABLE IF NOT EXISTS pairing_tickets (hash TEXT PRIMARY KEY) WITHOUT ROWID';

/** What a presented ticket is, by its hash: a paired phone's, the open pairing link's, or none. */
export type TicketKind = 'device' | 'pairing' | null;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS burrow (
     singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
     token_hash TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     next_client_id INTEGER NOT NULL,
     next_agent_id INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS deliveries (
     delivery_id TEXT PRIMARY KEY,
     token_hash TEXT NOT NULL,
     registered_at INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS subscriptions (
     delivery_id TEXT PRIMARY KEY,
     endpoint TEXT NOT NULL,
     p256dh TEXT NOT NULL,
     auth TEXT NOT NULL,
     updated_at INTEGER NOT NULL)`,
  TICKETS_TABLE,
];

export interface DeliveryRow {
  readonly deliveryId: string;
  readonly registeredAt: number;
  readonly subscriptionUpdatedAt: number | null;
}

/** A stored subscription, as the push sender reads it (it fits push-send.ts `HeldSubscription`). */
export interface StoredSubscription extends PushSubscriptionBody {
  readonly deliveryId: string;
  readonly updatedAt: number;
}

export type PutDeliveryOutcome = 'created' | 'updated' | 'full';

export class BurrowStore {
  constructor(private readonly sql: SqlStorage) {}

  isEnrolled(): boolean {
    const tables = this.sql
      .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'burrow'")
      .toArray();
    return tables.length > 0 && this.sql.exec('SELECT 1 FROM burrow').toArray().length === 1;
  }

  /** Creates the record; false if this object already holds one (a burrowId collision: 2^-128). */
  enroll(tokenHash: string, now: number): boolean {
    for (const statement of SCHEMA) this.sql.exec(statement);
    if (this.sql.exec('SELECT 1 FROM burrow').toArray().length > 0) return false;
    this.sql.exec(
      'INSERT INTO burrow (singleton, token_hash, created_at, next_client_id, next_agent_id) VALUES (1, ?, ?, 1, 1)',
      tokenHash,
      now,
    );
    return true;
  }

  tokenHash(): string | null {
    if (!this.isEnrolled()) return null;
    return this.sql.exec<{ token_hash: string }>('SELECT token_hash FROM burrow').one().token_hash;
  }

  /** Strictly increasing per kind, durable, so a connId is never reused even across eviction. */
  nextId(kind: 'client' | 'agent'): number {
    const column = kind === 'client' ? 'next_client_id' : 'next_agent_id';
    const row = this.sql
      .exec<{ id: number }>(`UPDATE burrow SET ${column} = ${column} + 1 RETURNING ${column} - 1 AS id`)
      .one();
    return row.id;
  }

  /**
   * Replaces the published ticket set (the caller runs it in one transaction). A Burrow enrolled before tickets
   * existed gets the table here.
   */
  replaceTickets(hashes: readonly string[], pairingHashes: readonly string[] = []): void {
    if (hashes.length > MAX_RELAY_TICKETS_PER_BURROW) throw new RangeError('too many ticket hashes');
    if (pairingHashes.length > MAX_PAIRING_TICKETS) throw new RangeError('too many pairing ticket hashes');
    this.sql.exec(TICKETS_TABLE);
    this.sql.exec(PAIRING_TICKETS_TABLE);
    this.sql.exec('DELETE FROM tickets');
    this.sql.exec('DELETE FROM pairing_tickets');
    for (const hash of hashes) this.sql.exec('INSERT OR IGNORE INTO tickets (hash) VALUES (?)', hash);
    for (const hash of pairingHashes)
      this.sql.exec('INSERT OR IGNORE INTO pairing_tickets (hash) VALUES (?)', hash);
  }

  /** Which published set `hash` (SHA-256 of a presented ticket, RL-ID-2) is in, if any. */
  ticketKind(hash: string): TicketKind {
    const tables = new Set(
      this.sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('tickets', 'pairing_tickets')",
        )
        .toArray()
        .map((r) => r.name),
    );
    if (
      tables.has('tickets') &&
      this.sql.exec('SELECT 1 FROM tickets WHERE hash = ?', hash).toArray().length > 0
    )
      return 'device';
    if (
      tables.has('pairing_tickets') &&
      this.sql.exec('SELECT 1 FROM pairing_tickets WHERE hash = ?', hash).toArray().length > 0
    )
      return 'pairing';
    return null;
  }

  listDeliveries(): DeliveryRow[] {
    return this.sql
      .exec<{ delivery_id: string; registered_at: number; updated_at: number | null }>(
        `SELECT d.delivery_id, d.registered_at, s.updated_at FROM deliveries d
         LEFT JOIN subscriptions s ON s.delivery_id = d.delivery_id ORDER BY d.registered_at, d.delivery_id`,
      )
      .toArray()
      .map((r) => ({
        deliveryId: r.delivery_id,
        registeredAt: r.registered_at,
        subscriptionUpdatedAt: r.updated_at,
      }));
  }

  /** Registers a delivery or replaces its token hash (re-pairing the same phone). */
  putDelivery(deliveryId: string, tokenHash: string, now: number): PutDeliveryOutcome {
    if (this.deliveryTokenHash(deliveryId) !== null) {
      this.sql.exec('UPDATE deliveries SET token_hash = ? WHERE delivery_id = ?', tokenHash, deliveryId);
      return 'updated';
    }
    const count = this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM deliveries').one().n;
    if (count >= MAX_DELIVERIES_PER_BURROW) return 'full';
    this.sql.exec(
      'INSERT INTO deliveries (delivery_id, token_hash, registered_at) VALUES (?, ?, ?)',
      deliveryId,
      tokenHash,
      now,
    );
    return 'created';
  }

  /** Revokes a delivery and drops its subscription: no later push can reach that phone. */
  deleteDelivery(deliveryId: string): boolean {
    this.sql.exec('DELETE FROM subscriptions WHERE delivery_id = ?', deliveryId);
    const cursor = this.sql.exec('DELETE FROM deliveries WHERE delivery_id = ?', deliveryId);
    return cursor.rowsWritten > 0;
  }

  deliveryTokenHash(deliveryId: string): string | null {
    const rows = this.sql
      .exec<{ token_hash: string }>('SELECT token_hash FROM deliveries WHERE delivery_id = ?', deliveryId)
      .toArray();
    return rows[0]?.token_hash ?? null;
  }

  putSubscription(deliveryId: string, subscription: PushSubscriptionBody, now: number): void {
    this.sql.exec(
      `INSERT INTO subscriptions (delivery_id, endpoint, p256dh, auth, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (delivery_id) DO UPDATE SET endpoint = excluded.endpoint, p256dh = excluded.p256dh,
         auth = excluded.auth, updated_at = excluded.updated_at`,
      deliveryId,
      subscription.endpoint,
      subscription.keys.p256dh,
      subscription.keys.auth,
      now,
    );
  }

  deleteSubscription(deliveryId: string): boolean {
    return this.sql.exec('DELETE FROM subscriptions WHERE delivery_id = ?', deliveryId).rowsWritten > 0;
  }

  /**
   * Deletes `deliveryId`'s subscription only while it still names `endpoint`: a push service's 404/410 is
   * about the endpoint the relay used, and the phone may have re-subscribed (a new endpoint) meanwhile.
   * [SPEC: RL-PUSH-4]
   */
  deleteSubscriptionIfEndpoint(deliveryId: string, endpoint: string): boolean {
    return (
      this.sql.exec('DELETE FROM subscriptions WHERE delivery_id = ? AND endpoint = ?', deliveryId, endpoint)
        .rowsWritten > 0
    );
  }

  /**
   * The subscriptions held for `deliveryIds` (the push send's named targets; at most MAX_PUSH_TARGETS, each
   * a primary-key lookup); ids without one are simply absent. [SPEC: RL-PUSH-3]
   */
  subscriptionsFor(deliveryIds: readonly string[]): StoredSubscription[] {
    const out: StoredSubscription[] = [];
    for (const id of deliveryIds) {
      const rows = this.sql
        .exec<{ endpoint: string; p256dh: string; auth: string; updated_at: number }>(
          'SELECT endpoint, p256dh, auth, updated_at FROM subscriptions WHERE delivery_id = ?',
          id,
        )
        .toArray();
      const r = rows[0];
      if (r)
        out.push({
          deliveryId: id,
          endpoint: r.endpoint,
          keys: { p256dh: r.p256dh, auth: r.auth },
          updatedAt: r.updated_at,
        });
    }
    return out;
  }
}
