/**
 * Per-source-address rate limits (enrollment, new sockets), one Durable Object per source. Bucket state is
 * kept in SQLite so an evicted, re-woken limiter does not forget and hand out a fresh burst. [SPEC: RL-LIM-4]
 *
 * Once every bucket of a source is full again it answers exactly like a source never seen, so an alarm then
 * deletes the object's storage: what the relay keeps grows with the addresses active in the last hour (the
 * enrollment bucket's refill), not with every address that ever connected (an IPv6 attacker has 2^16 /64s
 * in a /48).
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from './env.js';
import { CONNECT_RATE_PER_SOURCE, ENROLL_RATE_PER_SOURCE } from './limits.js';
import { fullAgainAt, type TokenBucketConfig, take } from './token-bucket.js';

export type SourceLimitKind = 'enroll' | 'connect';

const CONFIG: Readonly<Record<SourceLimitKind, TokenBucketConfig>> = {
  enroll: ENROLL_RATE_PER_SOURCE,
  connect: CONNECT_RATE_PER_SOURCE,
};

export interface SourceTakeOutcome {
  readonly allowed: boolean;
  readonly retryAfterMs: number;
}

export class SourceLimiter extends DurableObject<Env> {
  /** The table exists (it is created lazily: `deleteAll` drops it while this instance may live on). */
  private schemaReady = false;

  async take(kind: SourceLimitKind): Promise<SourceTakeOutcome> {
    const config = CONFIG[kind];
    if (config === undefined) throw new TypeError('unknown limit kind');
    this.ensureSchema();
    const sql = this.ctx.storage.sql;
    const row = sql
      .exec<{ tokens: number; at: number }>('SELECT tokens, at FROM buckets WHERE kind = ?', kind)
      .toArray()[0];
    const result = take(config, row, Date.now());
    sql.exec(
      'INSERT INTO buckets (kind, tokens, at) VALUES (?, ?, ?) ON CONFLICT (kind) DO UPDATE SET tokens = excluded.tokens, at = excluded.at',
      kind,
      result.state.tokens,
      result.state.at,
    );
    await this.ctx.storage.setAlarm(this.forgettableAt());
    return { allowed: result.allowed, retryAfterMs: result.retryAfterMs };
  }

  /** Deletes everything once every bucket is full again; otherwise waits until they will be. */
  override async alarm(): Promise<void> {
    this.ensureSchema();
    const at = this.forgettableAt();
    if (at > Date.now()) {
      await this.ctx.storage.setAlarm(at);
      return;
    }
    await this.ctx.storage.deleteAll();
    this.schemaReady = false;
  }

  private ensureSchema(): void {
    if (this.schemaReady) return;
    this.ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS buckets (kind TEXT PRIMARY KEY, tokens REAL NOT NULL, at INTEGER NOT NULL)',
    );
    this.schemaReady = true;
  }

  /** When every stored bucket is full again (a row of an unknown kind counts as full: nothing reads it). */
  private forgettableAt(): number {
    const rows = this.ctx.storage.sql
      .exec<{ kind: string; tokens: number; at: number }>('SELECT kind, tokens, at FROM buckets')
      .toArray();
    let latest = 0;
    for (const row of rows) {
      const config = CONFIG[row.kind as SourceLimitKind];
      if (config !== undefined) latest = Math.max(latest, fullAgainAt(config, row));
    }
    return latest;
  }
}
