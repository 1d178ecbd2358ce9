// Property tests: random and mutated input never throws anything but ProtocolError, the reassembler never holds
// more than its bounds, and fragmentation is lossless under interleaving. [SPEC: R-ERR-1, R-FRAG-6]
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isWellFormed } from '../src/remote/bytes.js';
import {
  burrowStream,
  clientStream,
  decodeBurrowMessage,
  decodeClientMessage,
  decodePairBurrowMessage,
  decodePairClientMessage,
  encodeBurrowMessage,
  encodeClientMessage,
  FRAGMENT_HEADER_BYTES,
  fragment,
  ProtocolError,
  Reassembler,
} from '../src/remote/index.js';
import { anyBurrowMessage, anyClientMessage, pairBurrowMessages, pairClientMessages } from './arbitraries.js';
import { controlOf, FC } from './helpers.js';

const decoders = [decodeClientMessage, decodeBurrowMessage, decodePairClientMessage, decodePairBurrowMessage];

/** Runs `run`; anything thrown must be a ProtocolError. */
function onlyProtocolErrors(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
  }
}

const validFrame = fc.oneof(
  anyClientMessage.map(encodeClientMessage),
  anyBurrowMessage.map(encodeBurrowMessage),
);

/** A frame with bytes flipped, cut, or appended. */
const mutatedFrame = fc
  .tuple(
    validFrame,
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
    fc.option(fc.nat()),
    fc.uint8Array({ maxLength: 8 }),
  )
  .map(([frame, flips, cut, extra]) => {
    let out = frame.slice();
    for (const [at, value] of flips) if (out.length > 0) out[at % out.length] = value;
    if (cut !== null && out.length > 0) out = out.subarray(0, cut % out.length);
    const joined = new Uint8Array(out.length + extra.length);
    joined.set(out);
    joined.set(extra, out.length);
    return joined;
  });

describe('decoders throw only ProtocolError', () => {
  test('on random bytes, with and without a valid kind byte', () => {
    const kinded = fc
      .tuple(fc.integer({ min: 1, max: 5 }), fc.uint8Array({ maxLength: 64 }))
      .map(([k, rest]) => new Uint8Array([k, ...rest]));
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), kinded), (bytes) => {
        for (const decode of decoders) onlyProtocolErrors(() => decode(bytes));
      }),
      { ...FC, numRuns: 300 },
    );
  });

  test('on mutated valid frames', () => {
    fc.assert(
      fc.property(mutatedFrame, (bytes) => {
        for (const decode of decoders) onlyProtocolErrors(() => decode(bytes));
      }),
      { ...FC, numRuns: 300 },
    );
  });

  test('on valid messages with one field replaced by any JSON value', () => {
    const messages = fc.oneof(
      anyClientMessage,
      anyBurrowMessage,
      ...Object.values(pairClientMessages),
      ...Object.values(pairBurrowMessages),
    );
    fc.assert(
      fc.property(messages, fc.nat(), fc.jsonValue({ maxDepth: 3 }), (message, pick, value) => {
        const plain = JSON.parse(JSON.stringify(message, (_k, v) => (v instanceof Uint8Array ? [...v] : v)));
        const keys = Object.keys(plain);
        plain[keys[pick % keys.length]!] = value;
        const frame = controlOf(plain);
        for (const decode of decoders) onlyProtocolErrors(() => decode(frame));
      }),
      { ...FC, numRuns: 300 },
    );
  });

  test('on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const frame = controlOf(value);
        for (const decode of decoders) onlyProtocolErrors(() => decode(frame));
      }),
      { ...FC, numRuns: 200 },
    );
  });
});

/** A fragment with header fields drawn near the interesting edges. */
const hostileFragment = fc
  .record({
    id: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(0xffffffff)),
    total: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 0xffffffff })),
    at: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 0xffffffff })),
    chunk: fc.uint8Array({ maxLength: 24 }),
  })
  .map(({ id, total, at, chunk }) => {
    const out = new Uint8Array(FRAGMENT_HEADER_BYTES + chunk.length);
    const view = new DataView(out.buffer);
    out[0] = 0x05;
    view.setUint32(1, id);
    view.setUint32(5, total);
    view.setUint32(9, at);
    out.set(chunk, FRAGMENT_HEADER_BYTES);
    return out;
  });

