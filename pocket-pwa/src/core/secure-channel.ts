/**
 * The phone's end of one Noise session (DESIGN §4.2): the initiator handshake over a socket, then frames
 * fragmented, encrypted and reassembled. One binary WebSocket frame carries one Noise message. The channel
 * fails closed: once a message is refused (a relay that alters, drops, reorders, duplicates or replays frames
 * shows as a failed decryption, the nonce being the message's position) every later `open` and `seal` throws.
 */
import {
  type Aead,
  burrowPrologue,
  encodeHandshakeTimestamp,
  type HandshakeMode,
  initiatorIKpsk2,
  keyPairFromPrivate,
  NoiseError,
  type NoiseTransport,
} from '@burrow/crypto';
import { decodeBase64url, Fragmenter, PROTOCOL_VERSION, ProtocolError, Reassembler } from '@burrow/protocol';

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
  #failed = false;

  constructor(readonly transport: NoiseTransport) {}

  /** True once a message was refused: the socket must be (or has been) closed. */
  get failed(): boolean {
    return this.#failed;
  }

  /** The Noise messages that carry `frame`, in order. */
  seal(frame: Uint8Array): Uint8Array[] {
    this.#usable();
    return this.#fragmenter.split(frame).map((p) => this.transport.encrypt(p));
  }

  /** A whole frame, or null while a fragmented one is incomplete; NoiseError / ProtocolError when refused. */
  open(ciphertext: Uint8Array): Uint8Array | null {
    this.#usable();
    try {
      return this.#reassembler.push(this.transport.decrypt(ciphertext));
    } catch (error) {
      if (error instanceof NoiseError || error instanceof ProtocolError) this.#failed = true;
      throw error;
    }
  }

  #usable(): void {
    if (this.#failed) {
      throw new NoiseError('invalid-state', 'this channel refused a message; the connection must be closed');
    }
  }
}

export function clientSocketUrl(relayUrl: string, burrowId: string): string {
  return `${relayUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/v1/burrows/${encodeURIComponent(burrowId)}/client`;
}
