import { describe, expect, it } from 'vitest';
import { MAX_PUSH_WARNINGS, PushDispatch, pushWarningFor } from './push-dispatch.js';
import type { PushSender, PushSendReport } from './push-sender.js';

const report = (over: Partial<PushSendReport>): PushSendReport => ({
  outcome: 'delivered',
  targets: 2,
  delivered: 2,
  gone: [],
  noSubscription: [],
  failed: [],
  dropped: 0,
  relayError: null,
  ...over,
});

const senderOf = (r: PushSendReport) => ({ send: async () => r }) as unknown as PushSender;
const req = { sessionId: 'abcdefgh', label: 'x', reason: 'report' } as const;

describe('pushWarningFor', () => {
  it('says nothing for a full delivery and names every shortfall otherwise', () => {
    expect(pushWarningFor(report({}))).toBeNull();
    expect(pushWarningFor(report({ outcome: 'partial', delivered: 1, gone: ['g'] }))).toBe(
      'delivered to 1 of 2 devices; 1 subscription(s) gone (the phone must re-enable)',
    );
    expect(
      pushWarningFor(
        report({
          outcome: 'zero_delivered',
          delivered: 0,
          relayError: { status: 503, message: 'relay answered 503' },
        }),
      ),
    ).toBe('relay answered 503; delivered to none of 2 devices');
    expect(pushWarningFor(report({ outcome: 'no_subscriptions', delivered: 0 }))).toContain('push turned on');
  });
});

describe('PushDispatch', () => {
  it('does nothing when not enrolled', async () => {
    const d = new PushDispatch({ sender: () => null, log: () => {}, now: () => 1 });
    expect(await d.send(req)).toBeNull();
    expect(d.last).toBeNull();
  });

  it('records the last send and keeps a bounded list of warnings, each also logged', async () => {
    const logs: string[] = [];
    let r = report({ outcome: 'zero_delivered', delivered: 0 });
    let t = 0;
    const d = new PushDispatch({ sender: () => senderOf(r), log: (l) => logs.push(l), now: () => ++t });
    for (let i = 0; i < MAX_PUSH_WARNINGS + 3; i++) await d.send(req);
    expect(d.warnings).toHaveLength(MAX_PUSH_WARNINGS);
    expect(d.warnings[0]!.at).toBe(4);
    expect(logs[0]).toBe('push (report, session abcdefgh): delivered to none of 2 devices');
    r = report({});
    await d.send({ ...req, reason: 'test' });
    expect(d.last).toEqual({ at: t, reason: 'test', outcome: 'delivered', targets: 2, delivered: 2 });
    expect(d.warnings).toHaveLength(MAX_PUSH_WARNINGS);
  });
});