describe('Reassembler stays within its bounds', () => {
  test('random fragment streams never throw anything but ProtocolError nor exceed the budget', () => {
    const limits = { maxBytes: 200, maxPartials: 3 };
    const plaintexts = fc.array(fc.oneof(hostileFragment, fc.uint8Array({ minLength: 0, maxLength: 20 })), {
      maxLength: 40,
    });
    fc.assert(
      fc.property(plaintexts, (stream) => {
        let r = new Reassembler(limits);
        for (const p of stream) {
          try {
            const whole = r.push(p);
            if (whole !== null) expect(whole.length).toBeLessThanOrEqual(Math.max(limits.maxBytes, p.length));
          } catch (error) {
            expect(error).toBeInstanceOf(ProtocolError);
            expect((error as ProtocolError).fatal).toBe(true);
            r = new Reassembler(limits); // a fatal error closes the connection; a new one starts clean
          }
          expect(r.reservedBytes).toBeLessThanOrEqual(limits.maxBytes);
          expect(r.partialMessages).toBeLessThanOrEqual(limits.maxPartials);
        }
      }),
      { ...FC, numRuns: 300 },
    );
  });

  test('interleaved fragmented messages and whole frames all arrive intact', () => {
    const messages = fc.array(fc.tuple(fc.uint8Array({ minLength: 1025, maxLength: 5000 }), fc.nat()), {
      minLength: 1,
      maxLength: 4,
    });
    fc.assert(
      fc.property(messages, fc.array(fc.nat(), { maxLength: 64 }), (list, choices) => {
        const queues = list.map(([bytes, pick], i) => {
          bytes[0] = 0x01;
          return fragment(bytes, 1024 + (pick % Math.min(1024, bytes.length - 1024)), i + 1);
        });
        const fragmentCounts = queues.map((q) => q.length);
        const r = new Reassembler();
        const done: Uint8Array[] = [];
        let c = 0;
        while (queues.some((q) => q.length > 0)) {
          // R-FRAG-5: messages start in id order; once started they interleave freely.
          const firstUnstarted = queues.findIndex((q, i) => q.length === fragmentCounts[i]);
          const open = queues.filter(
            (q, i) => q.length > 0 && (q.length < fragmentCounts[i]! || i === firstUnstarted),
          );
          const choice = choices[c++ % Math.max(1, choices.length)] ?? 0;
          if (choice % 5 === 0) {
            const whole = new Uint8Array([0x01, c & 0xff]);
            expect(r.push(whole)).toBe(whole);
          }
          const q = open[choice % open.length]!;
          const whole = r.push(q.shift()!);
          if (whole) done.push(whole);
        }
        r.end();
        const key = (b: Uint8Array) => Buffer.from(b).toString('hex');
        expect(done.map(key).sort()).toEqual(list.map(([b]) => key(b)).sort());
      }),
      { ...FC, numRuns: 40 },
    );
  });
});

test('R-FRAME-3: the lone-surrogate check agrees with a UTF-8 round trip', () => {
  const units = fc.oneof(fc.integer({ min: 0xd7f0, max: 0xe010 }), fc.integer({ min: 0, max: 0xffff }));
  fc.assert(
    fc.property(fc.array(units, { maxLength: 12 }), (codes) => {
      const s = String.fromCharCode(...codes);
      const roundTrips = new TextDecoder().decode(new TextEncoder().encode(s)) === s;
      expect(isWellFormed(s)).toBe(roundTrips);
    }),
    { ...FC, numRuns: 500 },
  );
});

test('a mutated fragmented stream through MessageStream throws only ProtocolError', () => {
  const big = fc.record({
    data: fc.string({ minLength: 3000, maxLength: 6000 }),
    offset: fc.nat(),
  });
  fc.assert(
    fc.property(
      big,
      fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 3,
      }),
      ({ data, offset }, flips) => {
        const pieces = burrowStream(2048).send({
          type: 'resync',
          session: 's',
          offset,
          cols: 80,
          rows: 24,
          firstLine: 0,
          hasOlder: true,
          data,
        });
        for (const [which, at, value] of flips) {
          const piece = pieces[which % pieces.length]!;
          piece[at % piece.length] = value;
        }
        const phone = clientStream();
        try {
          for (const p of pieces) phone.receive(p);
          phone.end();
        } catch (error) {
          expect(error).toBeInstanceOf(ProtocolError);
        }
      },
    ),
    { ...FC, numRuns: 150 },
  );
});
