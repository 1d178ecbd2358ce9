import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HandshakeState } from '../src/handshake-state.js';
import { decodeHandshakeTimestamp } from '../src/handshake-timestamp.js';
import { initiatorIKpsk2, responderIKpsk2 } from '../src/ikpsk2.js';
import { NoiseError } from '../src/noise-error.js';
import {
  openPushEnvelope,
  PushEnvelopeError,
  readPushEnvelopeHeader,
  sealPushEnvelope,
} from '../src/push-envelope.js';
import type { NoiseTransport } from '../src/transport.js';
import { generateKeyPair } from '../src/x25519.js';

// Seeded and bounded: reproducible, and a few seconds on a shared 2-core machine.
const RUNS = { seed: 0x5eed, numRuns: 150 };

const phone = generateKeyPair();
const burrow = generateKeyPair();
const psk = new Uint8Array(32).fill(0x42);
const prologue = new TextEncoder().encode('burrow property tests');

/** A mutation of valid bytes: flip bits, truncate, extend, or splice random bytes in. */
function mutated(valid: Uint8Array) {
  return fc.oneof(
    fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 1, max: 255 })).map(([index, mask]) => {
      const out = Uint8Array.from(valid);
      out[index]! ^= mask;
      return out;
    }),
    fc.nat({ max: valid.length - 1 }).map((length) => valid.slice(0, length)),
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((extra) => Uint8Array.of(...valid, ...extra)),
    fc
      .tuple(fc.nat({ max: valid.length - 1 }), fc.uint8Array({ minLength: 1, maxLength: 16 }))
      .map(([at, bytes]) => Uint8Array.of(...valid.subarray(0, at), ...bytes, ...valid.subarray(at))),
  );
}

/** Never accepted, and the only thing thrown is the module's own error. */
function rejectsOnlyWith(
  errorClass: typeof NoiseError | typeof PushEnvelopeError,
  fn: () => unknown,
): boolean {
  try {
    fn();
  } catch (error) {
    if (error instanceof errorClass) return true;
    throw error;
  }
  return false;
}

function transportPair(): [NoiseTransport, NoiseTransport] {
  const init = initiatorIKpsk2({ prologue, staticKeyPair: phone, remoteStaticKey: burrow.publicKey, psk });
  const resp = responderIKpsk2({ prologue, staticKeyPair: burrow, psk });
  resp.readMessage(init.writeMessage());
  init.readMessage(resp.writeMessage());
  return [init.split(), resp.split()];
}

describe('property: transport decryption', () => {
  const [sender, receiver] = transportPair();
  const valid = sender.encrypt(new TextEncoder().encode('a keystroke and some output'));

  it('rejects random ciphertexts with NoiseError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) =>
        rejectsOnlyWith(NoiseError, () => receiver.decrypt(bytes)),
      ),
      RUNS,
    );
  });

  it('rejects every mutation of a valid ciphertext, and the counter never moves', () => {
    fc.assert(
      fc.property(mutated(valid), (bytes) => {
        expect(rejectsOnlyWith(NoiseError, () => receiver.decrypt(bytes))).toBe(true);
        return receiver.receiveNonce === 0n;
      }),
      RUNS,
    );
    expect(new TextDecoder().decode(receiver.decrypt(valid))).toBe('a keystroke and some output');
  });
});

describe('property: handshake messages', () => {
  const init = initiatorIKpsk2({ prologue, staticKeyPair: phone, remoteStaticKey: burrow.publicKey, psk });
  const message1 = init.writeMessage(new Uint8Array(8));

  it('rejects random and mutated message 1 with NoiseError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 256 }), mutated(message1)), (bytes) =>
        rejectsOnlyWith(NoiseError, () =>
          responderIKpsk2({ prologue, staticKeyPair: burrow, psk }).readMessage(bytes),
        ),
      ),
      RUNS,
    );
  });

  it('rejects random and mutated message 2 with NoiseError', () => {
    // Each run needs an initiator in the same state, so all of them use one fixed ephemeral.
    const ephemeral = generateKeyPair();
    const fixed = () =>
      new HandshakeState({
        protocolName: 'Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s',
        initiator: true,
        prologue,
        staticKeyPair: phone,
        remoteStaticKey: burrow.publicKey,
        psks: [psk],
        ephemeralKeyPair: ephemeral,
      });
    const first = fixed().writeMessage();
    const resp = responderIKpsk2({ prologue, staticKeyPair: burrow, psk });
    resp.readMessage(first);
    const reply = resp.writeMessage();
    const check = fixed();
    check.writeMessage();
    check.readMessage(reply);
    expect(check.isFinished).toBe(true);
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 256 }), mutated(reply)), (bytes) => {
        const initiator = fixed();
        initiator.writeMessage();
        return rejectsOnlyWith(NoiseError, () => initiator.readMessage(bytes));
      }),
      RUNS,
    );
  });

  it('decodes random timestamp payloads to a number or NoiseError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 16 }), (bytes) => {
        try {
          return Number.isSafeInteger(decodeHandshakeTimestamp(bytes));
        } catch (error) {
          return error instanceof NoiseError;
        }
      }),
      RUNS,
    );
  });
});

describe('property: push envelopes', () => {
  const burrowId = new Uint8Array(16).fill(7);
  const deliveryId = 'dlv_prop';
  const envelope = sealPushEnvelope({
    burrowId,
    deliveryId,
    senderStaticKeyPair: burrow,
    recipientStaticKey: phone.publicKey,
    psk,
    seq: 3,
    payload: new TextEncoder().encode('{"v":1}'),
  });
  const open = (bytes: Uint8Array) =>
    openPushEnvelope(bytes, {
      burrowId,
      deliveryId,
      recipientStaticKeyPair: phone,
      senderStaticKey: burrow.publicKey,
      psk,
      lastSeenSeq: 0,
    });

  it('rejects random and mutated envelopes with PushEnvelopeError', () => {
    expect(open(envelope).seq).toBe(3);
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 1024 }), mutated(envelope)), (bytes) =>
        rejectsOnlyWith(PushEnvelopeError, () => open(bytes)),
      ),
      RUNS,
    );
  });

  it('reads random headers into a header or PushEnvelopeError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        try {
          return readPushEnvelopeHeader(bytes).burrowId.length === 16;
        } catch (error) {
          return error instanceof PushEnvelopeError;
        }
      }),
      RUNS,
    );
  });
});
