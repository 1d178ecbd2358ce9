import {
  INPUT_CHUNK_BYTES,
  INPUT_WINDOW_BYTES,
  MAX_PASTE_BYTES,
  PASTE_BURST_BYTES,
  PASTE_BYTES_PER_SECOND,
} from '@burrow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../test-support/manual-clock.js';
import { type InputKind, InputPacer } from './input-pacer.js';

interface Sent {
  readonly at: number;
  readonly session: string;
  readonly kind: InputKind;
  readonly data: Uint8Array;
}

function rig() {
  const c = manualClock();
  const sent: Sent[] = [];
  let connected = true;
  const pacer = new InputPacer({
    clock: c.clock,
    send: (session, kind, data) => {
      if (!connected) return false;
      sent.push({ at: c.now(), session, kind, data: Uint8Array.from(data) });
      return true;
    },
  });
  const sentBytes = () => sent.reduce((n, s) => n + s.data.length, 0);
  return { ...c, pacer, sent, sentBytes, disconnect: () => (connected = false) };
}

function paste(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 7 + (i >> 11)) & 0xff;
  return out;
}

/** Byte arrays equal (vitest's deep equality walks megabytes element by element). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

describe('InputPacer (R-FLOW-2, issue 24.8)', () => {
  it('sends a keystroke at once', () => {
    const r = rig();
    expect(r.pacer.push('s', 'user', new Uint8Array([0x61]))).toBeNull();
    expect(r.sent).toEqual([{ at: 0, session: 's', kind: 'user', data: new Uint8Array([0x61]) }]);
  });

  it('sends a 6 MiB paste whole and in order, in frames under the Burrow’s write size, inside the window and the rate', () => {
    const r = rig();
    const data = paste(6 * 1024 * 1024);
    expect(r.pacer.push('s', 'user', data)).toBeNull();
    // The Burrow acknowledges whatever arrived, every 10 ms of simulated time, as a reading program lets it.
    let acked = 0;
    for (let t = 0; r.pacer.queuedBytes > 0 || acked < r.sentBytes(); t += 10) {
      acked = r.sentBytes();
      r.pacer.acked(acked);
      r.advance(10);
      expect(t).toBeLessThan(60_000);
    }
    const joined = new Uint8Array(r.sentBytes());
    let at = 0;
    for (const s of r.sent) {
      expect(s.data.length).toBeLessThanOrEqual(INPUT_CHUNK_BYTES);
      joined.set(s.data, at);
      at += s.data.length;
    }
    expect(sameBytes(joined, data)).toBe(true);
    // Never faster than the burst plus the rate, at any moment.
    let total = 0;
    for (const s of r.sent) {
      total += s.data.length;
      expect(total).toBeLessThanOrEqual(PASTE_BURST_BYTES + (s.at * PASTE_BYTES_PER_SECOND) / 1000 + 1);
    }
    const seconds = r.sent.at(-1)!.at / 1000;
    expect(seconds).toBeGreaterThanOrEqual((data.length - PASTE_BURST_BYTES) / PASTE_BYTES_PER_SECOND - 0.1);
    expect(seconds).toBeLessThan((data.length - PASTE_BURST_BYTES) / PASTE_BYTES_PER_SECOND + 1);
  });

  it('holds a paste back while the Burrow does not acknowledge (a program that does not read)', () => {
    const r = rig();
    r.pacer.push('s', 'user', paste(2 * 1024 * 1024));
    r.advance(60_000);
    expect(r.sentBytes()).toBe(INPUT_WINDOW_BYTES);
    r.pacer.acked(INPUT_CHUNK_BYTES);
    expect(r.sentBytes()).toBe(INPUT_WINDOW_BYTES + INPUT_CHUNK_BYTES);
  });

  it('keeps a terminal reply behind the paste typed before it', () => {
    const r = rig();
    r.pacer.push('s', 'user', paste(INPUT_WINDOW_BYTES + 10));
    r.pacer.push('s', 'reply', new Uint8Array([0x1b, 0x5b, 0x49]));
    expect(r.sent.map((s) => s.kind)).not.toContain('reply');
    r.pacer.acked(r.sentBytes());
    expect(r.sent.at(-1)?.kind).toBe('reply');
  });

  it('refuses a paste over MAX_PASTE_BYTES whole, before sending any of it, and names the limit', () => {
    const r = rig();
    expect(r.pacer.push('s', 'user', paste(MAX_PASTE_BYTES + 1))).toEqual({
      bytes: MAX_PASTE_BYTES + 1,
      queuedBytes: 0,
      limit: MAX_PASTE_BYTES,
    });
    expect(r.sent).toEqual([]);
    // Two pastes that together would wait for more than the limit: the second is refused.
    r.pacer.push('s', 'user', paste(MAX_PASTE_BYTES - INPUT_CHUNK_BYTES));
    expect(r.pacer.push('s', 'user', paste(2 * INPUT_CHUNK_BYTES + PASTE_BURST_BYTES))?.limit).toBe(
      MAX_PASTE_BYTES,
    );
  });

  it('refuses an input-ack that goes backwards or past what was sent', () => {
    const r = rig();
    r.pacer.push('s', 'user', paste(10));
    expect(() => r.pacer.acked(11)).toThrow(RangeError);
    r.pacer.acked(10);
    expect(() => r.pacer.acked(9)).toThrow(RangeError);
  });

  it('drops what is queued when the connection goes, and counts from zero on the next', () => {
    const r = rig();
    r.pacer.push('s', 'user', paste(INPUT_WINDOW_BYTES * 2));
    r.pacer.reset();
    expect(r.pacer.queuedBytes).toBe(0);
    r.advance(10_000);
    expect(r.sentBytes()).toBe(INPUT_WINDOW_BYTES);
    r.pacer.push('s', 'user', new Uint8Array([1]));
    expect(r.sentBytes()).toBe(INPUT_WINDOW_BYTES + 1);
    r.disconnect();
    r.pacer.push('s', 'user', paste(100));
    expect(r.pacer.queuedBytes).toBe(0);
  });

  it('never sends bytes out of order or twice, whatever the acknowledgements (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 300_000 }), fc.nat(2_000), fc.boolean()), {
          maxLength: 12,
        }),
        (steps) => {
          const r = rig();
          let pushed = 0;
          for (const [size, wait, ack] of steps) {
            const data = new Uint8Array(size);
            for (let i = 0; i < size; i++) data[i] = (pushed + i) & 0xff;
            if (r.pacer.push('s', 'user', data) === null) pushed += size;
            if (ack) r.pacer.acked(r.sentBytes());
            r.advance(wait);
          }
          // Byte k of what was sent is byte k of what was pushed: nothing reordered, repeated or skipped.
          let k = 0;
          let wrong = 0;
          for (const s of r.sent) for (const b of s.data) if (b !== (k++ & 0xff)) wrong++;
          expect(wrong).toBe(0);
          expect(k).toBeLessThanOrEqual(pushed);
        },
      ),
      { seed: 0x24_8, numRuns: 60 },
    );
  });
});
