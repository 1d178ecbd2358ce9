/**
 * Target: fragment reassembly (protocol/src/remote/fragment.ts, [SPEC: R-FRAG-1..7]).
 *
 * Each case is a few whole frames, fragmented by a Fragmenter with a small plaintext size, their fragments
 * interleaved at random (each message's own in order, whole frames between them), and then maybe damaged:
 * a fragment duplicated, two swapped, one dropped, one with an oversized or changed total, an id reused or
 * 0, or random FRAGMENT headers injected. Fed to a Reassembler with tight bounds.
 * Expected rejection: a fatal ProtocolError (then the stream is dead: the case stops, as a connection would).
 * Findings: any other exception; a non-fatal ProtocolError; reservedBytes or partialMessages over the bounds
 * after any push; a returned frame that is not byte-equal to one that was sent; with no damage, anything
 * other than every sent frame back, in completion order, and a clean `end()`.
 */
import {
  FRAGMENT_HEADER_BYTES,
  Fragmenter,
  MIN_FRAGMENT_CHUNK_BYTES,
  ProtocolError,
  Reassembler,
} from '@burrow/protocol';
import fc from 'fast-check';
import { type FuzzTarget, invariant } from '../fuzz-target.js';
import { sameBytes } from '../mutate.js';

/** Tight bounds so cases reach them: 3 partial messages, 24 KiB reserved. */
const MAX_PARTIALS = 3;
const MAX_BYTES = 24 * 1024;
const MAX_PLAINTEXT = MIN_FRAGMENT_CHUNK_BYTES + FRAGMENT_HEADER_BYTES;
const MAX_FRAME_BYTES = 12 * 1024;

type Damage =
  | { readonly kind: 'duplicate' | 'drop'; readonly at: number }
  | { readonly kind: 'swap'; readonly at: number; readonly with: number }
  | { readonly kind: 'total' | 'id'; readonly at: number; readonly value: number }
  | {
      readonly kind: 'inject';
      readonly at: number;
      readonly header: readonly [number, number, number];
      readonly chunk: Uint8Array;
    };

interface Case {
  readonly frames: readonly Uint8Array[];
  /** Interleaving: which message's next plaintext goes next, by index modulo those left. */
  readonly order: readonly number[];
  readonly damage: readonly Damage[];
}

/** Whole frames: kind byte 1..4 (never FRAGMENT), small ones pass whole, big ones get fragmented. */
const frame = fc
  .tuple(
    fc.integer({ min: 1, max: 4 }),
    fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1025, max: MAX_FRAME_BYTES })),
    fc.nat(),
  )
  .map(([kind, length, fill]) => {
    const bytes = new Uint8Array(length + 1);
    bytes[0] = kind;
    for (let i = 1; i < bytes.length; i++) bytes[i] = (fill + i * 31) & 0xff;
    return bytes;
  });

const u32 = fc.oneof(
  fc.integer({ min: 0, max: 0xffff_ffff }),
  fc.constantFrom(0, 1, 2, 1024, MAX_BYTES, 0xffff_ffff),
);
const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ kind: fc.constantFrom('duplicate' as const, 'drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat(), with: fc.nat() }),
  fc.record({ kind: fc.constantFrom('total' as const, 'id' as const), at: fc.nat(), value: u32 }),
  fc.record({
    kind: fc.constant('inject' as const),
    at: fc.nat(),
    header: fc.tuple(u32, u32, u32),
    chunk: fc.uint8Array({ maxLength: 64 }),
  }),
);

const input: fc.Arbitrary<Case> = fc.record({
  frames: fc.array(frame, { minLength: 1, maxLength: 6 }),
  order: fc.array(fc.nat(), { maxLength: 80 }),
  damage: fc.oneof(fc.constant([]), fc.array(damage, { minLength: 1, maxLength: 3 })),
});

function writeU32(bytes: Uint8Array, at: number, value: number): void {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(at, value >>> 0, false);
}

/**
 * The plaintexts in wire order, as a compliant sender makes them: one Fragmenter (so ids increase), messages
 * interleaved per `order`, but never more than MAX_PARTIALS fragmented messages or MAX_BYTES of their totals in
 * flight (R-FRAG-6 binds the sender too). Every frame gets sent (one frame is under MAX_BYTES, so a stalled
 * start always clears). Damage may then break any of that.
 */
