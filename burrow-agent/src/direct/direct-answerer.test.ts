// Who may open a direct path, and how much of one (the answerer's rules; the real WebRTC peer runs in
// tests/e2e/direct.e2e.test.ts and the bench). [SPEC: R-DIRECT-1, R-DIRECT-4, R-DIRECT-5, R-DIRECT-7]
import { type BurrowMessage, ErrorCode, MAX_DIRECT_CANDIDATES, type NetworkPolicy } from '@burrow/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHROMIUM_OFFER, NDC_ANSWER, REAL_CANDIDATES } from '../../../protocol/test/direct-samples.js';
import { DirectAnswerer, DirectPeerBudget } from './direct-answerer.js';
import type { DirectPeerEvents, DirectPeerFactory } from './ndc-peer.js';

interface Made {
  events: DirectPeerEvents;
  candidates: string[];
  closed: boolean;
}

function rig(options: { policy?: NetworkPolicy['direct']; authorized?: boolean; budget?: number } = {}) {
  const sent: BurrowMessage[] = [];
  const carrier: string[] = [];
  const made: Made[] = [];
  let revoked = 0;
  const factory: DirectPeerFactory = async (_offer, { events }) => {
    const m: Made = { events, candidates: [], closed: false };
    made.push(m);
    return {
      answer: NDC_ANSWER,
      addRemoteCandidate: (c) => m.candidates.push(c),
      send: () => true,
      bufferedAmount: () => 0,
      close: () => {
        m.closed = true;
      },
    };
  };
  const budget = new DirectPeerBudget(options.budget ?? 16);
  const answerer = new DirectAnswerer({
    policy: () => ({ direct: options.policy ?? 'allowed', iceServers: [] }),
    authorized: () => options.authorized ?? true,
    factory: () => factory,
    budget,
    carrier: {
      directAttached: () => carrier.push('attached'),
      directOpened: () => carrier.push('opened'),
      directClosed: (r) => carrier.push(`closed: ${r}`),
      directFrame: () => [],
    },
    send: (m) => sent.push(m),
    deliver: () => {},
    fail: () => {},
    revoked: () => {
      revoked++;
    },
    rejoinId: 'AAAAAAAAAAAAAAAAAAAAAA',
    log: () => {},
    connectTimeoutMs: 1000,
  });
  return { answerer, sent, carrier, made, budget, revoked: () => revoked };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => {
  vi.useRealTimers();
});

describe('R-DIRECT-1: who may open a direct path', () => {
  it('a paired phone with the policy allowing: answered, with the rejoin id, its candidates after the answer', async () => {
    const r = rig();
    r.answerer.offer(7, CHROMIUM_OFFER);
    r.answerer.candidate(REAL_CANDIDATES.at(-1)!, '0'); // before the peer exists: queued
    await flush();
    const [peer] = r.made;
    peer!.events.candidate('candidate:1 1 UDP 2114977791 198.18.0.1 40000 typ host', '0');
    expect(r.sent.map((m) => m.type)).toEqual(['direct-answer', 'direct-candidate']);
    expect(r.sent[0]).toMatchObject({ rid: 7, rejoin: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(peer!.candidates).toEqual([REAL_CANDIDATES.at(-1)]);
    peer!.events.open('prflx');
    expect(r.carrier).toEqual(['attached', 'opened']);
  });

  it('a revoked device’s offer closes its connection; no peer is made', async () => {
    const r = rig({ authorized: false });
    r.answerer.offer(1, CHROMIUM_OFFER);
    await flush();
    expect(r.revoked()).toBe(1);
    expect(r.made).toHaveLength(0);
    expect(r.sent).toHaveLength(0);
  });

  it('with the policy off, or no budget left, the offer is refused direct_unavailable', async () => {
    for (const r of [rig({ policy: 'off' }), rig({ budget: 0 })]) {
      r.answerer.offer(3, CHROMIUM_OFFER);
      await flush();
      expect(r.made).toHaveLength(0);
      expect(r.sent).toEqual([
        expect.objectContaining({ type: 'error', rid: 3, code: ErrorCode.DIRECT_UNAVAILABLE }),
      ]);
    }
  });

  it('a new offer replaces the path; the budget counts each path once', async () => {
    const r = rig();
    r.answerer.offer(1, CHROMIUM_OFFER);
    await flush();
    r.answerer.offer(2, CHROMIUM_OFFER);
    await flush();
    expect(r.made[0]!.closed).toBe(true);
    expect(r.budget.active).toBe(1);
    r.answerer.dispose();
    expect(r.budget.active).toBe(0);
  });
});

describe('R-DIRECT-4 / R-DIRECT-5: the phone’s candidates', () => {
  it(`at most ${MAX_DIRECT_CANDIDATES}; one error for the rest`, async () => {
    const r = rig();
    r.answerer.offer(1, CHROMIUM_OFFER);
    await flush();
    for (let i = 0; i < MAX_DIRECT_CANDIDATES + 5; i++)
      r.answerer.candidate(`candidate:${i} 1 UDP 1 198.18.0.2 ${40000 + i} typ host`, '0');
    expect(r.made[0]!.candidates).toHaveLength(MAX_DIRECT_CANDIDATES);
    expect(r.sent.filter((m) => m.type === 'error')).toEqual([
      expect.objectContaining({ code: ErrorCode.LIMIT_EXCEEDED, rid: null }),
    ]);
  });
});

describe('R-DIRECT-7: a path that does not form in time', () => {
  it('is closed, and the relay carries on', async () => {
    vi.useFakeTimers();
    const r = rig();
    r.answerer.offer(1, CHROMIUM_OFFER);
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(r.made[0]!.closed).toBe(true);
    expect(r.carrier).toEqual(['attached', 'closed: the direct path did not form in time']);
    expect(r.budget.active).toBe(0);
  });
});
