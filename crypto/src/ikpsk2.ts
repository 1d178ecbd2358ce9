import type { Aead } from './aead.js';
import { assertBytes } from './bytes.js';
import { HandshakeState } from './handshake-state.js';
import { NoiseError } from './noise-error.js';
import { type ExternalStaticKey, type KeyPair, X25519_KEY_BYTES } from './x25519.js';

/** The one pattern phone↔Burrow uses (DESIGN §4.2; WireGuard's): phone = initiator, Burrow = responder. */
export const BURROW_NOISE_PROTOCOL = 'Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s';

export interface InitiatorIKpsk2Params {
  readonly prologue: Uint8Array;
  /** The phone's static key pair (Client static), or its non-extractable stand-in (`ExternalStaticKey`). */
  readonly staticKeyPair: KeyPair | ExternalStaticKey;
  /** The Burrow's static public key (from the pairing link / ACL record). */
  readonly remoteStaticKey: Uint8Array;
  /** Pairing secret (pair) or device psk (connect). */
  readonly psk: Uint8Array;
  readonly aead?: Aead;
}

export function initiatorIKpsk2(params: InitiatorIKpsk2Params): HandshakeState {
  return new HandshakeState({
    protocolName: BURROW_NOISE_PROTOCOL,
    initiator: true,
    prologue: params.prologue,
    staticKeyPair: params.staticKeyPair,
    remoteStaticKey: params.remoteStaticKey,
    psks: [params.psk],
    ...(params.aead ? { aead: params.aead } : {}),
  });
}

export interface ResponderIKpsk2Params {
  readonly prologue: Uint8Array;
  /** The Burrow's static key pair. */
  readonly staticKeyPair: KeyPair;
  /**
   * Known up front in pair mode (the pairing secret). In connect mode leave it out: read message 1, look the
   * device psk up by `remoteStatic`, call `setPsk()`, then write message 2.
   */
  readonly psk?: Uint8Array;
  readonly aead?: Aead;
}

export function responderIKpsk2(params: ResponderIKpsk2Params): HandshakeState {
  return new HandshakeState({
    protocolName: BURROW_NOISE_PROTOCOL,
    initiator: false,
    prologue: params.prologue,
    staticKeyPair: params.staticKeyPair,
    psks: params.psk ? [params.psk] : [],
    ...(params.aead ? { aead: params.aead } : {}),
  });
}

/**
 * The responder's ephemeral public key in IKpsk2 message 2 (`e, ee, se, psk`): its first 32 bytes, in clear.
 * An initiator whose static key is external needs it to compute DH(s, re) before reading message 2.
 */
export function ikpsk2ResponderEphemeral(message2: Uint8Array): Uint8Array {
  assertBytes('message2', message2);
  if (message2.length < X25519_KEY_BYTES)
    throw new NoiseError('malformed-message', 'handshake message is too short');
  return message2.slice(0, X25519_KEY_BYTES);
}
