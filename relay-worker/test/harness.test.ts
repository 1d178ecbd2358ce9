/**
 * The test harness's own promise: a relay start that hangs is started once more, and when that hangs too the
 * error shows what the dev server was doing (its processes, wrangler's own log), not just "no answer".
 * A ready timeout far shorter than any start stands in for the hang: the dev server is real and still busy
 * starting when the harness gives up on it.
 */
import { existsSync } from 'node:fs';
import { afterEach, expect, it, vi } from 'vitest';
import { startRelay } from './harness.js';

afterEach(() => {
  vi.restoreAllMocks();
});

it('a start that answers nothing in time is tried once more, then fails with its processes and log', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  const error = await startRelay({ readyTimeoutMs: 1 }).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toMatch(/^relay did not start: no answer from http:\/\/127\.0\.0\.1:\d+\/v1\/info/);
  expect(error?.message).toMatch(/--- its processes ---\n\s*PID STAT/);
  expect(error?.message).toContain('serve-relay.mjs');
  expect(error?.message).toMatch(/--- wrangler's log|\(no wrangler log\)/);
  expect(warn).toHaveBeenCalledTimes(1);
  expect(String(warn.mock.calls[0]?.[0])).toMatch(
    /^\[relay\] a start hung; starting again\. relay did not start/,
  );
});

it('a restart that hangs keeps the directory it restarts from', async () => {
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  const relay = await startRelay({ keepState: true });
  await relay.kill();
  await expect(
    startRelay({ port: relay.port, persistDir: relay.persistDir, readyTimeoutMs: 1 }),
  ).rejects.toThrow(/relay did not start/);
  expect(existsSync(relay.persistDir)).toBe(true);
  const again = await startRelay({ port: relay.port, persistDir: relay.persistDir });
  expect((await fetch(`${again.url}/v1/info`)).status).toBe(200);
  await again.stop();
});