function interleave(frames: readonly Uint8Array[], order: readonly number[]): Uint8Array[] {
  const fragmenter = new Fragmenter(MAX_PLAINTEXT);
  const queues = frames.map((f) => ({ length: f.length, parts: fragmenter.split(f), begun: false }));
  const out: Uint8Array[] = [];
  let step = 0;
  /** Messages are started in id order; `next` is the first not yet started. */
  let next = 0;
  let inFlight = 0;
  let reserved = 0;
  for (;;) {
    const candidates = queues.filter((q, i) => q.parts.length > 0 && (q.begun || i === next));
    const startable = (q: (typeof queues)[number]) =>
      q.begun || q.parts.length === 1 || (inFlight < MAX_PARTIALS && reserved + q.length <= MAX_BYTES);
    const live = candidates.filter(startable);
    if (live.length === 0) break;
    const pick = live[(order[step++] ?? 0) % live.length]!;
    const fragmented = pick.parts.length > 1 || pick.begun;
    if (!pick.begun) {
      pick.begun = true;
      next++;
      if (fragmented) {
        inFlight++;
        reserved += pick.length;
      }
    }
    out.push(pick.parts.shift()!);
    if (pick.parts.length === 0 && fragmented) {
      inFlight--;
      reserved -= pick.length;
    }
  }
  return out;
}

function applyDamage(plaintexts: Uint8Array[], damages: readonly Damage[]): Uint8Array[] {
  const out = plaintexts.map((p) => p.slice());
  for (const d of damages) {
    if (out.length === 0) break;
    const at = d.at % out.length;
    switch (d.kind) {
      case 'duplicate':
        out.splice(at, 0, out[at]!.slice());
        break;
      case 'drop':
        out.splice(at, 1);
        break;
      case 'swap': {
        const other = d.with % out.length;
        [out[at], out[other]] = [out[other]!, out[at]!];
        break;
      }
      case 'total':
      case 'id':
        if (out[at]![0] === 0x05 && out[at]!.length > FRAGMENT_HEADER_BYTES)
          writeU32(out[at]!, d.kind === 'id' ? 1 : 5, d.value);
        break;
      case 'inject': {
        const injected = new Uint8Array(FRAGMENT_HEADER_BYTES + d.chunk.length);
        injected[0] = 0x05;
        writeU32(injected, 1, d.header[0]);
        writeU32(injected, 5, d.header[1]);
        writeU32(injected, 9, d.header[2]);
        injected.set(d.chunk, FRAGMENT_HEADER_BYTES);
        out.splice(at, 0, injected);
        break;
      }
    }
  }
  return out;
}

export const fragmentReassemblyTarget: FuzzTarget<Case> = {
  name: 'fragment-reassembly',
  about: 'Reassembler.push: interleaved fragments, duplicated / dropped / swapped / oversized / injected',
  async: false,
  testRuns: 1_000,
  async start() {
    return {
      input,
      isExpected: (error) => error instanceof ProtocolError && error.fatal,
      run({ frames, order, damage: damages }) {
        const clean = interleave(frames, order);
        const wire = applyDamage(clean, damages);
        const damaged =
          damages.length > 0 &&
          !(wire.length === clean.length && wire.every((p, i) => sameBytes(p, clean[i]!)));
        const reassembler = new Reassembler({ maxBytes: MAX_BYTES, maxPartials: MAX_PARTIALS });
        const received: Uint8Array[] = [];
        for (const plaintext of wire) {
          let whole: Uint8Array | null;
          try {
            whole = reassembler.push(plaintext);
          } catch (error) {
            invariant(
              !(error instanceof ProtocolError) || error.fatal,
              'a non-fatal ProtocolError from the Reassembler',
            );
            invariant(
              damaged || !(error instanceof ProtocolError),
              `undamaged stream refused: ${String(error)}`,
            );
            throw error;
          } finally {
            invariant(
              reassembler.reservedBytes <= MAX_BYTES,
              `reservedBytes ${reassembler.reservedBytes} over ${MAX_BYTES}`,
            );
            invariant(
              reassembler.partialMessages <= MAX_PARTIALS,
              `partialMessages ${reassembler.partialMessages} over ${MAX_PARTIALS}`,
            );
          }
          if (whole === null) continue;
          invariant(
            frames.some((f) => sameBytes(f, whole)),
            'reassembled a frame that was never sent',
          );
          received.push(whole);
        }
        // A damaged stream that got through must still end cleanly or say it was cut off (R-FRAG-7).
        reassembler.end();
        if (!damaged) {
          invariant(
            received.length === frames.length,
            `got ${received.length} of ${frames.length} frames back`,
          );
          invariant(
            frames.every((f) => received.some((r) => sameBytes(r, f))),
            'a sent frame never came back',
          );
        }
        return 'accepted';
      },
    };
  },
};
