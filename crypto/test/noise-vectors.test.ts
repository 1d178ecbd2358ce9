import { describe, expect, it } from 'vitest';
import type { Aead } from '../src/aead.js';
import { HandshakeState } from '../src/handshake-state.js';
import { keyPairFromPrivate } from '../src/x25519.js';
import { AEAD_BACKENDS, hex, loadVectors, type NoiseVector, toHex } from './vectors.js';

const cacophony = loadVectors<{ vectors: NoiseVector[] }>(
  'cacophony-subset-25519_ChaChaPoly_BLAKE2s.json',
).vectors;
const emptyPayload = loadVectors<{ vectors: NoiseVector[] }>(
  'burrow-selfgen-empty-payload-vectors.json',
).vectors;

function side(v: NoiseVector, initiator: boolean, aead: Aead): HandshakeState {
  const p = initiator ? 'init' : 'resp';
  const get = (field: string) =>
    (v as unknown as Record<string, string | string[] | undefined>)[`${p}_${field}`];
  const s = get('static') as string | undefined;
  const e = get('ephemeral') as string | undefined;
  const rs = get('remote_static') as string | undefined;
  return new HandshakeState({
    protocolName: v.protocol_name,
    initiator,
    prologue: hex(get('prologue') as string),
    ...(s ? { staticKeyPair: keyPairFromPrivate(hex(s)) } : {}),
    ...(e ? { ephemeralKeyPair: keyPairFromPrivate(hex(e)) } : {}),
    ...(rs ? { remoteStaticKey: hex(rs) } : {}),
    psks: ((get('psks') as string[] | undefined) ?? []).map(hex),
    aead,
  });
}

/** Runs a vector end to end, asserting every ciphertext and that h and ck agree after every message. */
function runVector(v: NoiseVector, aead: Aead): void {
  const init = side(v, true, aead);
  const resp = side(v, false, aead);
  const handshakeLength = init.pattern.messages.length;
  expect(v.messages.length).toBeGreaterThanOrEqual(handshakeLength + 2);
  for (let i = 0; i < handshakeLength; i++) {
    const [writer, reader] = i % 2 === 0 ? [init, resp] : [resp, init];
    const { payload, ciphertext } = v.messages[i]!;
    const message = writer.writeMessage(hex(payload));
    expect(toHex(message)).toBe(ciphertext);
    expect(toHex(reader.readMessage(message))).toBe(payload);
    expect(toHex(init.handshakeHash)).toBe(toHex(resp.handshakeHash));
    expect(toHex(init.chainingKey)).toBe(toHex(resp.chainingKey));
  }
  expect(init.isFinished && resp.isFinished).toBe(true);
  expect(toHex(init.handshakeHash)).toBe(v.handshake_hash);
  const initT = init.split();
  const respT = resp.split();
  const sentBy = { init: 0, resp: 0 };
  for (let i = handshakeLength; i < v.messages.length; i++) {
    const fromInit = init.pattern.oneWay || i % 2 === 0;
    const [writer, reader] = fromInit ? [initT, respT] : [respT, initT];
    const { payload, ciphertext } = v.messages[i]!;
    const message = writer.encrypt(hex(payload));
    expect(toHex(message)).toBe(ciphertext);
    expect(toHex(reader.decrypt(message))).toBe(payload);
    sentBy[fromInit ? 'init' : 'resp']++;
  }
  // Interactive vectors pin at least one transport message each way (XX: one from the initiator, two back),
  // every other one at least two; the LE-nonce test in transport.test.ts pins the second message itself.
  expect(sentBy.init).toBeGreaterThanOrEqual(init.pattern.oneWay || handshakeLength === 2 ? 2 : 1);
  if (!init.pattern.oneWay) expect(sentBy.resp).toBeGreaterThanOrEqual(1);
  // Two more each way (unpinned round trips) so every direction carries at least three messages.
  for (let k = 0; k < 2; k++) {
    const data = Uint8Array.of(k, 1, 2, 3);
    expect(respT.decrypt(initT.encrypt(data))).toEqual(data);
    if (!init.pattern.oneWay) expect(initT.decrypt(respT.encrypt(data))).toEqual(data);
  }
}

describe.each(AEAD_BACKENDS.map((aead) => ({ name: aead.name, aead })))(
  'Noise vectors ($name AEAD)',
  ({ aead }) => {
    it('covers all 11 cacophony patterns', () => {
      expect(cacophony.map((v) => v.protocol_name.split('_')[1]).sort()).toEqual(
        ['IK', 'IKpsk1', 'IKpsk2', 'K', 'Kpsk0', 'N', 'NKpsk0', 'NN', 'X', 'XX', 'XXpsk3'].sort(),
      );
    });

    it.each(cacophony.map((v) => [v.protocol_name, v] as const))('cacophony %s', (_name, v) =>
      runVector(v, aead),
    );

    it.each(emptyPayload.map((v) => [v.protocol_name, v] as const))('empty payloads %s', (_name, v) => {
      expect(v.messages.every((m) => m.payload === '')).toBe(true);
      runVector(v, aead);
    });
  },
);
