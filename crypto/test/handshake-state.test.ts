import { describe, expect, it } from 'vitest';
import { nobleAead } from '../src/aead.js';
import { handshakePattern, patternFromProtocolName } from '../src/handshake-pattern.js';
import { HandshakeState } from '../src/handshake-state.js';
import { NoiseError } from '../src/noise-error.js';
import { SymmetricState } from '../src/symmetric-state.js';
import { NOISE_MAX_MESSAGE } from '../src/transport.js';
import { generateKeyPair } from '../src/x25519.js';
import { toHex } from './vectors.js';

const IKPSK2 = 'Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s';
const NN = 'Noise_NN_25519_ChaChaPoly_BLAKE2s';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof NoiseError) return error.code;
    throw error;
  }
  return undefined;
}

function ikpsk2Pair(psk = new Uint8Array(32).fill(3)) {
  const client = generateKeyPair();
  const burrow = generateKeyPair();
  const init = new HandshakeState({
    protocolName: IKPSK2,
    initiator: true,
    staticKeyPair: client,
    remoteStaticKey: burrow.publicKey,
    psks: [psk],
  });
  const resp = new HandshakeState({ protocolName: IKPSK2, initiator: false, staticKeyPair: burrow });
  return { client, burrow, init, resp };
}

describe('SymmetricState.InitializeSymmetric', () => {
  it('copies a protocol name of exactly 32 bytes instead of hashing it', () => {
    const name = 'Noise_N_25519_ChaChaPoly_BLAKE2s';
    expect(name.length).toBe(32);
    const s = new SymmetricState(name, nobleAead);
    expect(toHex(s.handshakeHash)).toBe(toHex(new TextEncoder().encode(name)));
    expect(toHex(s.chainingKey)).toBe(toHex(s.handshakeHash));
  });

  it('hashes a longer name and zero-pads a shorter one', () => {
    const long = new SymmetricState(NN, nobleAead);
    expect(toHex(long.handshakeHash)).not.toContain(toHex(new TextEncoder().encode('Noise_NN')));
    const short = new SymmetricState('Noise', nobleAead);
    expect(toHex(short.handshakeHash)).toBe(`${toHex(new TextEncoder().encode('Noise'))}${'00'.repeat(27)}`);
  });
});

describe('handshake patterns', () => {
  it('places psk tokens per §9.2 and marks psk handshakes', () => {
    expect(handshakePattern('IKpsk2').messages).toEqual([
      ['e', 'es', 's', 'ss'],
      ['e', 'ee', 'se', 'psk'],
    ]);
    expect(handshakePattern('NKpsk0').messages[0]).toEqual(['psk', 'e', 'es']);
    expect(handshakePattern('XXpsk3').messages[2]).toEqual(['s', 'se', 'psk']);
    expect(handshakePattern('XXpsk0+psk3').messages[0]).toEqual(['psk', 'e']);
    expect(handshakePattern('Kpsk0')).toMatchObject({
      oneWay: true,
      hasPsk: true,
      initiatorPreMessage: ['s'],
    });
    expect(handshakePattern('IK')).toMatchObject({
      oneWay: false,
      hasPsk: false,
      responderPreMessage: ['s'],
    });
  });

  it('rejects unknown names and suites', () => {
    expect(() => handshakePattern('ZZ')).toThrow(RangeError);
    expect(() => handshakePattern('IKpsk3')).toThrow(RangeError);
    expect(() => handshakePattern(`IK${'psk1'.repeat(40)}`)).toThrow(RangeError);
    expect(() => handshakePattern(42 as unknown as string)).toThrow(TypeError);
    expect(() => patternFromProtocolName('Noise_IK_448_ChaChaPoly_BLAKE2s')).toThrow(RangeError);
    expect(() => patternFromProtocolName(null as unknown as string)).toThrow(TypeError);
  });
});

