// One Noise session over the relay and a direct channel: moving onto the direct path and back without losing,
// repeating or reordering a message, and failing closed when a path tampers. [SPEC: R-PATH-1 … R-PATH-8]
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  decodeDirectFrame,
  decodeRejoin,
  decodeRelayCarrierFrame,
  encodeDirectAck,
  encodeDirectData,
  encodeDirectStart,
  encodeRejoin,
  encodeRelayResume,
  PATH_CARRIER,
  ProtocolError,
  RELAY_REJOINED,
} from '../src/remote/index.js';
import { expectRule, FC } from './helpers.js';
import {
  deliver,
  FakeClock,
  frame,
  frameNumber,
  killDirect,
  openDirect,
  type Side,
  settle,
  side,
} from './path-rig.js';

function pair() {
  const clock = new FakeClock();
  return { clock, a: side(clock), b: side(clock) };
}
const numbers = (s: Side) => s.received.map(frameNumber);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
function sendRange(s: Side, from: number, to: number) {
  for (let i = from; i < to; i++) expect(s.carrier.send(frame(i))).toBe(true);
}

describe('R-PATH-2 / R-PATH-5 / R-PATH-8: carrier frames', () => {
  test('direct frames and relay carrier frames round-trip', () => {
    expect(decodeDirectFrame(encodeDirectStart(2 ** 40))).toEqual({ kind: 'start', first: 2 ** 40 });
    expect(decodeDirectFrame(encodeDirectAck(7))).toEqual({ kind: 'ack', received: 7 });
    const message = new Uint8Array(40).fill(9);
    const data = decodeDirectFrame(encodeDirectData(message));
    expect(data.kind === 'data' && [...data.message]).toEqual([...message]);
    expect(decodeRelayCarrierFrame(encodeRelayResume(12))).toEqual({ kind: 'resume', first: 12 });
    expect(decodeRelayCarrierFrame(RELAY_REJOINED)).toEqual({ kind: 'rejoined' });
    const id = new Uint8Array(16).fill(3);
    expect([...(decodeRejoin(encodeRejoin(id)) ?? [])]).toEqual([...id]);
    expect(decodeRejoin(new Uint8Array(96))).toBeNull();
  });

  test.each([
    ['empty', new Uint8Array(0)],
    ['an unknown kind', Uint8Array.of(9, 0, 0)],
    ['DATA shorter than a Noise message', Uint8Array.of(0, 1, 2)],
    ['a short ACK', Uint8Array.of(1, 0)],
    ['a number of 2^53 or more', Uint8Array.of(2, 0, 0x20, 0, 0, 0, 0, 0, 0)],
    ['more than 64 KiB', new Uint8Array(65_537)],
  ])('a direct frame that is %s is fatal', (_, bytes) => {
    expectRule(() => decodeDirectFrame(bytes), 'R-PATH-2', { fatal: true });
  });

  test('a short relay frame that is not RESUME or REJOINED is fatal', () => {
    expectRule(() => decodeRelayCarrierFrame(Uint8Array.of(7, 1)), 'R-PATH-5', { fatal: true });
  });
});

