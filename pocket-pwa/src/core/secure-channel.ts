/**
 * The phone's end of one Noise session (DESIGN §4.2): the initiator handshake over a socket, then frames
 * fragmented, encrypted and reassembled. One binary WebSocket frame carries one Noise message.
 */
import {
  type Aead,
  burrowPrologue,
  encodeHandshakeTimestamp,
  type HandshakeMode,
  initiatorIKpsk2,
  keyPairFromPrivate,
  type NoiseTransport,
} from '@burrow/crypto';
import { decodeBase64url, Fragmenter, PROTOCOL_VERSION, Reassembler } from '@burrow/protocol';

export interface InitiatorParams {
  readonly mode: HandshakeMode;
  readonly burrowId: string;
  readonly burrowPublicKey: Uint8Array;
  readonly clientPrivateKey: Uint8Array;
  readonly psk: Uint8Array;
  /** connect mode: the anti-replay timestamp for message 1's payload. */
  readonly timestamp?: number;
  readonly aead?: Aead;
}

/** Starts the handshake: returns message 1 and a function that takes message 2 and yields the channel. */
export function startHandshake(p: InitiatorParams): {
  message1: Uint8Array;
  finish(message2: Uint8Array): SecureChannel;
} {
  const hs = initiatorIKpsk2({
    prologue: burrowPrologue({
      mode: p.mode,
      protocolVersion: PROTOCOL_VERSION,
      burrowId: decodeBase64url(p.burrowId),
    }),
    staticKeyPair: keyPairFromPrivate(p.clientPrivateKey),
    remoteStaticKey: p.burrowPublicKey,
    psk: p.psk,
    ...(p.aead ? { aead: p.aead } : {}),
  });
  const payload = p.mode === 'connect' ? encodeHandshakeTimestamp(p.timestamp ?? 0) : new Uint8Array(0);
  const message1 = hs.writeMessage(payload);
  return {
    message1,
    finish(message2) {
      hs.readMessage(message2);
      return new SecureChannel(hs.split());
    },
  };
}

export class SecureChannel {
  readonly #fragmenter = new Fragmenter();
  readonly #reassembler = new Reassembler();

  constructor(readonly transport: NoiseTransport) {}

  seal(frame: Uint8Array): Uint8Array[] {
    return this.#fragmenter.split(frame).map((p) => this.transport.encrypt(p));
  }

  open(ciphertext: Uint8Array): Uint8Array | null {
    return this.#reassembler.push(this.transport.decrypt(ciphertext));
  }
}

export function clientSocketUrl(relayUrl: string, burrowId: string): string {
  return `${relayUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/v1/burrows/${encodeURIComponent(burrowId)}/client`;
}
