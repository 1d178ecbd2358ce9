/**
 * Target: the Burrow's Noise IKpsk2 responder for message 1 (burrow-agent/src/remote/handshake-responder.ts,
 * crypto's `responderIKpsk2`, DESIGN §4.2).
 *
 * Feeds random bytes of every length around message 1's (96 bytes in pair mode, 120 in connect mode), valid
 * connect and pair messages 1 byte-mutated, and valid ones whose ephemeral key is replaced by a low-order
 * point, with a pairing offer open or not. Expected rejection: none thrown — the responder answers every
 * input with an outcome. Findings: any exception; any `connect` or `pair` outcome for bytes that differ from
 * a message 1 the phone really made (an altered message 1 must never be accepted).
 */
import {
  burrowPrologue,
  encodeHandshakeTimestamp,
  generateKeyPair,
  initiatorIKpsk2,
  randomBytes,
} from '@burrow/crypto';
import { decodeBase64url, PROTOCOL_VERSION } from '@burrow/protocol';
import fc from 'fast-check';
import type { DeviceRecord } from '../../../burrow-agent/src/devices/device-registry.js';
import type { PairingOffer } from '../../../burrow-agent/src/pairing/pairing-offer.js';
import {
  type ResponderContext,
  respondToMessage1,
} from '../../../burrow-agent/src/remote/handshake-responder.js';
import { type FuzzTarget, invariant } from '../fuzz-target.js';
import { mutatedBytes, sameBytes } from '../mutate.js';

const BURROW_ID = 'AAECAwQFBgcICQoLDA0ODw';
const NOW = 1_800_000_000_000;
/** Valid messages 1 made per mode at start (each costs a handshake). */
const VALID_POOL = 8;

/** X25519 points of small order (RFC 7748 §7; Wycheproof), little-endian u-coordinates. */
const LOW_ORDER_POINTS = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
  '5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
].map((hex) => Uint8Array.from(Buffer.from(hex, 'hex')));

interface Case {
  readonly valid: Uint8Array | null;
  readonly bytes: Uint8Array;
  readonly offerOpen: boolean;
}

export const handshakeResponderTarget: FuzzTarget<Case> = {
  name: 'handshake-responder',
  about: 'respondToMessage1 (IKpsk2 responder): random, mutated-valid and low-order-e messages 1',
  async: false,
  testRuns: 400,
  async start() {
    const burrow = generateKeyPair();
    const phone = generateKeyPair();
    const device: DeviceRecord = {
      deviceId: 'fuzz-device-0001',
      label: 'fuzz',
      clientPublicKey: phone.publicKey,
      psk: randomBytes(32),
      deliveryId: 'AAAAAAAAAAAAAAAAAAAAAA',
      pairedAt: 0,
    };
    const offer: PairingOffer = {
      secret: randomBytes(32),
      createdAt: 0,
      expiresAt: NOW + 60_000,
      label: null,
    };
    const message1 = (mode: 'connect' | 'pair', psk: Uint8Array, payload: Uint8Array) =>
      initiatorIKpsk2({
        prologue: burrowPrologue({
          mode,
          protocolVersion: PROTOCOL_VERSION,
          burrowId: decodeBase64url(BURROW_ID),
        }),
        staticKeyPair: phone,
        remoteStaticKey: burrow.publicKey,
        psk,
      }).writeMessage(payload);
    const pool: Uint8Array[] = [];
    for (let i = 0; i < VALID_POOL; i++) {
      pool.push(message1('connect', device.psk, encodeHandshakeTimestamp(NOW - i)));
      pool.push(message1('pair', offer.secret, new Uint8Array(0)));
    }
    const valid = fc.constantFrom(...pool);
    const lowOrder = fc.tuple(valid, fc.constantFrom(...LOW_ORDER_POINTS)).map(([m, e]) => {
      const bytes = m.slice();
      bytes.set(e, 0);
      return { valid: m, bytes };
    });
    const input: fc.Arbitrary<Case> = fc
      .record({
        c: fc.oneof(
          { weight: 4, arbitrary: mutatedBytes(valid).map((m) => ({ valid: m.original, bytes: m.bytes })) },
          {
            weight: 2,
            arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ valid: null, bytes })),
          },
          {
            weight: 1,
            arbitrary: fc
              .constantFrom(32, 48, 95, 96, 97, 119, 120, 121)
              .chain((n) => fc.uint8Array({ minLength: n, maxLength: n }))
              .map((bytes) => ({ valid: null, bytes })),
          },
          { weight: 1, arbitrary: lowOrder },
          { weight: 1, arbitrary: valid.map((m) => ({ valid: m, bytes: m })) },
        ),
        offerOpen: fc.boolean(),
      })
      .map(({ c, offerOpen }) => ({ ...c, offerOpen }));
    const context = (offerOpen: boolean): ResponderContext => ({
      burrowId: BURROW_ID,
      staticKeyPair: burrow,
      now: NOW,
      findDevice: (key) => (sameBytes(key, phone.publicKey) ? device : undefined),
      lastHandshakeAt: () => NOW - 10 * 60_000,
      openOffer: offerOpen ? offer : null,
    });
    let acceptedValid = 0;
    return {
      input,
      isExpected: () => false,
      run({ valid: original, bytes, offerOpen }) {
        const outcome = respondToMessage1(context(offerOpen), bytes);
        if (outcome.kind === 'reject') return 'rejected';
        invariant(
          original !== null && sameBytes(original, bytes),
          `accepted an altered or random message 1 as ${outcome.kind}`,
        );
        invariant(outcome.kind === 'connect' || offerOpen, 'pair accepted with no offer open');
        acceptedValid++;
        return 'accepted';
      },
      figures: () => ({ 'unaltered messages 1 accepted': acceptedValid }),
    };
  },
};
