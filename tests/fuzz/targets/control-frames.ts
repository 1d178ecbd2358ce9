/**
 * Target: the control socket's framing (burrow-agent/src/control/frame-codec.ts): the length-prefixed
 * stream decoder, and the Output / Snapshot / JSON payload decoders behind it.
 *
 * Feeds a stream of valid frames of every type, byte-mutated or not, plus random bytes, in random chunk
 * splits, to a FrameDecoder with the handshake bound or the client bound, then decodes each frame's payload.
 * Expected rejection: FrameError (the connection is then closed, so the case stops). Findings: any other
 * exception; more than one frame's worth buffered after a push (header + bound); with no mutation, frames
 * that differ from those sent, whatever the chunking.
 */
import fc from 'fast-check';
import {
  decodeOutput,
  decodeSnapshot,
  encodeFrame,
  encodeJson,
  encodeOutput,
  encodeSnapshot,
  FRAME_HEADER_BYTES,
  FrameDecoder,
  FrameError,
  FrameType,
  MAX_HANDSHAKE_FRAME_BYTES,
  parseJsonPayload,
} from '../../../burrow-agent/src/control/frame-codec.js';
import { type FuzzTarget, invariant } from '../fuzz-target.js';
import { chunkCuts, mutatedBytes, sameBytes, splitAt } from '../mutate.js';

/** A client-bound decoder in the fuzz uses a small bound so cases reach it (the real one is 1 MiB). */
const FUZZ_CLIENT_BOUND = 6 * 1024;

const frame = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => encodeJson(v)),
  fc.uint8Array({ maxLength: 300 }).map((b) => encodeFrame(FrameType.Input, b)),
  fc.tuple(fc.maxSafeNat(), fc.uint8Array({ maxLength: 300 })).map(([o, b]) => encodeOutput(o, b)),
  fc
    .tuple(fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 200 }))
    .map(([h, d]) => encodeSnapshot(h, d)),
  fc
    .integer({ min: MAX_HANDSHAKE_FRAME_BYTES - 8, max: FUZZ_CLIENT_BOUND + 8 })
    .map((n) => encodeFrame(FrameType.Input, new Uint8Array(n))),
);
const stream = fc.array(frame, { minLength: 1, maxLength: 6 }).map((frames) => ({
  frames: frames.map((f) => new Uint8Array(f)),
  bytes: new Uint8Array(Buffer.concat(frames)),
}));

interface Case {
  readonly frames: readonly Uint8Array[] | null;
  readonly bytes: Uint8Array;
  readonly cuts: readonly number[];
  readonly bound: number;
}

const input: fc.Arbitrary<Case> = fc
  .record({
    stream: fc.oneof(
      { weight: 2, arbitrary: stream },
      {
        weight: 3,
        arbitrary: mutatedBytes(stream.map((s) => s.bytes)).map((m) => ({ frames: null, bytes: m.bytes })),
      },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 256 }).map((bytes) => ({ frames: null, bytes })) },
    ),
    cuts: chunkCuts,
    bound: fc.constantFrom(MAX_HANDSHAKE_FRAME_BYTES, FUZZ_CLIENT_BOUND),
  })
  .map(({ stream: s, cuts, bound }) => ({ frames: s.frames, bytes: s.bytes, cuts, bound }));

function decodePayload(type: number, payload: Uint8Array): void {
  if (type === FrameType.Json) parseJsonPayload(payload);
  else if (type === FrameType.Output) {
    const { offset } = decodeOutput(payload);
    invariant(Number.isSafeInteger(offset) && offset >= 0, 'output offset is not a safe integer');
  } else if (type === FrameType.Snapshot) decodeSnapshot(payload);
}

export const controlFramesTarget: FuzzTarget<Case> = {
  name: 'control-frames',
  about: 'control socket FrameDecoder + Output/Snapshot/JSON payloads: valid, mutated and random streams',
  async: false,
  testRuns: 1_000,
  async start() {
    return {
      input,
      isExpected: (error) => error instanceof FrameError,
      run({ frames, bytes, cuts, bound }) {
        const decoder = new FrameDecoder(bound);
        const got: Uint8Array[] = [];
        let refused: unknown = null;
        for (const part of splitAt(bytes, cuts)) {
          try {
            for (const f of decoder.push(part)) {
              got.push(encodeFrame(f.type, f.payload));
              decodePayload(f.type, f.payload);
            }
          } catch (error) {
            // The connection closes on a FrameError, and what the decoder held goes with it.
            refused = error;
            break;
          }
          // Debug accessor (a TS-private field): after a push, at most one partial frame is held.
          const buffered = (decoder as unknown as { buffered: number }).buffered;
          invariant(buffered < FRAME_HEADER_BYTES + bound, `decoder holds ${buffered} bytes, over one frame`);
        }
        if (frames !== null) {
          // A valid stream: refused only for a frame over the bound, else every frame back unchanged.
          const fits = frames.filter((f) => f.length - FRAME_HEADER_BYTES <= bound);
          if (refused === null) {
            invariant(fits.length === frames.length, 'a frame over the bound was accepted');
            invariant(
              got.length === frames.length && frames.every((f, i) => sameBytes(f, got[i]!)),
              'frames changed in transit',
            );
          } else {
            invariant(
              refused instanceof FrameError && fits.length < frames.length,
              `valid stream refused: ${String(refused)}`,
            );
          }
        }
        if (refused !== null) throw refused;
        return 'accepted';
      },
    };
  },
};