describe('HandshakeState', () => {
  it('lets the IK responder learn the caller before choosing the psk (connect mode)', () => {
    const psk = new Uint8Array(32).fill(9);
    const { client, init, resp } = ikpsk2Pair(psk);
    expect(resp.remoteStatic).toBeNull();
    resp.readMessage(init.writeMessage(Uint8Array.of(1)));
    expect(toHex(resp.remoteStatic!)).toBe(toHex(client.publicKey));
    // No psk yet: a clear error, and the state is still usable.
    expect(codeOf(() => resp.writeMessage())).toBe('missing-psk');
    resp.setPsk(psk);
    const payload = init.readMessage(resp.writeMessage(Uint8Array.of(2)));
    expect(payload).toEqual(Uint8Array.of(2));
    expect(toHex(init.handshakeHash)).toBe(toHex(resp.handshakeHash));
    const [a, b] = [init.split(), resp.split()];
    expect(b.decrypt(a.encrypt(Uint8Array.of(3)))).toEqual(Uint8Array.of(3));
    expect(a.decrypt(b.encrypt(Uint8Array.of(4)))).toEqual(Uint8Array.of(4));
  });

  it('splits once: a second split() throws instead of handing out the same keys at nonce 0 (issue 16.6)', () => {
    const { init, resp } = ikpsk2Pair();
    resp.readMessage(init.writeMessage());
    resp.setPsk(new Uint8Array(32).fill(3));
    init.readMessage(resp.writeMessage());
    const [a, b] = [init.split(), resp.split()];
    // A second transport would encrypt with the same key and nonce as the first: keystream reuse.
    expect(codeOf(() => init.split())).toBe('invalid-state');
    expect(codeOf(() => resp.split())).toBe('invalid-state');
    // The first transports are untouched by the refused calls.
    expect(b.decrypt(a.encrypt(Uint8Array.of(5)))).toEqual(Uint8Array.of(5));
  });

  it('fails the initiator when the responder used another psk, and stays failed', () => {
    const { init, resp } = ikpsk2Pair();
    resp.readMessage(init.writeMessage());
    resp.setPsk(new Uint8Array(32).fill(4));
    const message2 = resp.writeMessage();
    expect(codeOf(() => init.readMessage(message2))).toBe('decrypt-failed');
    expect(codeOf(() => init.readMessage(message2))).toBe('invalid-state');
    expect(codeOf(() => init.split())).toBe('invalid-state');
  });

  it('refuses out-of-turn, early split and post-finish use', () => {
    const { init, resp } = ikpsk2Pair();
    expect(codeOf(() => init.readMessage(new Uint8Array(96)))).toBe('invalid-state');
    expect(codeOf(() => resp.writeMessage())).toBe('invalid-state');
    expect(codeOf(() => init.split())).toBe('invalid-state');
    resp.readMessage(init.writeMessage());
    resp.setPsk(new Uint8Array(32).fill(3));
    init.readMessage(resp.writeMessage());
    expect(init.isFinished).toBe(true);
    expect(init.isMyTurn).toBe(false);
    expect(codeOf(() => init.writeMessage())).toBe('invalid-state');
  });

  it('rejects truncated, oversized and low-order handshake messages with NoiseError', () => {
    const { init, resp } = ikpsk2Pair();
    const message1 = init.writeMessage();
    expect(codeOf(() => resp.readMessage(message1.subarray(0, 40)))).toBe('malformed-message');
    const big = ikpsk2Pair().resp;
    expect(codeOf(() => big.readMessage(new Uint8Array(NOISE_MAX_MESSAGE + 1)))).toBe('message-too-large');
    const lowOrder = ikpsk2Pair().resp;
    expect(codeOf(() => lowOrder.readMessage(new Uint8Array(96)))).toBe('invalid-public-key');
    // NN: a low-order e is only used at the responder's `ee`, i.e. while writing — that fails too.
    const nnResp = new HandshakeState({ protocolName: NN, initiator: false });
    nnResp.readMessage(new Uint8Array(32));
    expect(codeOf(() => nnResp.writeMessage())).toBe('invalid-public-key');
    expect(codeOf(() => nnResp.writeMessage())).toBe('invalid-state');
  });

  it('follows every e token of a psk handshake with MixKey(e) (rev 34 §9.3)', () => {
    // XX message 1 is just `e`: no key yet, so the payload goes in the clear. In XXpsk3 the same message is
    // keyed by MixKey(e) although the psk itself only comes in message 3, so the payload gets a tag.
    const xx = new HandshakeState({ protocolName: 'Noise_XX_25519_ChaChaPoly_BLAKE2s', initiator: true });
    const xxpsk3 = new HandshakeState({
      protocolName: 'Noise_XXpsk3_25519_ChaChaPoly_BLAKE2s',
      initiator: true,
    });
    expect(xx.writeMessage(Uint8Array.of(1)).length).toBe(33);
    expect(xxpsk3.writeMessage(Uint8Array.of(1)).length).toBe(49);
    // …and the responder's e as well: XXpsk3 message 2 carries e, ee, s, es — decryptable only if both sides
    // mixed both ephemerals into the key.
    const s = generateKeyPair();
    const init = new HandshakeState({
      protocolName: 'Noise_XXpsk3_25519_ChaChaPoly_BLAKE2s',
      initiator: true,
    });
    const resp = new HandshakeState({
      protocolName: 'Noise_XXpsk3_25519_ChaChaPoly_BLAKE2s',
      initiator: false,
      staticKeyPair: s,
    });
    resp.readMessage(init.writeMessage());
    expect(toHex(init.readMessage(resp.writeMessage(Uint8Array.of(7))))).toBe('07');
    expect(toHex(init.chainingKey)).toBe(toHex(resp.chainingKey));
  });

  it('runs EncryptAndHash on an empty payload (the tag is still there)', () => {
    const { init } = ikpsk2Pair();
    // e (32) + encrypted s (48) + encrypted empty payload (16).
    expect(init.writeMessage().length).toBe(96);
  });

  it('refuses a message that would exceed 65535 bytes before touching the state', () => {
    const { init, resp } = ikpsk2Pair();
    expect(() => init.writeMessage(new Uint8Array(NOISE_MAX_MESSAGE - 96 + 1))).toThrow(RangeError);
    const message1 = init.writeMessage(new Uint8Array(NOISE_MAX_MESSAGE - 96));
    expect(message1.length).toBe(NOISE_MAX_MESSAGE);
    expect(resp.readMessage(message1).length).toBe(NOISE_MAX_MESSAGE - 96);
  });

  it('checks its options', () => {
    const pair = generateKeyPair();
    const other = generateKeyPair();
    expect(() => new HandshakeState(null as unknown as never)).toThrow(TypeError);
    expect(() => new HandshakeState({ protocolName: NN, initiator: 'yes' as unknown as boolean })).toThrow(
      TypeError,
    );
    // IK initiator without the responder's static key (its pre-message).
    expect(() => new HandshakeState({ protocolName: IKPSK2, initiator: true, staticKeyPair: pair })).toThrow(
      TypeError,
    );
    expect(
      () =>
        new HandshakeState({
          protocolName: NN,
          initiator: true,
          staticKeyPair: { privateKey: pair.privateKey, publicKey: other.publicKey },
        }),
    ).toThrow(RangeError);
    const hs = new HandshakeState({ protocolName: NN, initiator: true });
    expect(() => hs.setPsk(new Uint8Array(31))).toThrow(RangeError);
    for (let i = 0; i < 4; i++) hs.setPsk(new Uint8Array(32));
    expect(() => hs.setPsk(new Uint8Array(32))).toThrow(RangeError);
  });

  it('reports a missing static key as missing-key', () => {
    const burrow = generateKeyPair();
    const init = new HandshakeState({
      protocolName: 'Noise_IK_25519_ChaChaPoly_BLAKE2s',
      initiator: true,
      remoteStaticKey: burrow.publicKey,
    });
    expect(codeOf(() => init.writeMessage())).toBe('missing-key');
    const xx = new HandshakeState({ protocolName: 'Noise_XX_25519_ChaChaPoly_BLAKE2s', initiator: false });
    xx.readMessage(
      new HandshakeState({
        protocolName: 'Noise_XX_25519_ChaChaPoly_BLAKE2s',
        initiator: true,
      }).writeMessage(),
    );
    expect(codeOf(() => xx.writeMessage())).toBe('missing-key');
  });
});
