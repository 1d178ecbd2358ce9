/**
 * Issue 6, real shells: a watched command that prints and then goes quiet rings once after the settle window
 * (alert-spec WATCHING, Quiesce), its push is due exactly once, and an acknowledged state does not ring again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTLE_MS } from '../../burrow-agent/src/attention/index.js';
import { AttentionFixture, BUSY_PROGRAM, SHELLS, sleep } from './attention-fixture.js';

/** Busy output (6 s) + settle (5 s) + slack for a loaded machine. */
const RING_WITHIN_MS = 20_000;

let fx: AttentionFixture;

beforeAll(() => {
  fx = AttentionFixture.create();
  fx.host.updateSettings({ pushDelayMs: 0 });
  fx.host.addWatchRule(BUSY_PROGRAM);
});

afterAll(async () => {
  await fx.close();
});

describe.concurrent('a watched command that goes quiet', () => {
  for (const shell of SHELLS) {
    it(`rings once after the settle window, then stays quiet once acknowledged (${shell})`, async () => {
      const s = await fx.shell(shell);
      fx.type(s, BUSY_PROGRAM);
      await fx.waitFor(() => fx.output(s.id).includes('tick 19'), 10_000, 'the busy output');
      const quietFrom = Date.now();
      expect(fx.host.view(s.id)?.ringing).toBe(false);
      await fx.waitFor(() => fx.host.view(s.id)?.ringing === true, RING_WITHIN_MS, 'the ring');
      // Not before the settle window (minus the last tick's spacing) has passed since the output stopped.
      expect(Date.now() - quietFrom).toBeGreaterThanOrEqual(SETTLE_MS - 500);
      const view = fx.host.view(s.id)!;
      expect(view.status).toBe('ALERT_RINGING');
      expect(view.watchKey).toBe(BUSY_PROGRAM);
      expect(view.notification?.source).toBe('watching');
      expect(view.notification?.title).toBe(`${BUSY_PROGRAM} went quiet`);
      await fx.waitFor(() => fx.pushesFor(s.id).length > 0, 2000, 'the push');
      expect(fx.pushesFor(s.id)[0]?.episodeId).toBe(fx.host.publicState(s.id).episodeId);

      fx.host.acknowledge(s.id, 'phone-1', false);
      expect(fx.host.view(s.id)?.ringing).toBe(false);
      // Longer than a settle: the acknowledged, still-quiet command must not summon again.
      await sleep(SETTLE_MS + 1000);
      expect(fx.host.view(s.id)?.ringing).toBe(false);
      expect(fx.pushesFor(s.id)).toHaveLength(1);
    });
  }
});
