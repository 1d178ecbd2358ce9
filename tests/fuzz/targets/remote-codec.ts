/**
 * Target: the remote API's frame decoders, both directions and both modes (protocol/src/remote/codec.ts,
 * [SPEC: R-FRAME-*, R-MSG-*]).
 *
 * Feeds random frames (every frame kind byte, JSON-ish and binary bodies) and valid encodings of every message
 * type, byte-mutated, to all four decoders. Expected rejection: ProtocolError (R-ERR-1). Findings: any other
 * exception; a decoded message that its own encoder refuses, or that does not decode back to itself (a
 * decoder must never return what the other side could not have sent).
 */
import {
  type BurrowMessage,
  type ClientMessage,
  decodeBurrowMessage,
  decodeClientMessage,
  decodePairBurrowMessage,
  decodePairClientMessage,
  encodeBurrowMessage,
  encodeClientMessage,
  encodePairBurrowMessage,
  encodePairClientMessage,
  type PairBurrowMessage,
  type PairClientMessage,
  ProtocolError,
} from '@burrow/protocol';
import fc from 'fast-check';
import {
  anyBurrowMessage,
  anyClientMessage,
  pairBurrowMessages,
  pairClientMessages,
} from '../../../protocol/test/arbitraries.js';
import { type FuzzTarget, invariant } from '../fuzz-target.js';
import { mutatedBytes } from '../mutate.js';

interface Codec {
  readonly name: string;
  readonly decode: (frame: Uint8Array) => unknown;
  readonly encode: (message: never) => Uint8Array;
}

const CODECS: readonly Codec[] = [
  { name: 'client', decode: decodeClientMessage, encode: encodeClientMessage as (m: never) => Uint8Array },
  { name: 'burrow', decode: decodeBurrowMessage, encode: encodeBurrowMessage as (m: never) => Uint8Array },
  {
    name: 'pair-client',
    decode: decodePairClientMessage,
    encode: encodePairClientMessage as (m: never) => Uint8Array,
  },
  {
    name: 'pair-burrow',
    decode: decodePairBurrowMessage,
    encode: encodePairBurrowMessage as (m: never) => Uint8Array,
  },
];

const encoder = new TextEncoder();
/** JSON-looking control bodies with hostile members. */
const jsonish = fc
  .tuple(fc.integer({ min: 0, max: 6 }), fc.jsonValue({ maxDepth: 4 }))
  .map(([kind, value]) => {
    const body = encoder.encode(JSON.stringify(value) ?? 'null');
    const frame = new Uint8Array(1 + body.length);
    frame[0] = kind;
    frame.set(body, 1);
    return frame;
  });
const randomFrames = fc.oneof(
  fc.uint8Array({ maxLength: 512 }),
  fc
    .tuple(fc.integer({ min: 0, max: 6 }), fc.uint8Array({ maxLength: 512 }))
    .map(([kind, rest]) => Uint8Array.of(kind, ...rest)),
  jsonish,
);

/** Stable text of a decoded message (Uint8Array members as hex), to compare two decodes. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v instanceof Uint8Array ? `bytes:${Buffer.from(v).toString('hex')}` : v,
  );
}

export const remoteCodecTarget: FuzzTarget<Uint8Array> = {
  name: 'remote-codec',
  about: 'decode{Client,Burrow,PairClient,PairBurrow}Message: random and mutated-valid frames',
  async: false,
  testRuns: 2_000,
  async start() {
    const validFrames: fc.Arbitrary<Uint8Array> = fc.oneof(
      anyClientMessage.map((m: ClientMessage) => encodeClientMessage(m)),
      anyBurrowMessage.map((m: BurrowMessage) => encodeBurrowMessage(m)),
      fc
        .oneof(...Object.values(pairClientMessages))
        .map((m: PairClientMessage) => encodePairClientMessage(m)),
      fc
        .oneof(...Object.values(pairBurrowMessages))
        .map((m: PairBurrowMessage) => encodePairBurrowMessage(m)),
    );
    const input = fc.oneof(
      { weight: 3, arbitrary: mutatedBytes(validFrames).map((m) => m.bytes) },
      { weight: 2, arbitrary: randomFrames },
      { weight: 1, arbitrary: validFrames },
    );
    return {
      input,
      isExpected: (error) => error instanceof ProtocolError,
      run(frame) {
        let accepted = 0;
        for (const codec of CODECS) {
          let message: unknown;
          try {
            message = codec.decode(frame);
          } catch (error) {
            if (error instanceof ProtocolError) continue;
            throw error;
          }
          accepted++;
          let again: unknown;
          try {
            again = codec.decode(codec.encode(message as never));
          } catch (error) {
            invariant(false, `${codec.name}: a decoded message does not re-encode/decode: ${String(error)}`);
          }
          invariant(
            canonical(again) === canonical(message),
            `${codec.name}: decode∘encode changed a decoded message`,
          );
        }
        return accepted > 0 ? 'accepted' : 'rejected';
      },
    };
  },
};
