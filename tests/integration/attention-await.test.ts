/**
 * Issue 6, real shells: what `burrow await --until exit` and `--until quiet` run on — AttentionHost.await —
 * resolves with the right cause, and a claimed completion never rings (alert-spec Await).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AWAIT_GRACE_MS } from '../../burrow-agent/src/attention/index.js';
import { AttentionFixture, BUSY_PROGRAM, EXIT_3_AFTER_2S } from './attention-fixture.js';

/** The await's own ceiling: far above every expected resolution, so 'timeout' would be a failure. */
const AWAIT_TIMEOUT_MS = 30_000;

let fx: AttentionFixture;

beforeAll(() => {
  fx = AttentionFixture.create();
  fx.host.updateSettings({ pushDelayMs: 0 });
  fx.host.addWatchRule(BUSY_PROGRAM);
});

afterAll(async () => {
  await fx.close();
});

describe.concurrent('await', () => {
  it('--until exit resolves "exit" when the running command finishes', async () => {
    const s = await fx.shell('zsh');
    fx.type(s, EXIT_3_AFTER_2S.zsh);
    await fx.waitFor(() => fx.host.view(s.id)?.command !== null, 3000, 'the command to start');
    const started = Date.now();
    const cause = await fx.host.await('cli-1', s.id, { until: 'exit', timeoutMs: AWAIT_TIMEOUT_MS });
    expect(cause).toBe('exit');
    expect(Date.now() - started).toBeGreaterThan(1000);
    // Claimed by the await: the finish neither rings nor pushes.
    expect(fx.host.view(s.id)?.ringing).toBe(false);
    expect(fx.pushesFor(s.id)).toHaveLength(0);
  });

  it('--until quiet resolves "quiet" when a busy command settles', async () => {
    const s = await fx.shell('fish');
    fx.type(s, BUSY_PROGRAM);
    await fx.waitFor(() => fx.host.view(s.id)?.command !== null, 3000, 'the command to start');
    const pending = fx.host.await('cli-2', s.id, { until: 'quiet', timeoutMs: AWAIT_TIMEOUT_MS });
    await fx.waitFor(() => fx.host.view(s.id)?.awaited === true, 1000, 'the await to park');
    expect(await pending).toBe('quiet');
    expect(fx.output(s.id)).toContain('tick 19');
    expect(fx.host.view(s.id)?.ringing).toBe(false);
    expect(fx.pushesFor(s.id)).toHaveLength(0);
  });

  it('resolves "idle" when nothing starts within the grace window', async () => {
    const s = await fx.shell('bash');
    const started = Date.now();
    expect(await fx.host.await('cli-3', s.id, { until: 'quiet', timeoutMs: AWAIT_TIMEOUT_MS })).toBe('idle');
    expect(Date.now() - started).toBeGreaterThanOrEqual(AWAIT_GRACE_MS - 100);
  });

  it('resolves "cancelled" when the requester goes away, and for an unknown session', async () => {
    const s = await fx.shell('bash');
    fx.type(s, 'sleep 20');
    await fx.waitFor(() => fx.host.view(s.id)?.command !== null, 3000, 'the command to start');
    const abort = new AbortController();
    const pending = fx.host.await('cli-4', s.id, {
      until: 'exit',
      timeoutMs: AWAIT_TIMEOUT_MS,
      signal: abort.signal,
    });
    abort.abort();
    expect(await pending).toBe('cancelled');
    const gone = fx.host.await('cli-5', s.id, { until: 'exit', timeoutMs: AWAIT_TIMEOUT_MS });
    fx.host.realmGone('cli-5');
    expect(await gone).toBe('cancelled');
    expect(await fx.host.await('cli-6', 'nosuchid', { until: 'exit', timeoutMs: 1000 })).toBe('cancelled');
  });
});
