/**
 * Target: the push-envelope opener (crypto/src/push-envelope.ts, DESIGN §4.4): what the phone's service
 * worker runs on every push, from anyone who can reach the push service.
 *
 * Feeds valid envelopes byte-mutated (header and ciphertext alike), random bytes, and valid envelopes sealed
 * for another device or by another key, to `openPushEnvelope` and `readPushEnvelopeHeader` — half of the
 * cases as the service worker gets them: the push message text (`decodePushMessage`, RL-PUSH-TEXT), mutated.
 * Expected rejection: PushEnvelopeError, or RelayCodecError('bad_push_message') for the text. Findings: any other exception; an envelope opened whose bytes differ
 * from one the Burrow sealed for this device; an unaltered one that does not open to its payload.
 */
import {
  generateKeyPair,
  openPushEnvelope,
  PUSH_PAYLOAD_MAX_BYTES,
  PushEnvelopeError,
  randomBytes,
  readPushEnvelopeHeader,
  sealPushEnvelope,
} from '@burrow/crypto';
import { decodePushMessage, encodePushMessage, RelayCodecError } from '@burrow/protocol';
import fc from 'fast-check';
import { type FuzzTarget, invariant } from '../fuzz-target.js';
import { mutatedBytes, sameBytes } from '../mutate.js';

/** Envelopes sealed at start, of several payload sizes (bucket boundaries included). */
const PAYLOAD_SIZES = [0, 1, 200, 246, 247, 1000, 2038, 3000].filter((n) => n <= PUSH_PAYLOAD_MAX_BYTES);
const DELIVERY_ID = 'fuzz-delivery-0001';

interface Case {
  readonly valid: { readonly envelope: Uint8Array; readonly payload: Uint8Array } | null;
  readonly bytes: Uint8Array;
  /** `bytes` is the push message (the envelope's base64url text as ASCII), not the envelope. */
  readonly asMessage: boolean;
}

export const pushEnvelopeTarget: FuzzTarget<Case> = {
  name: 'push-envelope',
  about: 'openPushEnvelope / readPushEnvelopeHeader: mutated, random, misaddressed and foreign-key envelopes',
  async: false,
  testRuns: 400,
  async start() {
    const burrowId = randomBytes(16);
    const sender = generateKeyPair();
    const recipient = generateKeyPair();
    const psk = randomBytes(32);
    const seal = (
      payload: Uint8Array,
      overrides: { deliveryId?: string; sender?: typeof sender; psk?: Uint8Array } = {},
    ) =>
      sealPushEnvelope({
        burrowId,
        deliveryId: overrides.deliveryId ?? DELIVERY_ID,
        senderStaticKeyPair: overrides.sender ?? sender,
        recipientStaticKey: recipient.publicKey,
        psk: overrides.psk ?? psk,
        seq: 1,
        payload,
      });
    const pool = PAYLOAD_SIZES.map((n) => {
      const payload = randomBytes(Math.max(n, 1)).subarray(0, n);
      return { envelope: seal(payload), payload };
    });
    const foreign = [
      seal(new Uint8Array(8), { deliveryId: 'another-device' }),
      seal(new Uint8Array(8), { sender: generateKeyPair() }),
      seal(new Uint8Array(8), { psk: randomBytes(32) }),
    ];
    const valid = fc.constantFrom(...pool);
    const asEnvelope: fc.Arbitrary<Omit<Case, 'asMessage'>> = fc.oneof(
      {
        weight: 5,
        arbitrary: mutatedBytes(valid.map((v) => v.envelope)).map((m) => ({
          valid: pool.find((p) => p.envelope === m.original)!,
          bytes: m.bytes,
        })),
      },
      { weight: 2, arbitrary: fc.uint8Array({ maxLength: 600 }).map((bytes) => ({ valid: null, bytes })) },
      { weight: 1, arbitrary: fc.constantFrom(...foreign).map((bytes) => ({ valid: null, bytes })) },
      { weight: 1, arbitrary: valid.map((v) => ({ valid: v, bytes: v.envelope })) },
    );
    const messages = pool.map((p) => ({ ...p, message: encodePushMessage(p.envelope) }));
    const asMessage: fc.Arbitrary<Omit<Case, 'asMessage'>> = fc.oneof(
      {
        weight: 5,
        arbitrary: mutatedBytes(fc.constantFrom(...messages).map((m) => m.message)).map((m) => ({
          valid: messages.find((p) => p.message === m.original)!,
          bytes: m.bytes,
        })),
      },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 600 }).map((bytes) => ({ valid: null, bytes })) },
      { weight: 1, arbitrary: fc.constantFrom(...messages).map((v) => ({ valid: v, bytes: v.message })) },
    );
    const input: fc.Arbitrary<Case> = fc.oneof(
      asEnvelope.map((c) => ({ ...c, asMessage: false })),
      asMessage.map((c) => ({ ...c, asMessage: true })),
    );
    const params = {
      burrowId,
      deliveryId: DELIVERY_ID,
      recipientStaticKeyPair: recipient,
      senderStaticKey: sender.publicKey,
      psk,
      lastSeenSeq: 0,
    };
    return {
      input,
      isExpected: (error) =>
        error instanceof PushEnvelopeError ||
        (error instanceof RelayCodecError && error.reason === 'bad_push_message'),
      run({ valid: original, bytes: received, asMessage }) {
        // Canonical base64url is one-to-one, so an altered message text never decodes to the sealed bytes.
        const bytes = asMessage ? decodePushMessage(received) : received;
        try {
          readPushEnvelopeHeader(bytes);
        } catch (error) {
          if (!(error instanceof PushEnvelopeError)) throw error;
        }
        const unaltered = original !== null && sameBytes(original.envelope, bytes);
        let opened: ReturnType<typeof openPushEnvelope>;
        try {
          opened = openPushEnvelope(bytes, params);
        } catch (error) {
          invariant(!unaltered, `an unaltered envelope did not open: ${String(error)}`);
          throw error;
        }
        invariant(unaltered, 'opened an altered, random or foreign envelope');
        invariant(
          sameBytes(opened.payload, original!.payload) && opened.seq === 1,
          'opened to the wrong payload',
        );
        return 'accepted';
      },
    };
  },
};
