// When the phone offers a direct path, and what it does when one fails (the link's rules; the browsers' real
// RTCPeerConnection runs in tests/e2e/direct.e2e.test.ts). [SPEC: R-DIRECT-1, R-DIRECT-3, R-DIRECT-7, R-NET-1]
import type { NetworkPolicy } from '@burrow/protocol';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../clock.js';
import { DirectLink, POCKET_DIRECT } from './direct-link.js';
import type {
  RtcDataChannelLike,
  RtcDescription,
  RtcIceCandidateEvent,
  RtcPeerConnectionLike,
} from './rtc.js';

class FakeClock implements Clock {
  t = 0;
  timers = new Map<number, { at: number; fn: () => void }>();
  #n = 1;
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.#n++;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  };
  clearTimeout = (h: unknown) => {
    this.timers.delete(h as number);
  };
  advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      const due = [...this.timers.entries()]
        .filter(([, v]) => v.at <= end)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
    }
    this.t = end;
  }
}

class FakeChannel implements RtcDataChannelLike {
  binaryType = 'blob';
  readyState = 'connecting';
  bufferedAmount = 0;
  sent: Uint8Array[] = [];
  onopen: ((e: unknown) => void) | null = null;
  onclose: ((e: unknown) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  onmessage: ((e: { data: unknown }) => void) | null = null;
  send(d: Uint8Array) {
    this.sent.push(d);
  }
  close() {
    this.readyState = 'closed';
  }
}

class FakePc implements RtcPeerConnectionLike {
  connectionState = 'new';
  localDescription: RtcDescription | null = null;
  remote: RtcDescription | null = null;
  channel = new FakeChannel();
  added: string[] = [];
  closed = false;
  onicecandidate: ((e: RtcIceCandidateEvent) => void) | null = null;
  onconnectionstatechange: ((e: unknown) => void) | null = null;
  createDataChannel() {
    return this.channel;
  }
  async createOffer() {
    return { type: 'offer', sdp: 'v=0\r\n' };
  }
  async setLocalDescription(d?: RtcDescription) {
    this.localDescription = d ?? null;
  }
  async setRemoteDescription(d: RtcDescription) {
    this.remote = d;
  }
  async addIceCandidate(c: { candidate: string }) {
    this.added.push(c.candidate);
  }
  close() {
    this.closed = true;
  }
}

function rig(rtc = true) {
  const clock = new FakeClock();
  const pcs: FakePc[] = [];
  const offers: string[] = [];
  const candidates: string[] = [];
  const carrier: string[] = [];
  let answer: ((a: { sdp: string; rejoin: string }) => void) | null = null;
  const link = new DirectLink({
    rtc: rtc
      ? () => {
          const pc = new FakePc();
          pcs.push(pc);
          return pc;
        }
      : null,
    carrier: {
      directAttached: () => carrier.push('attached'),
      directOpened: () => carrier.push('opened'),
      directClosed: (r) => carrier.push(`closed: ${r}`),
      directFrame: () => [],
    },
    offer: (sdp) => {
      offers.push(sdp);
      return new Promise((r) => {
        answer = r;
      });
    },
    candidate: (c) => candidates.push(c),
    deliver: () => {},
    fail: () => {},
    changed: () => {},
    clock,
  });
  return {
    link,
    clock,
    pcs,
    offers,
    candidates,
    carrier,
    answer: (a: { sdp: string; rejoin: string }) => answer?.(a),
  };
}

const allowed: NetworkPolicy = { direct: 'allowed', iceServers: [] };
const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('the phone’s direct path', () => {
  it('an engine without WebRTC never offers, and says so', () => {
    const r = rig(false);
    r.link.policy(allowed);
    expect(r.link.state).toEqual({ kind: 'unsupported' });
    expect(r.offers).toEqual([]);
  });

  it('R-NET-1: nothing is offered until the policy allows it; off closes an open path', async () => {
    const r = rig();
    expect(r.link.state.kind).toBe('unknown');
    r.link.policy({ direct: 'off', iceServers: [] });
    expect(r.offers).toEqual([]);
    r.link.policy(allowed);
    await flush();
    expect(r.offers).toHaveLength(1);
    r.answer({ sdp: 'v=0\r\n', rejoin: 'AAAAAAAAAAAAAAAAAAAAAA' });
    await flush();
    r.pcs[0]!.channel.readyState = 'open';
    r.pcs[0]!.channel.onopen?.({});
    expect(r.link.state.kind).toBe('open');
    expect(r.link.rejoinId).toBe('AAAAAAAAAAAAAAAAAAAAAA');
    r.link.policy({ direct: 'off', iceServers: [] });
    expect(r.pcs[0]!.closed).toBe(true);
    expect(r.link.state.kind).toBe('off');
    expect(r.carrier).toEqual(['attached', 'opened', 'closed: the direct path was turned off']);
  });

  it('R-DIRECT-3: candidates go after the offer, without `a=`, and never Firefox’s empty end-of-candidates', async () => {
    const r = rig();
    r.link.policy(allowed);
    const pc = r.pcs[0]!;
    pc.onicecandidate?.({
      candidate: { candidate: 'a=candidate:1 1 UDP 2114977791 198.18.0.2 5000 typ host', sdpMid: '0' },
    });
    expect(r.candidates).toEqual([]); // the offer has not gone yet
    await flush();
    pc.onicecandidate?.({ candidate: { candidate: '', sdpMid: '0' } });
    pc.onicecandidate?.({ candidate: null });
    pc.onicecandidate?.({ candidate: { candidate: 'not a candidate', sdpMid: '0' } });
    expect(r.candidates).toEqual(['candidate:1 1 UDP 2114977791 198.18.0.2 5000 typ host']);
  });

  it('R-DIRECT-7: no answer in time, or a path that never opens: the relay carries on, offered again later', async () => {
    const r = rig();
    r.link.policy(allowed);
    await flush();
    r.clock.advance(POCKET_DIRECT.answerTimeoutMs);
    await flush();
    expect(r.link.state).toMatchObject({ kind: 'waiting', reason: expect.stringMatching(/did not answer/) });
    r.clock.advance(POCKET_DIRECT.firstRetryMs);
    expect(r.offers.length).toBe(1); // the offer is made once setLocalDescription resolves
    await flush();
    expect(r.offers.length).toBe(2);
    r.answer({ sdp: 'v=0\r\n', rejoin: 'AAAAAAAAAAAAAAAAAAAAAA' });
    await flush();
    r.clock.advance(POCKET_DIRECT.connectTimeoutMs);
    expect(r.link.state).toMatchObject({ kind: 'waiting', reason: 'the direct path did not form in time' });
    // Doubling: the next offer comes twice as late; a network change makes it now.
    const state = r.link.state as { retryAtMs: number };
    expect(state.retryAtMs - r.clock.t).toBe(2 * POCKET_DIRECT.firstRetryMs);
    r.link.retryNow();
    await flush();
    expect(r.offers.length).toBe(3);
  });

  it('the carrier leaving the path (no acknowledgements) closes the channel and schedules a new offer', async () => {
    const r = rig();
    r.link.policy(allowed);
    await flush();
    r.answer({ sdp: 'v=0\r\n', rejoin: 'AAAAAAAAAAAAAAAAAAAAAA' });
    await flush();
    r.pcs[0]!.channel.readyState = 'open';
    r.pcs[0]!.channel.onopen?.({});
    expect(r.link.send(new Uint8Array([1]))).toBe(true);
    r.link.left('the direct path stopped acknowledging');
    expect(r.pcs[0]!.closed).toBe(true);
    expect(r.link.send(new Uint8Array([1]))).toBe(false);
    expect(r.link.state.kind).toBe('waiting');
  });
});
