/**
 * The per-source limiter forgets a source once its buckets are full again (`source-limiter.ts`), so the
 * relay's storage does not grow with every address that ever connected — checked on workerd (`wrangler dev`)
 * by reading the limiter's SQLite files, with a source that is still mid-burst as the control: it must be
 * remembered. [SPEC: RL-LIM-4, RL-STORE-1]
 *
 * This file's relay never enrolls a Burrow, so it runs as deployed without `ENROLL_SECRET` (no development
 * flag) and also checks that such a relay's enrollment is closed (issue 16.1, RL-HTTP-3).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloseCode, decodeErrorBody, decodeRelayInfo } from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECT_RATE_PER_SOURCE } from '../src/limits.js';
import { type RelayHandle, startRelay } from './harness.js';
import { freshSource, openClient } from './relay-client.js';

/** A well-formed burrowId nobody enrolled: the phone route takes the source's token, then closes 4008. */
const UNENROLLED_BURROW = 'AAAAAAAAAAAAAAAAAAAAAA';
/** Margin for the alarm to run after the bucket is full again, on a loaded machine (ms). */
const ALARM_SLACK_MS = 3_000;

let relay: RelayHandle;
beforeAll(async () => {
  relay = await startRelay({ openEnrollment: false });
});
afterAll(async () => {
  await relay?.stop();
});

/**
 * How many of the limiter's SQLite files (databases and WALs) hold a connect-bucket row. Only this file's
 * sources use this relay, one at a time, so the count is theirs.
 */
function filesHolding(): number {
  const dir = join(relay.persistDir, 'state', 'v3', 'do', 'burrow-relay-SourceLimiter');
  const tokens = Buffer.from('connect');
  return readdirSync(dir)
    .filter((name) => !name.startsWith('metadata') && !name.endsWith('-shm'))
    .filter((name) => readFileSync(join(dir, name)).includes(tokens)).length;
}

async function knock(source: string): Promise<number> {
  const socket = await openClient(relay.wsUrl, UNENROLLED_BURROW, { source });
  return (await socket.closed).code;
}

describe('per-source limiter storage [RL-LIM-4]', () => {
  it('deletes a source’s buckets once they are full again, and keeps a source that is still limited', async () => {
    const quiet = freshSource();
    expect(await knock(quiet)).toBe(CloseCode.BURROW_DELETED);
    expect(filesHolding()).toBeGreaterThan(0);
    // One token taken: full again one interval later; the alarm then deletes the object's storage.
    const started = Date.now();
    while (
      filesHolding() > 0 &&
      Date.now() - started < CONNECT_RATE_PER_SOURCE.refillIntervalMs + ALARM_SLACK_MS
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const forgottenMs = Date.now() - started;
    expect(filesHolding()).toBe(0);

    // A source that spent its whole burst is remembered: its next socket is still refused.
    const busy = freshSource();
    let knocks = 0;
    while ((await knock(busy)) !== CloseCode.RATE_LIMITED) {
      knocks += 1;
      if (knocks > 2 * CONNECT_RATE_PER_SOURCE.capacity) throw new Error('the source was never limited');
    }
    expect(knocks).toBeGreaterThanOrEqual(CONNECT_RATE_PER_SOURCE.capacity);
    await new Promise((r) => setTimeout(r, ALARM_SLACK_MS));
    expect(filesHolding()).toBeGreaterThan(0);
    console.log(
      `[figure] per-source limiter: a source with one socket forgotten ${forgottenMs} ms after it (bucket full after ${CONNECT_RATE_PER_SOURCE.refillIntervalMs} ms); a source mid-burst kept`,
    );
  }, 60_000);
});

describe('a relay without ENROLL_SECRET and without the development flag [RL-HTTP-3]', () => {
  it('refuses every enrollment with 403 and says it is gated (issue 16.1)', async () => {
    const info = decodeRelayInfo(await (await fetch(`${relay.url}/v1/info`)).json());
    expect(info.enrollmentGated).toBe(true);
    for (const authorization of [undefined, 'Bearer anything', 'Bearer ']) {
      const response = await fetch(`${relay.url}/v1/burrows`, {
        method: 'POST',
        headers: {
          'CF-Connecting-IP': freshSource(),
          ...(authorization !== undefined ? { Authorization: authorization } : {}),
        },
      });
      const text = await response.text();
      expect(response.status, text).toBe(403);
      expect(decodeErrorBody(JSON.parse(text)).error.code).toBe('forbidden');
    }
  });
});
