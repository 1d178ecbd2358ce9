/**
 * Per-source-address rate limits (enrollment, new sockets), one Durable Object per source. Bucket state is
 * kept in SQLite so an evicted, re-woken limiter does not forget and hand out a fresh burst. [SPEC: RL-LIM-4]
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from './env.js';
import { CONNECT_RATE_PER_SOURCE, ENROLL_RATE_PER_SOURCE } from './limits.js';
import { type TokenBucketConfig, take } from './token-bucket.js';

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
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS buckets (kind TEXT PRIMARY KEY, tokens REAL NOT NULL, at INTEGER NOT NULL)',
    );
  }

  take(kind: SourceLimitKind): SourceTakeOutcome {
    const config = CONFIG[kind];
    if (config === undefined) throw new TypeError('unknown limit kind');
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
    return { allowed: result.allowed, retryAfterMs: result.retryAfterMs };
  }
}
