// A static key whose private half the library never sees (issue 16 item 7: the phone's Client static as a
// non-extractable WebCrypto key). Here the holder is simulated with noble's DH over a private key kept outside
// the handshake; the phone's WebCrypto holder is tested in pocket-pwa (client-static.test.ts) and the browsers.
import { describe, expect, it } from 'vitest';
import { burrowPrologue } from '../src/burrow-prologue.js';
import { HandshakeState } from '../src/handshake-state.js';
import { BURROW_NOISE_PROTOCOL, ikpsk2ResponderEphemeral, initiatorIKpsk2 } from '../src/ikpsk2.js';
import { NoiseError } from '../src/noise-error.js';
import { openPushEnvelope, pushEnvelopeSenderEphemeral, sealPushEnvelope } from '../src/push-envelope.js';
import { randomBytes } from '../src/random.js';
import { dh, type ExternalStaticKey, generateKeyPair, type KeyPair, staticDh } from '../src/x25519.js';
import { toHex } from './vectors.js';

const prologue = burrowPrologue({
  mode: 'connect',
  protocolVersion: 1,
  burrowId: new Uint8Array(16).fill(7),
});

/** An external key that answers only for the public keys it was prepared for, as the phone's holder does. */
function heldElsewhere(
  pair: KeyPair,
): ExternalStaticKey & { prepare(remote: Uint8Array): void; asked: number } {
  const prepared = new Map<string, Uint8Array>();
  return {
    publicKey: pair.publicKey,
    asked: 0,
    prepare(remote) {
      prepared.set(toHex(remote), dh(pair.privateKey, remote));
    },
    dh(remote) {
      this.asked++;
      const shared = prepared.get(toHex(remote));
      if (!shared) throw new NoiseError('missing-key', 'not prepared for this public key');
      return shared;
    },
  };
}

describe('ExternalStaticKey', () => {
  it('an IKpsk2 initiator with an external static key sends the same bytes and derives the same keys', () => {
    const phone = generateKeyPair();
    const burrow = generateKeyPair();
    const ephemeral = generateKeyPair();
    const burrowEphemeral = generateKeyPair();
    const psk = randomBytes(32);
    const run = (staticKeyPair: KeyPair | ExternalStaticKey) => {
      const initiator = new HandshakeState({
        protocolName: BURROW_NOISE_PROTOCOL,
        initiator: true,
        prologue,
        staticKeyPair,
        remoteStaticKey: burrow.publicKey,
        psks: [psk],
        ephemeralKeyPair: ephemeral,
      });
      const responder = new HandshakeState({
        protocolName: BURROW_NOISE_PROTOCOL,
        initiator: false,
        prologue,
        staticKeyPair: burrow,
        psks: [psk],
        ephemeralKeyPair: burrowEphemeral,
      });
      const m1 = initiator.writeMessage(new Uint8Array([1]));
      responder.readMessage(m1);
      const m2 = responder.writeMessage(new Uint8Array([2]));
      if ('prepare' in staticKeyPair)
        (staticKeyPair as ReturnType<typeof heldElsewhere>).prepare(ikpsk2ResponderEphemeral(m2));
      initiator.readMessage(m2);
      const [mine, theirs] = [initiator.split(), responder.split()];
      expect(theirs.decrypt(mine.encrypt(new Uint8Array([3])))).toEqual(new Uint8Array([3]));
      return { m1: toHex(m1), hash: toHex(mine.handshakeHash) };
    };
    const external = heldElsewhere(phone);
    external.prepare(burrow.publicKey); // ss, before message 1
    expect(run(external)).toEqual(run(phone));
    expect(external.asked).toBe(2); // ss and se: the only DHs that use s on the initiator side
  });

  it('a DH it was not prepared for fails the handshake with a NoiseError, and the state stays failed', () => {
    const phone = heldElsewhere(generateKeyPair());
    const burrow = generateKeyPair();
    const initiator = initiatorIKpsk2({
      prologue,
      staticKeyPair: phone,
      remoteStaticKey: burrow.publicKey,
      psk: randomBytes(32),
    });
    expect(() => initiator.writeMessage()).toThrow(NoiseError);
    expect(() => initiator.writeMessage()).toThrow(/handshake failed/);
  });

  it('an external result is checked like noble’s: 32 bytes, never all zero, peer keys of 32 bytes', () => {
    const answering = (shared: unknown): ExternalStaticKey => ({
      publicKey: new Uint8Array(32),
      dh: () => shared as Uint8Array,
    });
    const peer = generateKeyPair().publicKey;
    expect(() => staticDh(answering(new Uint8Array(32)), peer)).toThrow(
      expect.objectContaining({ code: 'invalid-public-key' }),
    );
    expect(() => staticDh(answering(new Uint8Array(31)), peer)).toThrow(
      expect.objectContaining({ code: 'missing-key' }),
    );
    expect(() => staticDh(answering('x'), peer)).toThrow(expect.objectContaining({ code: 'missing-key' }));
    expect(() => staticDh(answering(new Uint8Array(32).fill(1)), new Uint8Array(31))).toThrow(
      expect.objectContaining({ code: 'invalid-public-key' }),
    );
    const result = new Uint8Array(32).fill(9);
    const copy = staticDh(answering(result), peer);
    result.fill(0);
    expect(copy).toEqual(new Uint8Array(32).fill(9)); // a copy: the holder's buffer can't reach the state
    expect(
      () =>
        new HandshakeState({
          protocolName: BURROW_NOISE_PROTOCOL,
          initiator: true,
          staticKeyPair: { publicKey: new Uint8Array(31), dh: () => result },
        }),
    ).toThrow(RangeError);
  });

  it('ikpsk2ResponderEphemeral is the leading 32 bytes of message 2', () => {
    const m2 = randomBytes(48);
    expect(ikpsk2ResponderEphemeral(m2)).toEqual(m2.slice(0, 32));
    expect(() => ikpsk2ResponderEphemeral(new Uint8Array(31))).toThrow(NoiseError);
  });

  it('a push envelope opens with an external recipient key prepared for the sender’s two keys', () => {
    const phone = generateKeyPair();
    const burrow = generateKeyPair();
    const psk = randomBytes(32);
    const burrowId = new Uint8Array(16).fill(3);
    const envelope = sealPushEnvelope({
      burrowId,
      deliveryId: 'd1',
      senderStaticKeyPair: burrow,
      recipientStaticKey: phone.publicKey,
      psk,
      seq: 1,
      payload: new Uint8Array([42]),
    });
    const external = heldElsewhere(phone);
    const open = () =>
      openPushEnvelope(envelope, {
        burrowId,
        deliveryId: 'd1',
        recipientStaticKeyPair: external,
        senderStaticKey: burrow.publicKey,
        psk,
        lastSeenSeq: 0,
      });
    expect(open).toThrow(expect.objectContaining({ code: 'tampered' })); // nothing prepared yet
    external.prepare(burrow.publicKey);
    external.prepare(pushEnvelopeSenderEphemeral(envelope));
    expect(open().payload).toEqual(new Uint8Array([42]));
  });
});
