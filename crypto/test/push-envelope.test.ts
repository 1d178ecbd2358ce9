import { describe, expect, it } from 'vitest';
import {
  type OpenPushEnvelopeParams,
  openPushEnvelope,
  PUSH_DELIVERY_ID_MAX_BYTES,
  PUSH_ENVELOPE_MAX_BYTES,
  PUSH_PADDED_SIZES,
  PUSH_PAYLOAD_MAX_BYTES,
  PushEnvelopeError,
  readPushEnvelopeHeader,
  type SealPushEnvelopeParams,
  sealPushEnvelope,
} from '../src/push-envelope.js';
import { randomBytes } from '../src/random.js';
import { generateKeyPair } from '../src/x25519.js';
import { AEAD_BACKENDS } from './vectors.js';

const burrow = generateKeyPair();
const phone = generateKeyPair();
const psk = randomBytes(32);
const burrowId = randomBytes(16);
const deliveryId = 'dlv_3kq9';
const payload = new TextEncoder().encode('{"v":1,"sessionId":"s1","label":"build","body":"needs you"}');

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof PushEnvelopeError) return error.code;
    throw error;
  }
  return undefined;
}

describe.each(AEAD_BACKENDS.map((aead) => ({ name: aead.name, aead })))(
  'push envelopes ($name)',
  ({ aead }) => {
    const seal = (over: Partial<SealPushEnvelopeParams> = {}) =>
      sealPushEnvelope({
        burrowId,
        deliveryId,
        senderStaticKeyPair: burrow,
        recipientStaticKey: phone.publicKey,
        psk,
        seq: 5,
        payload,
        aead,
        ...over,
      });
    const openParams: OpenPushEnvelopeParams = {
      burrowId,
      deliveryId,
      recipientStaticKeyPair: phone,
      senderStaticKey: burrow.publicKey,
      psk,
      lastSeenSeq: 4,
      aead,
    };
    const open = (envelope: Uint8Array, over: Partial<OpenPushEnvelopeParams> = {}) =>
      openPushEnvelope(envelope, { ...openParams, ...over });

    it('round-trips payload and seq', () => {
      const opened = open(seal());
      expect(opened.seq).toBe(5);
      expect(opened.payload).toEqual(payload);
      expect(readPushEnvelopeHeader(seal())).toMatchObject({ version: 1, deliveryId, burrowId });
    });

    it('pads to buckets, and the largest envelope fits PUSH_ENVELOPE_MAX_BYTES = 2994 (its base64url ≤ 3993)', () => {
      expect(PUSH_ENVELOPE_MAX_BYTES).toBe(2994);
      const header = 1 + 16 + 1 + deliveryId.length + 8;
      const small = seal({ payload: new Uint8Array(1) });
      const alsoSmall = seal({ payload: new Uint8Array(200) });
      expect(small.length).toBe(alsoSmall.length);
      expect(small.length).toBe(header + 32 + PUSH_PADDED_SIZES[0]! + 16);
      const longestId = 'x'.repeat(PUSH_DELIVERY_ID_MAX_BYTES);
      const biggest = seal({
        deliveryId: longestId,
        payload: new Uint8Array(PUSH_PAYLOAD_MAX_BYTES).fill(1),
      });
      expect(biggest.length).toBeLessThanOrEqual(PUSH_ENVELOPE_MAX_BYTES);
      expect(open(biggest, { deliveryId: longestId }).payload.length).toBe(PUSH_PAYLOAD_MAX_BYTES);
      expect(open(seal({ payload: new Uint8Array(0) })).payload.length).toBe(0);
    });

    it('rejects tampering anywhere in the ciphertext as tampered', () => {
      const envelope = seal();
      for (const index of [envelope.length - 1, envelope.length - 100, 30 + deliveryId.length]) {
        const bad = Uint8Array.from(envelope);
        bad[index]! ^= 0x40;
        expect(codeOf(() => open(bad))).toBe('tampered');
      }
      expect(codeOf(() => open(envelope, { psk: randomBytes(32) }))).toBe('tampered');
      expect(codeOf(() => open(envelope, { recipientStaticKeyPair: generateKeyPair() }))).toBe('tampered');
    });

    it('rejects envelopes for another Burrow or device as misaddressed, even if the header is rewritten', () => {
      const envelope = seal();
      expect(codeOf(() => open(envelope, { burrowId: randomBytes(16) }))).toBe('misaddressed');
      expect(codeOf(() => open(envelope, { deliveryId: 'dlv_other' }))).toBe('misaddressed');
      // Rewriting the header to point at this phone breaks the prologue binding instead.
      const other = seal({ deliveryId: 'dlv_3kq8' });
      other[1 + 16 + 1 + 7] = '9'.charCodeAt(0);
      expect(codeOf(() => open(other))).toBe('tampered');
    });

    it('rejects envelopes sealed by another static key as wrong-sender (or tampered if the hint is forged)', () => {
      const mallory = generateKeyPair();
      const forged = seal({ senderStaticKeyPair: mallory });
      expect(codeOf(() => open(forged))).toBe('wrong-sender');
      const hintStart = 1 + 16 + 1 + deliveryId.length;
      forged.set(seal().subarray(hintStart, hintStart + 8), hintStart);
      expect(codeOf(() => open(forged))).toBe('tampered');
    });

    it('rejects replays: seq must exceed lastSeenSeq', () => {
      const envelope = seal({ seq: 5 });
      expect(codeOf(() => open(envelope, { lastSeenSeq: 5 }))).toBe('replayed');
      expect(codeOf(() => open(envelope, { lastSeenSeq: 9 }))).toBe('replayed');
      expect(open(envelope, { lastSeenSeq: 0 }).seq).toBe(5);
    });

    it('rejects malformed and unknown-version envelopes', () => {
      const envelope = seal();
      expect(codeOf(() => open(envelope.subarray(0, 20)))).toBe('malformed');
      expect(codeOf(() => open(envelope.subarray(0, envelope.length - 1)))).toBe('malformed');
      const larger = seal({ payload: new Uint8Array(600) });
      expect(codeOf(() => open(larger.subarray(0, larger.length - 1)))).toBe('tampered');
      expect(codeOf(() => open(new Uint8Array(PUSH_ENVELOPE_MAX_BYTES + 1)))).toBe('malformed');
      const v2 = Uint8Array.from(envelope);
      v2[0] = 2;
      expect(codeOf(() => open(v2))).toBe('unsupported-version');
      const noId = Uint8Array.from(envelope);
      noId[17] = 0;
      expect(codeOf(() => open(noId))).toBe('malformed');
      const badUtf8 = Uint8Array.from(envelope);
      badUtf8[18] = 0xff;
      expect(codeOf(() => open(badUtf8))).toBe('malformed');
    });

    it('rejects bad arguments with TypeError / RangeError', () => {
      expect(() => seal({ seq: 0 })).toThrow(RangeError);
      expect(() => seal({ seq: 2 ** 53 })).toThrow(RangeError);
      expect(() => seal({ payload: new Uint8Array(PUSH_PAYLOAD_MAX_BYTES + 1) })).toThrow(RangeError);
      expect(() => seal({ deliveryId: '' })).toThrow(RangeError);
      expect(() => seal({ deliveryId: 'é'.repeat(33) })).toThrow(RangeError);
      expect(() => seal({ deliveryId: 7 as unknown as string })).toThrow(TypeError);
      expect(() => seal({ burrowId: new Uint8Array(8) })).toThrow(RangeError);
      expect(() => seal({ psk: new Uint8Array(16) })).toThrow(RangeError);
      expect(() => open(seal(), { lastSeenSeq: -1 })).toThrow(RangeError);
      expect(() => open(new Uint8Array(1), { recipientStaticKeyPair: undefined as never })).toThrow(
        TypeError,
      );
      expect(() => open(seal(), { senderStaticKey: new Uint8Array(31) })).toThrow(RangeError);
      expect(() => open('x' as unknown as Uint8Array)).toThrow(TypeError);
    });
  },
);