describe('R-PATH-1 / R-PATH-3: onto the direct path', () => {
  test('relay only: every frame once, in order', () => {
    const { a, b } = pair();
    sendRange(a, 0, 50);
    settle(a, b);
    expect(numbers(b)).toEqual(range(0, 50));
    expect(a.carrier.sendingOn).toBe('relay');
  });

  test('frames sent before the switch and still on the relay come first; the direct ones wait (R-PATH-7)', () => {
    const { a, b } = pair();
    sendRange(a, 0, 10); // on the relay, not delivered yet
    openDirect(a, b);
    expect(a.carrier.sendingOn).toBe('direct');
    sendRange(a, 10, 20);
    deliver(a, b, 'direct'); // START and ten DATA arrive first
    expect(b.received).toEqual([]);
    deliver(a, b, 'relay');
    expect(numbers(b)).toEqual(range(0, 20));
    expect(a.carrier.counters).toMatchObject({ relayMessages: 10, directMessages: 10, toDirect: 1 });
  });

  test('the relay carries nothing of the session while the direct path does', () => {
    const { a, b } = pair();
    openDirect(a, b);
    settle(a, b);
    const before = { a: a.carrier.counters.relayBytes, b: b.carrier.counters.relayBytes };
    sendRange(a, 0, 100);
    sendRange(b, 0, 100);
    settle(a, b);
    expect(numbers(b)).toEqual(range(0, 100));
    expect(numbers(a)).toEqual(range(0, 100));
    expect(a.carrier.counters.relayBytes - before.a).toBe(0);
    expect(b.carrier.counters.relayBytes - before.b).toBe(0);
  });

  test('R-PATH-4: the receiver acknowledges, so the sender keeps little', () => {
    const { clock, a, b } = pair();
    openDirect(a, b);
    sendRange(a, 0, 5);
    deliver(a, b, 'direct');
    expect(a.carrier.unackedBytes).toBeGreaterThan(0);
    clock.advance(PATH_CARRIER.ackDelayMs);
    deliver(b, a, 'direct');
    expect(a.carrier.unackedBytes).toBe(0);
  });
});

describe('R-PATH-5: back to the relay', () => {
  test('the channel dies mid-flood: what it lost comes again on the relay, nothing twice', () => {
    const { clock, a, b } = pair();
    sendRange(a, 0, 5);
    openDirect(a, b);
    sendRange(a, 5, 200);
    deliver(a, b, 'relay');
    deliver(a, b, 'direct', 60); // START and 59 DATA made it; the rest were in flight
    clock.advance(PATH_CARRIER.ackDelayMs);
    deliver(b, a, 'direct', 1); // one ACK got back
    killDirect(a, b);
    expect(a.carrier.sendingOn).toBe('relay');
    expect(a.left).toEqual(['closed']);
    sendRange(a, 200, 220); // new frames follow the resent ones on the relay
    settle(a, b);
    expect(numbers(b)).toEqual(range(0, 220));
    expect(a.carrier.counters.resent).toBeGreaterThan(0);
    expect(a.ended).toEqual([]);
  });

  test('a direct path that stops acknowledging is left after ackTimeoutMs, and its late frames ignored', () => {
    const { clock, a, b } = pair();
    openDirect(a, b);
    settle(a, b);
    sendRange(a, 0, 10); // black-holed: nothing is delivered
    clock.advance(PATH_CARRIER.ackTimeoutMs - 1);
    expect(a.carrier.sendingOn).toBe('direct');
    clock.advance(1);
    expect(a.carrier.sendingOn).toBe('relay');
    expect(a.left).toEqual(['the direct path stopped acknowledging']);
    deliver(a, b, 'relay');
    expect(numbers(b)).toEqual(range(0, 10));
    // b was told by the RESUME and leaves too; the stale direct frames arriving now change nothing.
    expect(b.carrier.sendingOn).toBe('relay');
    deliver(a, b, 'direct');
    expect(numbers(b)).toEqual(range(0, 10));
  });

  test('too much unacknowledged leaves the direct path', () => {
    const clock = new FakeClock();
    const small = { ...PATH_CARRIER, maxUnackedBytes: 1000 };
    const a = side(clock, small);
    const b = side(clock, small);
    openDirect(a, b);
    for (let i = 0; a.carrier.sendingOn === 'direct' && i < 200; i++) a.carrier.send(frame(i));
    expect(a.left).toEqual(['the direct path stopped acknowledging']);
  });

  test('both directions fall back and come back, many times, byte-exact', () => {
    const { clock, a, b } = pair();
    let na = 0;
    let nb = 0;
    for (let round = 0; round < 20; round++) {
      openDirect(a, b);
      for (let i = 0; i < 30; i++) {
        a.carrier.send(frame(na++));
        b.carrier.send(frame(nb++));
      }
      deliver(a, b, 'direct', round % 7);
      deliver(b, a, 'direct', round % 5);
      clock.advance(PATH_CARRIER.ackDelayMs);
      killDirect(a, b);
      settle(a, b);
    }
    expect(numbers(b)).toEqual(range(0, na));
    expect(numbers(a)).toEqual(range(0, nb));
  });
});

