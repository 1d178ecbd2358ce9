/**
 * Target: the relay↔Burrow socket framing and the id/token text form (protocol/src/relay/agent-frame.ts,
 * base64url.ts, [SPEC: RL-FRAME-1..7, RL-ID-1]).
 *
 * Feeds random and mutated-valid agent frames to both direction decoders, and random and mutated base64url
 * text to `decodeBase64url` / `isBase64urlOfLength`. Expected rejection: RelayCodecError. Findings: any
 * other exception; a decoded frame that does not re-encode to the same bytes (the framing has one form);
 * base64url text accepted that is not the canonical encoding of what it decoded to; `isBase64urlOfLength`
 * throwing or disagreeing with the decoder.
 */
import {
  decodeAgentToRelayFrame,
  decodeBase64url,
  decodeRelayToAgentFrame,
  encodeBase64url,
  encodeClientClosedFrame,
  encodeClientOpenFrame,
  encodeCloseClientFrame,
  encodeDataFrame,
  isBase64urlOfLength,
  RelayCodecError,
} from '@burrow/protocol';
import fc from 'fast-check';
import { type FuzzTarget, invariant } from '../fuzz-target.js';
import { mutatedBytes, sameBytes } from '../mutate.js';

const connId = fc.oneof(fc.integer({ min: 1, max: 0xffff_ffff }), fc.constantFrom(1, 0xffff_ffff));
const validFrame = fc.oneof(
  fc.tuple(connId, fc.uint8Array({ minLength: 1, maxLength: 300 })).map(([id, p]) => encodeDataFrame(id, p)),
  connId.map((id) => encodeClientOpenFrame(id)),
  fc
    .tuple(connId, fc.integer({ min: 1000, max: 4999 }))
    .map(([id, code]) => encodeClientClosedFrame(id, code)),
  fc
    .tuple(connId, fc.oneof(fc.constant(1000), fc.integer({ min: 4100, max: 4199 })))
    .map(([id, code]) => encodeCloseClientFrame(id, code)),
);
const frameInput = fc.oneof(
  mutatedBytes(validFrame).map((m) => m.bytes),
  fc.uint8Array({ maxLength: 64 }),
  fc
    .tuple(fc.integer({ min: 0, max: 8 }), fc.uint8Array({ maxLength: 16 }))
    .map(([t, rest]) => Uint8Array.of(t, ...rest)),
);
const textInput = fc.oneof(
  fc.uint8Array({ maxLength: 48 }).map((b) => encodeBase64url(b)),
  mutatedBytes(fc.uint8Array({ maxLength: 48 }).map((b) => new TextEncoder().encode(encodeBase64url(b)))).map(
    (m) => new TextDecoder().decode(m.bytes),
  ),
  fc.string({ maxLength: 48 }),
  fc.string({ unit: 'binary', maxLength: 48 }),
);

type Case =
  | { readonly kind: 'frame'; readonly bytes: Uint8Array }
  | { readonly kind: 'text'; readonly text: string; readonly length: number };

const input: fc.Arbitrary<Case> = fc.oneof(
  frameInput.map((bytes) => ({ kind: 'frame' as const, bytes })),
  fc
    .tuple(textInput, fc.integer({ min: 0, max: 40 }))
    .map(([text, length]) => ({ kind: 'text' as const, text, length })),
);

function reencode(
  frame: ReturnType<typeof decodeAgentToRelayFrame> | ReturnType<typeof decodeRelayToAgentFrame>,
): Uint8Array {
  switch (frame.type) {
    case 'data':
      return encodeDataFrame(frame.connId, frame.payload);
    case 'client_open':
      return encodeClientOpenFrame(frame.connId);
    case 'client_closed':
      return encodeClientClosedFrame(frame.connId, frame.code);
    case 'close_client':
      return encodeCloseClientFrame(frame.connId, frame.code);
  }
}

function decodeFrame(bytes: Uint8Array, decode: (b: Uint8Array) => Parameters<typeof reencode>[0]): boolean {
  let frame: Parameters<typeof reencode>[0];
  try {
    frame = decode(bytes);
  } catch (error) {
    if (error instanceof RelayCodecError) return false;
    throw error;
  }
  invariant(sameBytes(reencode(frame), bytes), `a decoded ${frame.type} frame re-encodes differently`);
  return true;
}

export const relayFramesTarget: FuzzTarget<Case> = {
  name: 'relay-frames',
  about: 'decodeAgentToRelayFrame / decodeRelayToAgentFrame / decodeBase64url: random and mutated-valid',
  async: false,
  testRuns: 5_000,
  async start() {
    return {
      input,
      isExpected: (error) => error instanceof RelayCodecError,
      run(c) {
        if (c.kind === 'frame') {
          const a = decodeFrame(c.bytes, decodeAgentToRelayFrame);
          const b = decodeFrame(c.bytes, decodeRelayToAgentFrame);
          return a || b ? 'accepted' : 'rejected';
        }
        let ofLength: boolean;
        try {
          ofLength = isBase64urlOfLength(c.text, c.length);
        } catch (error) {
          invariant(false, `isBase64urlOfLength threw ${String(error)}`);
        }
        const bytes = decodeBase64url(c.text); // throws RelayCodecError on bad text
        invariant(encodeBase64url(bytes) === c.text, 'accepted base64url text that is not canonical');
        invariant(
          ofLength === (bytes.length === c.length),
          'isBase64urlOfLength disagrees with decodeBase64url',
        );
        return 'accepted';
      },
    };
  },
};