describe('R-PATH-8: the relay goes while the direct path carries the session', () => {
  test('the session continues on the direct path; losing that too ends it', () => {
    const { a, b } = pair();
    openDirect(a, b);
    settle(a, b);
    a.carrier.relayLost();
    b.carrier.relayLost();
    sendRange(a, 0, 30);
    sendRange(b, 0, 30);
    settle(a, b);
    expect(numbers(b)).toEqual(range(0, 30));
    expect(numbers(a)).toEqual(range(0, 30));
    expect(a.ended).toEqual([]);
    killDirect(a, b);
    expect(a.ended).toHaveLength(1);
    expect(b.ended).toHaveLength(1);
  });

  test('without a direct path, losing the relay ends the connection', () => {
    const { a } = pair();
    a.carrier.relayLost();
    expect(a.ended).toEqual(['the relay connection is gone']);
    expect(a.carrier.send(frame(0))).toBe(false);
  });

  test('a new relay socket (REJOIN) carries the fallback again', () => {
    const { a, b } = pair();
    openDirect(a, b);
    settle(a, b);
    a.carrier.relayLost();
    b.carrier.relayLost();
    a.toRelay.queue.length = b.toRelay.queue.length = 0;
    a.carrier.relayAttached();
    b.carrier.relayAttached();
    sendRange(a, 0, 10);
    deliver(a, b, 'direct', 3);
    killDirect(a, b);
    sendRange(a, 10, 15);
    settle(a, b);
    expect(numbers(b)).toEqual(range(0, 15));
  });
});

describe('a path that tampers is refused, never believed', () => {
  test('a relay frame injected after the sender moved to the direct path is fatal (R-PATH-6)', () => {
    const { a, b } = pair();
    sendRange(a, 0, 3);
    openDirect(a, b);
    deliver(a, b, 'direct');
    deliver(a, b, 'relay');
    const stale = new Uint8Array(40);
    expectRule(() => b.carrier.relayFrame(stale), 'R-PATH-6', { fatal: true });
  });

  test('a RESUME naming messages never received is fatal', () => {
    const { b } = pair();
    expectRule(() => b.carrier.relayFrame(encodeRelayResume(5)), 'R-PATH-5', { fatal: true });
  });

  test('a RESUME rewritten lower makes the next message fail to decrypt: the channel fails closed', () => {
    const { a, b } = pair();
    openDirect(a, b);
    sendRange(a, 0, 10);
    deliver(a, b, 'direct', 6); // START + five DATA
    killDirect(a, b);
    const resume = a.toRelay.queue.shift()!;
    expect(decodeRelayCarrierFrame(resume)).toEqual({ kind: 'resume', first: 0 });
    // The relay says the resend starts at 0 instead: b skips five, then decrypts a message out of turn.
    b.carrier.relayFrame(encodeRelayResume(0));
    expect(() => deliver(a, b, 'relay')).not.toThrow(); // the true resend starts at 0 too: consistent
    // Now shift it by one: a frame counted as the wrong number reaches decryption and fails.
    const c = pair();
    openDirect(c.a, c.b);
    sendRange(c.a, 0, 10);
    deliver(c.a, c.b, 'direct', 6);
    killDirect(c.a, c.b);
    c.a.toRelay.queue.shift();
    c.b.carrier.relayFrame(encodeRelayResume(1));
    expect(() => deliver(c.a, c.b, 'relay')).toThrow(/decryption failed/);
    expect(() => c.b.carrier.relayFrame(c.a.toRelay.queue[0] ?? new Uint8Array(40))).toThrow(ProtocolError);
  });

  test('a relay that drops one message breaks decryption of the next (no silent gap)', () => {
    const { a, b } = pair();
    sendRange(a, 0, 3);
    a.toRelay.queue.splice(1, 1);
    expect(() => deliver(a, b, 'relay')).toThrow(/R-PATH-5|decryption failed/);
  });

  test('ACKs that go backwards or beyond what was sent are fatal (R-PATH-4)', () => {
    const { a, b } = pair();
    openDirect(a, b);
    expectRule(() => a.carrier.directFrame(encodeDirectAck(1)), 'R-PATH-4', { fatal: true });
    sendRange(a, 0, 3);
    a.carrier.directFrame(encodeDirectAck(2));
    expectRule(() => a.carrier.directFrame(encodeDirectAck(1)), 'R-PATH-4', { fatal: true });
  });

  test('a second START on one channel, or DATA before START, is fatal (R-PATH-3)', () => {
    const { a, b } = pair();
    openDirect(a, b);
    deliver(a, b, 'direct');
    expectRule(() => b.carrier.directFrame(encodeDirectStart(0)), 'R-PATH-3', { fatal: true });
    const c = pair();
    c.b.carrier.directAttached();
    expectRule(() => c.b.carrier.directFrame(encodeDirectData(new Uint8Array(20))), 'R-PATH-3', {
      fatal: true,
    });
  });
});

describe('property: any schedule of deliveries, channel deaths and timeouts is byte-exact', () => {
  type Op =
    | { op: 'send'; who: 0 | 1; count: number }
    | { op: 'deliver'; who: 0 | 1; path: 'relay' | 'direct'; count: number }
    | { op: 'open' }
    | { op: 'kill' }
    | { op: 'time'; ms: number };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      op: fc.constant('send' as const),
      who: fc.constantFrom(0 as const, 1 as const),
      count: fc.integer({ min: 1, max: 8 }),
    }),
    fc.record({
      op: fc.constant('deliver' as const),
      who: fc.constantFrom(0 as const, 1 as const),
      path: fc.constantFrom('relay' as const, 'direct' as const),
      count: fc.integer({ min: 1, max: 10 }),
    }),
    fc.record({ op: fc.constant('open' as const) }),
    fc.record({ op: fc.constant('kill' as const) }),
    fc.record({ op: fc.constant('time' as const), ms: fc.integer({ min: 1, max: 3000 }) }),
  );

  test('each side receives exactly what the other sent, in order, once', () => {
    let resent = 0;
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
        const { clock, a, b } = pair();
        const sides = [a, b] as const;
        const sent = [0, 0];
        let open = false;
        for (const o of ops) {
          if (o.op === 'send') {
            for (let i = 0; i < o.count; i++) sides[o.who].carrier.send(frame(sent[o.who]!++));
          } else if (o.op === 'deliver') {
            deliver(sides[o.who], sides[1 - o.who]!, o.path, o.count);
          } else if (o.op === 'open' && !open) {
            openDirect(a, b);
            open = true;
          } else if (o.op === 'kill' && open) {
            killDirect(a, b);
            open = false;
          } else if (o.op === 'time') clock.advance(o.ms);
          // Never more than was sent, never out of order, never twice.
          expect(numbers(b)).toEqual(range(0, b.received.length));
          expect(numbers(a)).toEqual(range(0, a.received.length));
        }
        if (open) killDirect(a, b);
        settle(a, b);
        expect(numbers(b)).toEqual(range(0, sent[0]!));
        expect(numbers(a)).toEqual(range(0, sent[1]!));
        expect(a.ended).toEqual([]);
        expect(b.ended).toEqual([]);
        resent += a.carrier.counters.resent + b.carrier.counters.resent;
      }),
      { ...FC, numRuns: 300 },
    );
    // The schedules did lose direct messages in flight and resend them (the case under test).
    expect(resent).toBeGreaterThan(100);
  });
});

describe('R-ERR-1: random bytes on either path never throw anything but ProtocolError or a failed decryption', () => {
  test('decoders and the carrier', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ direct: fc.boolean(), bytes: fc.uint8Array({ maxLength: 64 }) }), {
          maxLength: 20,
        }),
        (frames) => {
          const { a, b } = pair();
          openDirect(a, b);
          for (const f of frames) {
            try {
              if (f.direct) b.carrier.directFrame(f.bytes);
              else b.carrier.relayFrame(f.bytes);
            } catch (error) {
              if (!(error instanceof ProtocolError) && !/decryption failed|short message/.test(String(error)))
                throw error;
              return; // the connection would close here
            }
          }
        },
      ),
      { ...FC, numRuns: 300 },
    );
  });
});
